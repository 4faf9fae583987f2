"""Quantity kinds: a registry of objects that each derive a quantity's value from measurements, check a
student's value, score it against the reference and say both in words.

Built in: ``ratio`` (alias ``speedup``), ``direction``, ``peak_fraction``, ``crossover`` and ``count``.
A lesson's workload module may register its own with :func:`register_kind`; the framework looks kinds up
by the name a quantity gives in ``lesson.toml``.
"""

from __future__ import annotations

import copy

from ..errors import LessonSpecError
from ..records import Quantity
from ._base import Band, Kind, Measurements, Score
from .count import CountKind
from .crossover import CrossoverKind
from .direction import DirectionKind
from .peak_fraction import PeakFractionKind
from .ratio import RatioKind
from .roofline_share import RooflineShareKind

__all__ = ["KINDS", "Band", "Kind", "Measurements", "Score", "kind_of", "register_kind"]

KINDS: dict[str, Kind] = {}


def register_kind(kind: Kind, *aliases: str) -> Kind:
    """Make ``kind`` available to every lesson under its name (and aliases)."""
    for name in (kind.name, *aliases):
        KINDS[name] = kind
    return kind


register_kind(RatioKind(), "speedup")
register_kind(DirectionKind())
register_kind(PeakFractionKind())
register_kind(CrossoverKind())
register_kind(CountKind())
register_kind(RooflineShareKind())


def kind_of(q: Quantity | str) -> Kind:
    """The kind of ``q``; for a quantity whose lesson.toml words it (``prompt``, ``unit``), the kind speaking
    those words (a copy of the registered kind, made once per wording)."""
    name = q if isinstance(q, str) else q.kind
    try:
        kind = KINDS[name]
    except KeyError:
        raise LessonSpecError(f"unknown quantity kind {name!r}; known: {', '.join(sorted(KINDS))}") from None
    if isinstance(q, str):
        return kind
    words = (q.prompt or kind.default_prompt(q), q.unit or kind.default_unit(q))
    if words == (kind.asks_for, kind.unit):
        return kind
    key = (name, *words)
    worded = _WORDED.get(key)
    if worded is None:
        worded = copy.copy(kind)
        worded.asks_for, worded.unit = words
        _WORDED[key] = worded
    return worded


_WORDED: dict[tuple[str, str, str], Kind] = {}
