"""`autograder bench` times a case's variants in the order the workload lists them, as the notebook's
`L.measure` does (one measurement, two callers): lesson 03's multiply before its add, not alphabetically."""

from __future__ import annotations

from autograder.bench.runner import run_reference
from autograder.spec import load_spec


def test_the_bench_times_a_cases_variants_in_the_workloads_order(repo):
    spec = load_spec(repo / "source" / "03_roofline" / "lesson.toml")
    assert spec.workload.variants == ("matmul", "elementwise")  # not alphabetical: the test means something
    run = run_reference(spec, "cpu", sizes=[5])
    seen: dict[tuple, list[str]] = {}
    for m in run.measurements:
        variants = seen.setdefault(tuple(sorted(m.case.params.items())), [])
        if m.case.variant not in variants:
            variants.append(m.case.variant)
    order = spec.workload.variants
    assert all(v == sorted(v, key=order.index) for v in seen.values()), seen
    assert sum(v == ["matmul", "elementwise"] for v in seen.values()) >= 2, seen  # the sweep's points: both


def test_the_bench_measures_the_points_in_the_order_the_notebook_does(repo):
    from autograder.notebook_calls import measure_order

    spec = load_spec(repo / "source" / "03_roofline" / "lesson.toml")
    run = run_reference(spec, "cpu", sizes=[5, 8])
    points: list[dict] = []
    for m in run.measurements:
        if m.case.params not in points:
            points.append(m.case.params)
    notebook = [p for p in measure_order(spec, "cpu") if p in points]
    assert len(notebook) >= 3, notebook  # the test means something: several points, a dtype change among them
    assert points[: len(notebook)] == notebook
