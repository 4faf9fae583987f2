"""Is a predicted value gradeable at all? Shared by ``predict()`` (refuse at commit) and the graders;
each quantity kind decides (:mod:`autograder.kinds`)."""

from __future__ import annotations

from ..kinds import kind_of
from ..records import Quantity

__all__ = ["check_value"]


def check_value(q: Quantity, value: object) -> tuple[float | str | None, str | None]:
    """(normalized value, None) when gradeable, else (None, reason a student can act on)."""
    return kind_of(q).check(q, value)
