"""``count``: an integer read from the profiler, e.g. the kernels one call of a variant launches."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..records import DeviceFingerprint, Quantity, QuantityValue
from ._base import Band, Measurements, OneCaseArgs, OneCaseKind, Score, _show

if TYPE_CHECKING:
    from ..workload import Workload


class CountArgs(OneCaseArgs):
    """The case and variant whose count is read."""


class CountKind(OneCaseKind):
    name = "count"
    fact_kind = "launches"
    Args = CountArgs
    asks_for = "a whole number"
    example = 1

    def derive(self, q: Quantity, ms: Measurements, fp: DeviceFingerprint | None, device: str) -> QuantityValue | None:
        m = ms.get(self.cases(q)[0], q.method)
        if m is None or m.launches is None:
            return None
        v = float(m.launches)
        return QuantityValue(quantity=q.id, value=v, ratio=v, log_spread=0.0, method=q.method, device=device)

    def model_value(self, q: Quantity, workload: Workload) -> float:
        c = self.cases(q)[0]
        return float(workload.work(c.variant, c.params).launches)

    def value_of(self, q: Quantity, ratio: float, spread: float) -> float | str:
        return float(round(ratio))

    def check(self, q: Quantity, value: object) -> tuple[float | str | None, str | None]:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None, f"{q.id} takes a whole number (got {_show(value)})"
        v = float(value)
        if not math.isfinite(v) or v < 0 or v != int(v):
            return None, f"{q.id} is a count: a whole number of 0 or more (got {value!r})"
        if v > 1e6:
            return None, f"{q.id} = {v:g} is not a plausible count"
        return v, None

    def band(self, q: Quantity, ref: QuantityValue) -> Band:
        t, n = q.tolerance, float(round(ref.ratio))  # a count merged over processes is still a whole number
        return Band(n - t.abs_full, n + t.abs_full, n - t.abs_zero, n + t.abs_zero)

    def score(self, q: Quantity, value: float | str, ref: QuantityValue) -> Score:
        assert isinstance(value, float)
        diff = abs(value - round(ref.ratio))
        t = q.tolerance
        if self.band(q, ref).full(value):
            return Score(1.0, "exact → full credit" if diff == 0 else f"within {t.abs_full:g} → full credit")
        if diff >= t.abs_zero:
            return Score(0.0, f"off by {diff:g}, {t.abs_zero:g} or more → no credit")
        frac = (t.abs_zero - diff) / (t.abs_zero - t.abs_full)
        return Score(frac, f"off by {diff:g} (none from {t.abs_zero:g}) → {100 * frac:.0f}%")

    def show(self, value: float | str) -> str:
        return f"{value:g}" if isinstance(value, float) else str(value)

    show_committed = show
