import math

import pytest

from autograder.bench.derive import direction_of, quantity_value, speedup
from autograder.records import Case, Measurement, summarize


def _m(variant, dtype, k, method, samples):
    return Measurement(
        case=Case(variant=variant, dtype=dtype, log2_n=k),
        method=method,
        samples_ms=samples,
        stats=summarize(samples),
        bytes_moved=1,
    )


def test_speedup_and_its_noise_band():
    ms = [
        _m("eager", "float16", 24, "gpu_time", [4.0, 4.0, 4.0]),
        _m("compiled", "float16", 24, "gpu_time", [0.9, 1.0, 1.1]),
    ]
    s, spread = speedup(ms, "float16", 24, "gpu_time")
    assert s == pytest.approx(4.0)
    assert spread == pytest.approx(0.5 * math.log(1.05 / 0.95))
    assert speedup(ms, "float16", 24, "wall_per_call") is None


@pytest.mark.parametrize("log_ratio, expected", [(0.5, "higher"), (-0.5, "lower"), (0.05, "same"), (-0.05, "same")])
def test_direction_dead_band(log_ratio, expected):
    assert direction_of(log_ratio, dead_band=0.10, spread=0.0) == expected


def test_spread_widens_the_dead_band():
    assert direction_of(0.12, 0.10, 0.0) == "higher"
    assert direction_of(0.12, 0.10, 0.05) == "same"


def test_quantity_values_from_the_h200_reference(spec, h200):
    values = {q.id: quantity_value(q, h200.measurements, "nvidia-h200") for q in spec.quantities}
    # a merged reference's value is the median of its processes' ratios; its pooled samples agree within 1%
    assert values["gpu_speedup@fp16,2^24"].value == pytest.approx(
        h200.quantities["gpu_speedup@fp16,2^24"].value, rel=0.01
    )
    # what DESIGN.md says of the H200: fusion wins ~4x in GPU time, loses or ties per call
    assert 3.6 < values["gpu_speedup@fp16,2^24"].ratio < 4.3
    assert values["wall_speedup@fp16,2^24"].ratio < 1.1
    assert values["fp32_vs_fp16@2^24"].value == "same"
