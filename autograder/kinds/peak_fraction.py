"""``peak_fraction``: the achieved rate of one case as a fraction of a peak measured on the device
(bytes/s against the copy roofline, FLOP/s against the dense matrix-multiply peak of a dtype)."""

from __future__ import annotations

from typing import Literal

from ..records import DeviceFingerprint, Measurement, ParamValue, Quantity, QuantityValue, short_dtype
from ._base import (
    LogRatioScored,
    Measurements,
    OneCaseArgs,
    OneCaseKind,
    figure,
    positive_number,
)


class PeakFractionArgs(OneCaseArgs):
    rate: Literal["bytes", "flops"] = "bytes"
    #: a key of the fingerprint's peaks: "copy_gbps", "matmul_tflops:bfloat16", ...
    peak: str = "copy_gbps"
    #: where the fingerprint has no such peak: the best rate ``variant`` reached at these parameters
    #: anywhere in the run's measurements (the device's peak as this lesson's own sweep found it)
    peak_case: dict[str, ParamValue] | None = None


def device_peak(fp: DeviceFingerprint | None, key: str) -> float | None:
    if fp is None:
        return None
    peaks: dict[str, float] = dict(getattr(fp, "peaks", None) or {})
    if key == "copy_gbps":
        return peaks.get(key, fp.copy_gbps)
    return peaks.get(key)


class PeakFractionKind(LogRatioScored, OneCaseKind):
    name = "peak_fraction"
    fact_kind = "fraction"
    Args = PeakFractionArgs
    asks_for = "a fraction of the peak, e.g. 0.7 for 70%"
    example = 0.5

    def derive(self, q: Quantity, ms: Measurements, fp: DeviceFingerprint | None, device: str) -> QuantityValue | None:
        a = self.args(q)
        m = ms.get(self.cases(q)[0], q.method)
        peak = device_peak(fp, a.peak)

        def rate(x: Measurement) -> float:
            return x.achieved_gbps if a.rate == "bytes" else x.achieved_tflops

        # the peak is never below what a kernel of this run reached: a peak measured on a busy machine (a
        # shared CPU) can come out low, and a fraction over 1 would then be refused as implausible
        # (a per-dtype peak, "matmul_tflops:bfloat16", against that dtype's cases)
        where = a.peak_case if a.peak_case is not None else (
            {"dtype": a.peak.split(":", 1)[1]} if ":" in a.peak else {}
        )
        best = max(
            (
                rate(x)
                for x in ms.all()
                if x.case.variant == a.variant
                and x.method == q.method
                and all(x.case.params.get(k) == v for k, v in where.items())
            ),
            default=0.0,
        )
        if a.peak_case is not None and fp is not None and fp.kind == "cpu":
            # A CPU's fingerprint peak is one size at one moment (CI's runners are shared: measured idle and
            # swept under load, a sweep's best came out under half of it and a crossover had no value); the
            # lesson's own sweep, measured in one go, is the peak that the sweep's fractions are fractions of.
            peak = best
        elif a.peak_case is not None or peak:
            peak = max(peak or 0.0, best)
        if m is None or not peak:
            return None
        achieved = rate(m)
        frac = achieved / peak
        if frac <= 0:
            return None
        return QuantityValue(
            quantity=q.id,
            value=float(f"{frac:.4g}"),  # significant figures: a slow kernel's 0.00009 is not 0
            ratio=frac,
            log_spread=m.stats.log_half_iqr,
            method=q.method,
            device=device,
        )

    def check(self, q: Quantity, value: object) -> tuple[float | str | None, str | None]:
        # as low as 1e-7: a Triton kernel through its interpreter on a CPU reaches under 0.01 % of the copy roofline,
        # and a student predicting what the grader measured of it must be graded
        v, problem = positive_number(q, value, self.asks_for, 1e-7, 1.5, "fraction of the peak", "1e-7 and 1.5")
        if problem and isinstance(value, (int, float)) and 1.5 < float(value) <= 150:
            problem += f" — write {float(value) / 100:g} for {float(value):g}%"
        return (None, problem) if problem else (v, None)

    def default_prompt(self, q: Quantity) -> str:
        return f"a fraction {self.default_unit(q)}, e.g. 0.7 for 70%"

    def default_unit(self, q: Quantity) -> str:
        """"of the copy roofline", "of the bf16 matmul peak": what the fraction is of, from its ``peak``."""
        peak = str(q.args.get("peak", "copy_gbps"))
        if peak == "copy_gbps":
            return "of the copy roofline"
        if peak.startswith("matmul_tflops:"):
            return f"of the {short_dtype(peak.split(':', 1)[1])} matmul peak"
        return "of peak"

    def show(self, value: float | str) -> str:
        return f"{figure(100 * value, 0)}% {self.unit or 'of peak'}" if isinstance(value, float) else str(value)

    def show_committed(self, value: float | str) -> str:
        if not isinstance(value, float):
            return str(value)
        return f"{value:g} ({figure(100 * value, 0)}% {self.unit or 'of peak'})"
