"""Is a predicted value gradeable at all? Shared by ``predict()`` (refuse at commit) and the graders."""

from __future__ import annotations

import math

from ..records import DIRECTIONS, Quantity

__all__ = ["check_value"]


def check_value(q: Quantity, value: object) -> tuple[float | str | None, str | None]:
    """(normalized value, None) when gradeable, else (None, reason a student can act on)."""
    if q.kind == "direction":
        if isinstance(value, str) and value.strip().lower() in DIRECTIONS:
            return value.strip().lower(), None
        return None, f"{q.id} takes one of {', '.join(DIRECTIONS)} (got {_show(value)})"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        hint = " — write a number like 3.0, not words" if isinstance(value, str) else ""
        return None, f"{q.id} takes a number, the speedup as a factor (got {_show(value)}){hint}"
    v = float(value)
    if math.isnan(v) or math.isinf(v):
        return None, f"{q.id} must be a finite number (got {v})"
    if v <= 0:
        return None, f"{q.id} is a ratio of two times and must be positive (got {v:g})"
    if v > 1e4 or v < 1e-4:
        return None, f"{q.id} = {v:g} is not a plausible speedup (expected between 1e-4 and 1e4)"
    return v, None


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
