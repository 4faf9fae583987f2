"""roofline_share: a kernel's measured share of the copy roofline turned into points, with its words."""

import math

import pytest

from autograder.errors import LessonSpecError
from autograder.kinds import KINDS, Measurements, kind_of
from autograder.kinds.roofline_share import ShareBand, share_fraction
from autograder.records import Case, DeviceFingerprint, Measurement, Quantity, summarize

FP = DeviceFingerprint(kind="cuda", key="gpu", name="GPU", torch="2", python="3", copy_gbps=4000.0, copy_bytes=1)
CASE = {"dtype": "float16", "log2_n": 26}


def _q(**args):
    base = {"case": CASE, "variant": "student", "full_share": 0.7, "zero_share": 0.2}
    return Quantity(id="perf", title="t", label="share", kind="roofline_share", points=4.0, args={**base, **args})


def _m(ms, bytes_moved=268_435_456, variant="student"):
    samples = [ms * 0.99, ms, ms * 1.01]
    return Measurement(case=Case(variant=variant, params=CASE), method="gpu_time", samples_ms=samples,
                       stats=summarize(samples), bytes_moved=bytes_moved)


def test_registered_under_its_name():
    assert isinstance(KINDS["roofline_share"], type(kind_of("roofline_share")))
    assert kind_of("roofline_share").predicted is False


def test_share_is_bytes_over_time_over_the_copy_roofline():
    q = _q()
    v = kind_of(q).derive(q, Measurements([_m(0.0671)]), FP, "gpu")  # 268 MB in 67.1 µs = 4,000 GB/s
    assert v is not None and v.ratio == pytest.approx(1.0, rel=1e-3)
    v = kind_of(q).derive(q, Measurements([_m(0.2684)]), FP, "gpu")
    assert v.ratio == pytest.approx(0.25, rel=1e-3)


def test_credit_full_none_and_log_between_with_words():
    q, kind = _q(), kind_of("roofline_share")
    ms = Measurements([_m(0.0678)])  # 0.99 of the roofline: the instructor's BLOCK_SIZE=1024 kernel on the H200
    full = kind.credit(q, kind.derive(q, ms, FP, "gpu"), "cuda", FP.copy_gbps)
    assert full.fraction == 1.0
    assert "99% of the copy roofline" in full.verdict and "4,000 GB/s" in full.verdict and "→ 100%" in full.verdict
    slow = kind.credit(q, kind.derive(q, Measurements([_m(1.3)]), FP, "gpu"), "cuda", FP.copy_gbps)  # 5%
    assert slow.fraction == 0.0 and "none at or below 20%" in slow.verdict
    eagerish = kind.credit(q, kind.derive(q, Measurements([_m(0.27)]), FP, "gpu"), "cuda", FP.copy_gbps)
    assert eagerish.fraction == pytest.approx(math.log(eagerish.ratio / 0.2) / math.log(0.7 / 0.2))
    assert 0.1 < eagerish.fraction < 0.3


def test_a_device_kind_has_its_own_band():
    q = _q(devices={"cpu": {"full_share": 1e-4, "zero_share": 3e-6}})
    kind = kind_of(q)
    assert kind.band_for(q, "cpu") == ShareBand(full_share=1e-4, zero_share=3e-6)
    assert kind.band_for(q, "cuda") == ShareBand(full_share=0.7, zero_share=0.2)
    assert share_fraction(3e-4, kind.band_for(q, "cpu")) == 1.0
    assert share_fraction(3e-4, kind.band_for(q, "cuda")) == 0.0


@pytest.mark.parametrize(
    "bad, said",
    [
        ({"full_share": 0.2, "zero_share": 0.7}, "must be below full_share"),
        ({"zero_share": 0.0}, "zero_share"),
        ({"peak": "matmul_tflops:bfloat16"}, "peak"),
        ({"devices": {"tpu": {"full_share": 0.5, "zero_share": 0.1}}}, "devices"),
    ],
)
def test_bad_arguments_are_one_clear_line(bad, said):
    q = _q(**bad)
    with pytest.raises(LessonSpecError, match=said) as err:
        kind_of(q).args(q)
    assert "\n" not in str(err.value)
