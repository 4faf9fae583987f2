"""From case timings to quantity values: pure functions, shared by the reference and the lesson API."""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..records import Case, Measurement, Method, Quantity, QuantityValue

__all__ = ["direction_of", "quantity_value", "speedup"]


def _find(ms: Iterable[Measurement], case: Case, method: Method) -> Measurement | None:
    return next((m for m in ms if m.case == case and m.method == method), None)


def speedup(ms: list[Measurement], dtype: str, log2_n: int, method: Method) -> tuple[float, float] | None:
    """(eager median / compiled median, half-width of its noise band in log space), or None if unmeasured."""
    eager = _find(ms, Case(variant="eager", dtype=dtype, log2_n=log2_n), method)  # type: ignore[arg-type]
    comp = _find(ms, Case(variant="compiled", dtype=dtype, log2_n=log2_n), method)  # type: ignore[arg-type]
    if eager is None or comp is None:
        return None
    spread = 0.0
    for m in (eager, comp):
        q1, q3 = m.stats.q1, m.stats.q3
        spread += 0.5 * math.log(q3 / q1) if q1 > 0 else 0.0
    return eager.stats.median / comp.stats.median, spread


def direction_of(log_ratio: float, dead_band: float, spread: float) -> str:
    """'higher'/'lower' only when the change clears the dead band widened by the measured spread."""
    band = math.log1p(dead_band) + spread
    if log_ratio > band:
        return "higher"
    if log_ratio < -band:
        return "lower"
    return "same"


def quantity_value(q: Quantity, ms: list[Measurement], device: str) -> QuantityValue | None:
    """The quantity's value on this device, or None when its cases were not measured."""
    main = speedup(ms, q.dtype, q.log2_n, q.method)
    if main is None:
        return None
    if q.kind == "speedup":
        return QuantityValue(
            quantity=q.id, value=round(main[0], 4), ratio=main[0], log_spread=main[1], method=q.method, device=device
        )
    assert q.baseline_dtype is not None
    base = speedup(ms, q.baseline_dtype, q.log2_n, q.method)
    if base is None:
        return None
    ratio = main[0] / base[0]
    spread = main[1] + base[1]
    return QuantityValue(
        quantity=q.id,
        value=direction_of(math.log(ratio), q.tolerance.dead_band, spread),
        ratio=ratio,
        log_spread=spread,
        method=q.method,
        device=device,
    )
