"""Each quantity kind derives, checks, scores and describes; the registry finds kinds by name."""

import math

import pytest

from autograder.errors import LessonSpecError
from autograder.kinds import KINDS, Kind, Measurements, Score, kind_of, register_kind
from autograder.kinds._base import log_ratio_score
from autograder.kinds.direction import direction_fraction, direction_of
from autograder.records import Case, DeviceFingerprint, Measurement, Quantity, QuantityValue, summarize

FP = DeviceFingerprint(
    kind="cuda",
    key="gpu",
    name="GPU",
    torch="2",
    python="3",
    copy_gbps=1000.0,
    copy_bytes=1,
)


def _m(variant, params, ms, method="gpu_time", bytes_moved=0, flops=0, launches=None, spread=0.0):
    samples = [ms * (1 - spread), ms, ms * (1 + spread)]
    return Measurement(
        case=Case(variant=variant, params=params),
        method=method,
        samples_ms=samples,
        stats=summarize(samples),
        bytes_moved=bytes_moved,
        flops=flops,
        launches=launches,
        launches_source="profiler",
    )


def _q(kind, **args):
    return Quantity(id="q", title="t", label="thing", kind=kind, args=args)


def _ref(value, ratio=None, spread=0.0):
    return QuantityValue(
        quantity="q",
        value=value,
        ratio=ratio if ratio is not None else value,
        log_spread=spread,
        method="gpu_time",
        device="gpu",
    )


def test_ratio_fraction_is_monotone_and_symmetric():
    q = _q("speedup", case={"n": 1}, compare=["a", "b"])
    fracs = [log_ratio_score(q, 3.9 * f, 3.9, 0.0).fraction for f in (1.0, 1.5, 2.0, 2.5, 3.5)]
    assert fracs == sorted(fracs, reverse=True) and fracs[0] == 1.0 and fracs[-1] == 0.0
    assert log_ratio_score(q, 3.9 * 2, 3.9, 0).fraction == pytest.approx(log_ratio_score(q, 3.9 / 2, 3.9, 0).fraction)


def test_ratio_between_two_cases_of_one_variant():
    # a dtype speedup: the same variant at two dtypes
    q = _q("ratio", case={"n": 8}, slow={"variant": "mm", "dtype": "fp32"}, fast={"variant": "mm", "dtype": "bf16"})
    ms = Measurements([_m("mm", {"n": 8, "dtype": "fp32"}, 8.0), _m("mm", {"n": 8, "dtype": "bf16"}, 1.0)])
    v = kind_of(q).derive(q, ms, None, "gpu")
    assert v.value == 8.0
    assert kind_of(q).describe(q) == "thing (gpu_time, n=8)"


@pytest.mark.parametrize("log_ratio, expected", [(0.5, "higher"), (-0.5, "lower"), (0.05, "same"), (-0.05, "same")])
def test_direction_dead_band(log_ratio, expected):
    assert direction_of(log_ratio, dead_band=0.10, spread=0.0) == expected


def test_spread_widens_the_dead_band():
    assert direction_of(0.12, 0.10, 0.0) == "higher"
    assert direction_of(0.12, 0.10, 0.05) == "same"


def test_direction_scores():
    assert direction_fraction("same", "same", 1.03) == 1.0
    assert direction_fraction("higher", "same", 1.03) == 0.5
    assert direction_fraction("lower", "same", 1.03) == 0.0
    assert direction_fraction("lower", "higher", 1.5) == 0.0


def test_peak_fraction_of_the_copy_roofline_and_of_a_flop_peak():
    q = _q("peak_fraction", case={"n": 1}, variant="k", rate="bytes", peak="copy_gbps")
    ms = Measurements([_m("k", {"n": 1}, 1.0, bytes_moved=int(0.8e9))])  # 0.8 GB in 1 ms = 800 GB/s
    assert kind_of(q).derive(q, ms, FP, "gpu").value == pytest.approx(0.8)
    f = _q("peak_fraction", case={"n": 1}, variant="k", rate="flops", peak="matmul_tflops:bf16")
    fp = (
        FP.model_copy(update={"peaks": {"matmul_tflops:bf16": 500.0}})
        if "peaks" in DeviceFingerprint.model_fields
        else None
    )
    ms = Measurements([_m("k", {"n": 1}, 1.0, flops=int(250e9))])  # 250 GFLOP in 1 ms = 250 TFLOP/s
    if fp is not None:
        assert kind_of(f).derive(f, ms, fp, "gpu").value == pytest.approx(0.5)
    assert kind_of(f).derive(f, ms, FP, "gpu") is None  # no such peak measured: no value, never a guess
    value, problem = kind_of(q).check(q, 70)
    assert value is None and "write 0.7 for 70%" in problem


def test_a_peak_measured_low_is_raised_to_what_a_kernel_of_the_run_reached():
    """On a busy machine the fingerprint's peak can come out below a case's rate; the fraction is then
    taken against the best rate of that dtype in the run, never above 1."""
    f = _q("peak_fraction", case={"n": 1, "dtype": "bf16"}, variant="k", rate="flops", peak="matmul_tflops:bf16")
    fp = FP.model_copy(update={"peaks": {"matmul_tflops:bf16": 100.0}})
    ms = Measurements([
        _m("k", {"n": 1, "dtype": "bf16"}, 1.0, flops=int(150e9)),  # 150 TFLOP/s
        _m("k", {"n": 2, "dtype": "bf16"}, 1.0, flops=int(300e9)),  # 300 TFLOP/s: the best bf16 rate
        _m("k", {"n": 2, "dtype": "fp32"}, 1.0, flops=int(900e9)),  # another dtype: not this peak's
    ])
    assert kind_of(f).derive(f, ms, fp, "cpu").value == pytest.approx(0.5)


def test_on_a_cpu_a_lesson_with_peak_case_takes_its_sweeps_best_as_the_peak():
    """A CPU's fingerprint peak (measured idle, at another size) can stand far above what a sweep measured
    under load reaches: the fraction is then of the sweep's own best, so a crossover always has a value.
    A GPU's measured peak stands (there the sweep's best is below a true device peak)."""
    args = {"variant": "k", "rate": "flops", "peak": "matmul_tflops:bf16", "peak_case": {"dtype": "bf16"}}
    f = _q("peak_fraction", case={"n": 1, "dtype": "bf16"}, **args)
    ms = Measurements([
        _m("k", {"n": 1, "dtype": "bf16"}, 1.0, flops=int(150e9)),  # 150 TFLOP/s
        _m("k", {"n": 2, "dtype": "bf16"}, 1.0, flops=int(300e9)),  # 300: the sweep's best
    ])
    high = {"peaks": {"matmul_tflops:bf16": 1000.0}}
    cpu = FP.model_copy(update={"kind": "cpu", **high})
    assert kind_of(f).derive(f, ms, cpu, "cpu").value == pytest.approx(0.5)
    assert kind_of(f).derive(f, ms, FP.model_copy(update=high), "gpu").value == pytest.approx(0.15)
    q = _q("crossover", case={"dtype": "bf16"}, param="n", metric={"kind": "peak_fraction", **args}, threshold=0.6)
    assert kind_of(q).derive(q, ms, cpu, "cpu") is not None  # never reached 60 % of 1000: but of 300 it did
    assert kind_of(q).derive(q, ms, FP.model_copy(update=high), "gpu") is None


def test_crossover_interpolates_in_log_space():
    metric = {"kind": "peak_fraction", "variant": "mm", "rate": "bytes", "peak": "copy_gbps"}
    q = _q("crossover", case={}, param="log2_n", values=[6, 7, 8, 9], metric=metric, threshold=0.5)
    fracs = {6: 0.1, 7: 0.25, 8: 1.0, 9: 1.0}  # crosses 0.5 halfway (in log) between 2^7 and 2^8
    ms = Measurements([_m("mm", {"log2_n": k}, 1.0, bytes_moved=int(f * 1e9)) for k, f in fracs.items()])
    v = kind_of(q).derive(q, ms, FP, "gpu")
    assert v.value == pytest.approx(2**7.5, rel=1e-3)
    # noise-free points: the interpolated crossing does not move between runs (the notebook interpolates
    # the same way), so the band is the tolerance alone, not half a grid step wider
    assert v.log_spread == pytest.approx(0.0, abs=1e-12)
    assert {c.key for c in kind_of(q).cases(q)} == {f"mm/2^{k}" for k in fracs}
    never = Measurements([_m("mm", {"log2_n": k}, 1.0, bytes_moved=int(0.1e9)) for k in fracs])
    assert kind_of(q).derive(q, never, FP, "gpu") is None
    assert kind_of(q).score(q, 200.0, _ref(181.0, spread=v.log_spread)).fraction == 1.0
    assert kind_of(q).score(q, 256.0, _ref(181.0, spread=v.log_spread)).fraction < 1.0  # a grid step off


def test_crossover_spread_is_the_metric_noise_carried_through_the_slope():
    """Noisy points move the crossing by their log spread over the curve's log slope (per grid step)."""
    metric = {"kind": "peak_fraction", "variant": "mm", "rate": "bytes", "peak": "copy_gbps"}
    q = _q("crossover", case={}, param="log2_n", values=[6, 7, 8, 9], metric=metric, threshold=0.5)
    noisy = []
    for k, f in {6: 0.1, 7: 0.25, 8: 1.0, 9: 1.0}.items():
        # samples 10 % either side of the median: a log half-IQR of about 0.05
        noisy.append(_m("mm", {"log2_n": k}, 1.0, bytes_moved=int(f * 1e9), spread=0.1))
    v = kind_of(q).derive(q, Measurements(noisy), FP, "gpu")
    slope = math.log(1.0 / 0.25)
    assert 0.0 < v.log_spread < 0.5 * math.log(2)
    noise = max(m.stats.log_half_iqr for m in noisy)
    assert v.log_spread == pytest.approx(noise * math.log(2) / slope, rel=0.25)


def test_count_scores_by_absolute_difference():
    q = _q("count", case={"n": 1}, variant="eager")
    ms = Measurements([_m("eager", {"n": 1}, 1.0, launches=4)])
    ref = kind_of(q).derive(q, ms, None, "gpu")
    assert ref.value == 4.0
    k = kind_of(q)
    assert k.score(q, 4.0, ref).fraction == 1.0
    assert k.score(q, 3.0, ref).fraction == 0.5
    assert k.score(q, 1.0, ref).fraction == 0.0
    assert k.check(q, 2.5)[1] and k.check(q, True)[1] and k.check(q, 3)[0] == 3.0


def test_registry_knows_builtins_and_accepts_new_kinds():
    assert {"ratio", "speedup", "direction", "peak_fraction", "crossover", "count"} <= set(KINDS)
    with pytest.raises(LessonSpecError, match="unknown quantity kind"):
        kind_of("bogus")

    class Always(_Complete):
        name = "always_full"

    try:
        register_kind(Always())
        assert kind_of("always_full").name == "always_full"
    finally:
        KINDS.pop("always_full")


class _Complete(Kind):
    """A kind implementing every abstract method, trivially."""

    def cases(self, q):
        return []

    def derive(self, q, ms, fp, device):
        return None

    def check(self, q, value):
        return 1.0, None

    def score(self, q, value, ref):
        return Score(1.0, "full")


def test_a_kind_missing_an_abstract_method_cannot_be_instantiated():
    class NoScore(Kind):
        name = "no_score"

        def cases(self, q):
            return []

        def derive(self, q, ms, fp, device):
            return None

        def check(self, q, value):
            return 1.0, None

    with pytest.raises(TypeError, match="abstract method.*score"):
        NoScore()
    with pytest.raises(TypeError, match="abstract"):
        Kind()  # type: ignore[abstract]


def test_register_kind_refuses_to_replace_a_kind_silently():
    ratio = KINDS["ratio"]

    class Impostor(_Complete):
        name = "ratio"

    with pytest.raises(LessonSpecError, match="'ratio' is already registered \\(RatioKind\\).*replace=True"):
        register_kind(Impostor())
    with pytest.raises(LessonSpecError, match="'speedup' is already registered"):
        register_kind(type("Other", (_Complete,), {"name": "other_new"})(), "speedup")
    assert KINDS["ratio"] is ratio and "other_new" not in KINDS
    register_kind(type(ratio)())  # the same kind again (a workload module loaded twice) is allowed
    assert type(KINDS["ratio"]) is type(ratio)
    try:
        register_kind(Impostor(), replace=True)
        assert type(kind_of("ratio")) is Impostor
    finally:
        register_kind(ratio, replace=True)
    assert kind_of("ratio") is ratio


def test_a_tiny_measured_figure_is_shown_to_two_significant_figures_not_as_zero():
    """A slow kernel's share of the roofline or its speedup rounds to 0 at the usual places: the feedback
    then says "0%" and "0.00×" below a table that shows 0.0096 % and 0.00054×."""
    ratio = _q("ratio", case={"n": 1}, compare=["a", "b"])
    assert kind_of(ratio).show(3.97) == "3.97×"
    assert kind_of(ratio).show(0.000538) == "0.00054×"
    share = _q("peak_fraction", case={"n": 1}, variant="k", rate="bytes", peak="copy_gbps")
    assert kind_of(share).show(0.467).startswith("47% ")
    assert kind_of(share).show(0.0000957).startswith("0.0096% ")
    assert kind_of(share).show_committed(0.7).startswith("0.7 (70% ")


def _spread_samples(variant, params, samples, method="wall_per_call"):
    return Measurement(
        case=Case(variant=variant, params=params),
        method=method,
        samples_ms=samples,
        stats=summarize(samples),
        bytes_moved=0,
        flops=0,
        launches=None,
        launches_source="profiler",
    )


def test_a_ratio_divides_the_fastest_samples_when_its_statistic_is_min():
    # the compiled side sits on a slow floor half the time (a dispatch that moves between processes)
    ms = Measurements(
        [
            _spread_samples("eager", {"n": 1}, [2.00, 2.02, 2.04, 2.06, 2.08]),
            _spread_samples("compiled", {"n": 1}, [0.55, 0.56, 0.68, 0.69, 0.70]),
        ]
    )
    q = _q("speedup", case={"n": 1}, compare=["eager", "compiled"], statistic="min")
    q = q.model_copy(update={"method": "wall_per_call"})
    fastest = kind_of(q).derive(q, ms, None, "gpu")
    assert fastest is not None and fastest.ratio == pytest.approx(2.00 / 0.55)
    default = q.model_copy(update={"args": {k: v for k, v in q.args.items() if k != "statistic"}})
    assert kind_of(default).derive(default, ms, None, "gpu").ratio == pytest.approx(2.04 / 0.68)  # the median


def test_a_ratio_statistic_other_than_median_or_min_is_a_lesson_error():
    q = _q("speedup", case={"n": 1}, compare=["a", "b"], statistic="mean")
    with pytest.raises(LessonSpecError, match="statistic"):
        kind_of(q).args(q)
