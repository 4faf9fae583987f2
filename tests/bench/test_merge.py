"""Merging independent processes (and machines): centre, both spreads, and what scoring widens by."""

import math
from pathlib import Path

import pytest

from autograder.bench.merge import merge_runs, process_values
from autograder.bench.store import load_run
from autograder.errors import BenchmarkError
from tests.bench._synthetic import device, run

WALL = "wall_speedup@fp32,2^30"
OLD = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "h200-2026-11-29"


def test_merged_value_is_the_median_and_the_band_the_larger_spread(spec):
    runs = [run(spec, {WALL: r}, spread=0.05, minute=i) for i, r in enumerate([1.0, 1.2, 0.8])]
    m = merge_runs(runs, spec).quantities[WALL]
    assert m.ratio == pytest.approx(1.0) and m.value == 1.0
    assert m.within_spread == pytest.approx(0.05)
    assert m.between_spread == pytest.approx(math.log(1.2 / 0.8))
    assert m.log_spread == pytest.approx(m.between_spread)  # processes disagree more than samples do
    assert m.processes == 3 and m.process_ratios == [1.0, 1.2, 0.8]
    quiet = merge_runs([run(spec, {WALL: r}, spread=0.3) for r in (1.0, 1.01)], spec).quantities[WALL]
    assert quiet.log_spread == pytest.approx(0.3)  # noisy samples, agreeing processes: within wins


def test_direction_is_recomputed_with_the_widened_band(spec):
    qid = "fp32_vs_fp16@2^24"
    runs = [run(spec, {qid: r}, spread=0.001) for r in (1.12, 1.13, 1.0)]
    assert [r.quantities[qid].value for r in runs] == ["higher", "higher", "same"]
    m = merge_runs(runs, spec).quantities[qid]
    assert m.ratio == pytest.approx(1.12) and m.value == "same"  # 1.12 is inside 10% + the 0.12 between


def test_merged_runs_merge_again_as_their_processes(spec):
    a = merge_runs([run(spec, {WALL: r}) for r in (1.0, 1.1, 0.9)], spec, ["p1", "p2", "p3"])
    b = merge_runs([run(spec, {WALL: r}, minute=60) for r in (1.3, 1.2)], spec)
    both = merge_runs([a, b], spec, ["lease1", "lease2"])
    assert [s.label for s in both.sources] == ["lease1/p1", "lease1/p2", "lease1/p3", "lease2/process 1",
                                               "lease2/process 2"]
    assert both.quantities[WALL].processes == 5
    assert both.quantities[WALL].ratio == pytest.approx(1.1)
    assert len(process_values([a, b])) == 5


def test_runs_of_different_models_are_refused(spec):
    with pytest.raises(BenchmarkError, match="one device model"):
        merge_runs([run(spec, {}), run(spec, {}, dev=device("nvidia-h100", "NVIDIA H100"))], spec)


def test_old_stored_runs_load_and_pool_their_samples(spec):
    old = [load_run(OLD / f"run{i}.json") for i in (1, 2)]
    assert old[0].device.cpu_model is None and old[0].device.peaks == {} and old[0].fairness is None
    m = merge_runs(old, spec)
    case = old[0].measurements[0]
    pooled = m.find(case.case, case.method)
    other = old[1].find(case.case, case.method)
    assert pooled is not None and other is not None
    assert pooled.stats.n == case.stats.n + other.stats.n == len(pooled.samples_ms)
    assert len(m.sources) == 2
    # the quantities whose cases those runs measured (the lesson has asked new ones since)
    assert "gpu_speedup@fp16,2^24" in m.quantities and set(m.quantities) <= {q.id for q in spec.quantities}


def test_committed_h200_reference_is_merged_and_fair(h200):
    assert len(h200.sources) >= 3 and h200.fairness is not None and h200.fairness.passed
    assert h200.device.cpu_model and h200.device.peaks["matmul_tflops:bfloat16"] > 100
    for v in h200.quantities.values():
        assert v.within_spread is not None and v.between_spread is not None and v.processes >= 3
        assert v.log_spread == pytest.approx(max(v.within_spread, v.between_spread))


def test_a_changed_question_is_merged_from_the_raw_samples_not_from_the_old_values(repo, fastest_call_spec):
    """A lesson that asks its float32 2^28 wall speedup of the fastest calls (``statistic = "min"``): stored H200
    processes, measured when it divided medians, are re-derived from their samples when merged again."""
    from autograder.bench.derive import rederived

    spec = fastest_call_spec
    qid = "wall_speedup@fp32,2^28"
    files = sorted((repo / "benchmarks" / "results" / "h200-2026-12-01c" / "call1" / "runs" / "04_fusion").glob("*.json"))
    runs = [load_run(f) for f in files]
    assert len(runs) == 3
    old = [r.quantities[qid].ratio for r in runs]  # what the median question derived then
    new = [rederived(r, spec).quantities[qid].ratio for r in runs]
    for r, n in zip(runs, new, strict=True):
        by = {(m.case.variant, m.method): m for m in r.measurements if m.case.params == {"dtype": "float32", "log2_n": 28}}
        assert n == pytest.approx(by[("eager", "wall_per_call")].stats.min / by[("compiled", "wall_per_call")].stats.min)
    assert max(old) / min(old) > 1.15 > max(new) / min(new)  # the point of the change, on these processes
    merged = merge_runs([rederived(r, spec) for r in runs], spec)
    assert merged.quantities[qid].process_ratios == pytest.approx(new)
