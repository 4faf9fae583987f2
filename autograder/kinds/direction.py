"""``direction``: is a ratio higher, lower or the same at other parameters (e.g. fp32 vs fp16)?"""

from __future__ import annotations

import math

from ..records import DIRECTIONS, Case, DeviceFingerprint, ParamValue, Quantity, QuantityValue
from ._base import Kind, Measurements, Score, _show
from .ratio import RatioArgs, measured_ratio, ratio_cases


class DirectionArgs(RatioArgs):
    """The ratio of :class:`RatioArgs` compared with the same ratio at ``baseline`` parameter changes."""

    baseline: dict[str, ParamValue]


def direction_of(log_ratio: float, dead_band: float, spread: float) -> str:
    """'higher'/'lower' only when the change clears the dead band widened by the measured spread."""
    band = math.log1p(dead_band) + spread
    if log_ratio > band:
        return "higher"
    if log_ratio < -band:
        return "lower"
    return "same"


def direction_fraction(predicted: str, reference: str, ratio: float) -> float:
    """Exact direction: full. Said higher/lower where the change was inside the dead band but leaned
    that way: half. Anything else: none."""
    if predicted == reference:
        return 1.0
    if reference == "same" and (predicted == "higher") == (ratio > 1.0):
        return 0.5
    return 0.0


class DirectionKind(Kind):
    name = "direction"
    fact_kind = None
    Args = DirectionArgs
    asks_for = 'one of "higher", "lower", "same"'
    example = "same"

    def _pairs(self, q: Quantity) -> tuple[tuple[Case, Case], tuple[Case, Case]]:
        a = self.args(q)
        main = ratio_cases(a, q.id)
        base = tuple(c.at(**a.baseline) for c in main)
        return main, (base[0], base[1])

    def cases(self, q: Quantity) -> list[Case]:
        main, base = self._pairs(q)
        return [*main, *base]

    def primary_params(self, q: Quantity) -> dict[str, ParamValue]:
        main, _ = self._pairs(q)
        return {k: v for k, v in main[0].params.items() if main[1].params.get(k) == v}

    def derive(self, q: Quantity, ms: Measurements, fp: DeviceFingerprint | None, device: str) -> QuantityValue | None:
        (s, f), (bs, bf) = self._pairs(q)
        stat = self.args(q).statistic
        main, base = measured_ratio(s, f, q.method, ms, stat), measured_ratio(bs, bf, q.method, ms, stat)
        if main is None or base is None:
            return None
        ratio, spread = main[0] / base[0], main[1] + base[1]
        return QuantityValue(
            quantity=q.id,
            value=self.value_of(q, ratio, spread),
            ratio=ratio,
            log_spread=spread,
            method=q.method,
            device=device,
        )

    def value_of(self, q: Quantity, ratio: float, spread: float) -> float | str:
        return direction_of(math.log(ratio), q.tolerance.dead_band, spread)

    def check(self, q: Quantity, value: object) -> tuple[float | str | None, str | None]:
        if isinstance(value, str) and value.strip().lower() in DIRECTIONS:
            return value.strip().lower(), None
        return None, f"{q.id} takes one of {', '.join(DIRECTIONS)} (got {_show(value)})"

    def score(self, q: Quantity, value: float | str, ref: QuantityValue) -> Score:
        assert isinstance(value, str) and isinstance(ref.value, str)
        frac = direction_fraction(value, ref.value, ref.ratio)
        verdict = {
            1.0: "right direction → full credit",
            0.5: f"the change ({ref.ratio:.3f}×) leaned that way but stayed inside the dead band → half credit",
            0.0: "wrong direction → no credit",
        }[frac]
        return Score(frac, verdict)
