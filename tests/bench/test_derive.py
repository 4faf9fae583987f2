import math

import pytest

from autograder.bench.derive import quantity_value, quantity_values
from autograder.records import Case, Measurement, Quantity, summarize


def _m(variant, dtype, k, method, samples):
    return Measurement(
        case=Case(variant=variant, params={"dtype": dtype, "log2_n": k}),
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
    q = Quantity(
        id="s", title="t", kind="speedup", args={"case": {"dtype": "float16", "log2_n": 24}, "compare": ["eager", "compiled"]}
    )
    v = quantity_value(q, ms, "dev")
    assert v.ratio == pytest.approx(4.0)
    assert v.log_spread == pytest.approx(0.5 * math.log(1.05 / 0.95))
    assert quantity_value(q.model_copy(update={"method": "wall_per_call"}), ms, "dev") is None


def test_quantity_values_from_the_h200_reference(spec, h200):
    values = quantity_values(spec.quantities, h200.measurements, "nvidia-h200", h200.device)
    # a merged reference's value is the median of its processes' ratios; its pooled samples agree within 1%
    assert values["gpu_speedup@fp16,2^24"].value == pytest.approx(
        h200.quantities["gpu_speedup@fp16,2^24"].value, rel=0.01
    )
    # what the brief says of the H200: fusion wins ~4x in GPU time; per call only once the kernels
    # outlast dispatch (2^28), and per call it gains far less at 2^20 than at 2^28
    assert 3.6 < values["gpu_speedup@fp16,2^24"].ratio < 4.3
    assert 3.0 < values["wall_speedup@fp32,2^30"].ratio < 4.2
    assert values["wall_2^20_vs_2^28@fp16"].value == "lower"
    assert values["fp32_vs_fp16@2^24"].value == "same"
