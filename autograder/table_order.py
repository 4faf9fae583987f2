"""The order a lesson's tables divide its variants in: the direction its students predict.

By default a table divides the baseline's time (the workload's first variant) by each other variant's: a
speedup. A lesson whose first ``ratio`` quantity comparing two variants divides the other way (a slowdown:
``compare = ["b", "a"]`` with ``variants = ("a", "b")``) has its tables divide that way too, so the number a
student reads in ``L.measure`` is the number they predicted, not its inverse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .kinds import kind_of

if TYPE_CHECKING:
    from .spec import LessonSpec

__all__ = ["ratio_heading", "ratio_order"]


def ratio_order(spec: LessonSpec, variants: tuple[str, ...] | list[str]) -> list[str]:
    """``variants`` (the workload's, baseline first) with the numerator of the lesson's ratios first."""
    names = list(variants)
    for q in spec.quantities:
        kind = kind_of(q)
        if kind.name != "ratio":
            continue
        slow, fast = kind.cases(q)
        if slow.variant != fast.variant and slow.variant in names and fast.variant in names:
            return [slow.variant, *(v for v in names if v != slow.variant)]
    return names


def ratio_heading(baseline: str, numerator: str, denominator: str, pair: bool) -> str:
    """"speedup" for the baseline over the only other variant, else ``numerator/denominator``."""
    return "speedup" if pair and numerator == baseline else f"{numerator}/{denominator}"
