"""What a notebook measures, read from its cells: the order `autograder bench` measures a lesson's points in."""

from __future__ import annotations

from autograder.bench.runner import in_notebook_order
from autograder.notebook_calls import measure_order, notebook_cells
from autograder.spec import load_spec


def _code(src: str) -> dict:
    return {"cell_type": "code", "metadata": {}, "source": src, "outputs": [], "execution_count": None}


def test_the_order_is_the_notebooks_first_measurement_of_each_point(repo):
    spec = load_spec(repo / "source" / "03_roofline" / "lesson.toml")
    cells = [
        _code('L.predict("bf16_vs_fp32@4096", 14.0)'),
        _code('L.measure("float32", 12)\nL.measure("bfloat16", 12)'),
        {"cell_type": "markdown", "metadata": {}, "source": 'L.measure("tf32", 6)'},  # prose: not a call
        _code('L.sweep("bfloat16")  # 12 again: measured once, where it came first'),
        _code("L.measure(dtype=some_variable, log2_n=12)"),  # not literal: skipped
    ]
    order = measure_order(spec, "cuda", cells)
    assert order[:2] == [{"dtype": "float32", "log2_n": 12}, {"dtype": "bfloat16", "log2_n": 12}]
    assert [p["log2_n"] for p in order[2:]] == [6, 7, 8, 9, 10, 11, 13, 14]
    assert all(p["dtype"] == "bfloat16" for p in order[2:])


def test_the_released_lessons_measure_their_sweep_before_the_case_that_follows_it(repo):
    spec = load_spec(repo / "source" / "03_roofline" / "lesson.toml")
    assert notebook_cells(spec)  # the lesson's own notebook is found beside lesson.toml
    order = measure_order(spec, "cuda")
    # the notebook times float32 4096 right after the bf16 sweep's 16384 (what the bench must do too)
    i = order.index({"dtype": "float32", "log2_n": 12})
    assert order[i - 1] == {"dtype": "bfloat16", "log2_n": 14}


def test_points_the_notebook_never_measures_keep_their_order_after_those_it_does():
    groups = [({"n": n}, ["a"]) for n in (1, 2, 3, 4, 5)]
    out = in_notebook_order(groups, [{"n": 4}, {"n": 2}, {"n": 9}])
    assert [g[0]["n"] for g in out] == [4, 2, 1, 3, 5]
