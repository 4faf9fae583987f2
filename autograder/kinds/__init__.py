"""Quantity kinds: a registry of objects that each derive a quantity's value from measurements, check a
student's value, score it against the reference and say both in words.

Built in: ``ratio`` (alias ``speedup``), ``direction``, ``peak_fraction``, ``crossover`` and ``count``.
A lesson's workload module may register its own with :func:`register_kind`; the framework looks kinds up
by the name a quantity gives in ``lesson.toml``.
"""

from __future__ import annotations

from ._base import Band, Kind, Measurements, Score
from ._registry import KINDS, kind_of, register_kind
from .count import CountKind
from .crossover import CrossoverKind
from .direction import DirectionKind
from .peak_fraction import PeakFractionKind
from .ratio import RatioKind
from .roofline_share import RooflineShareKind

__all__ = ["KINDS", "Band", "Kind", "Measurements", "Score", "kind_of", "register_kind"]

register_kind(RatioKind(), "speedup")
register_kind(DirectionKind())
register_kind(PeakFractionKind())
register_kind(CrossoverKind())
register_kind(CountKind())
register_kind(RooflineShareKind())
