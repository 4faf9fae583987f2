"""One run of an assignment's reference benchmark on one device; every grading run reuses it.

A stored reference is usually merged from several independent processes (and machines of one model):
per-call wall timings move between processes far more than inside one, so each quantity keeps both
spreads, and the stored ``fairness`` check says whether every process, graded against the others,
earned full credit.  Every field added for that is optional: single-process references still load.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field, model_validator

from ._base import Record
from .device import DeviceFingerprint
from .measurement import Measurement
from .quantity import Case, Method

__all__ = ["FairnessCheck", "FairnessItem", "QuantityValue", "ReferenceRun", "RunSource"]


class QuantityValue(Record):
    """A quantity's reference value, with the spread that widens every student's tolerance.

    ``log_spread`` is what scoring uses: the larger of the within-process spread (quartiles of one
    process's samples) and the between-process spread (how far the farthest process's value lies from the
    merged value), both kept so that a reader can see which one set the band.
    """

    quantity: str
    value: float | str
    ratio: float = Field(description="the underlying ratio (for a direction: speedup / baseline speedup)")
    log_spread: float = Field(ge=0, description="half-width of the ratio's noise band, in log space")
    method: Method
    device: str
    within_spread: float | None = Field(default=None, ge=0, description="median within-process half-width")
    between_spread: float | None = Field(default=None, ge=0, description="farthest process from the value, log")
    processes: int = Field(default=1, ge=1, description="independent processes (and machines) merged")
    process_ratios: list[float] = Field(default_factory=list, description="each process's own ratio")
    process_spreads: list[float] = Field(default_factory=list, description="each process's within spread")


class RunSource(Record):
    """One independent process that a merged reference was built from."""

    label: str
    created_at: datetime
    duration_s: float = Field(ge=0)
    device: DeviceFingerprint


class FairnessItem(Record):
    """One process's own value graded against the reference merged from the others."""

    quantity: str
    held_out: str = Field(description="label of the process whose value was graded")
    predicted: float | str
    reference: float | str
    fraction: float = Field(ge=0, le=1)
    margin: float | None = Field(
        default=None, description="log room left inside the full-credit band (negative: outside it)"
    )


class FairnessCheck(Record):
    """Leave-one-out check: an honest student on this device must always get full credit."""

    passed: bool
    processes: int = Field(ge=0)
    items: list[FairnessItem] = Field(default_factory=list)
    failures: list[str] = Field(default_factory=list, description="one sentence per failing item")
    accepted_by_instructor: bool = False
    note: str = ""


class ReferenceRun(Record):
    """Fingerprint + every case's measurements + the derived quantity values."""

    assignment: str
    device: DeviceFingerprint
    created_at: datetime
    duration_s: float = Field(ge=0)
    measurements: list[Measurement]
    quantities: dict[str, QuantityValue]
    sources: list[RunSource] = Field(default_factory=list, description="processes merged; empty: this one")
    fairness: FairnessCheck | None = None

    @model_validator(mode="before")
    @classmethod
    def _drop_legacy_sizes(cls, data: Any) -> Any:
        """Older stored runs carry ``sizes`` (dtype -> log2 sizes swept), which nothing reads: accepted and
        dropped, so those files still load and the next save leaves it out."""
        if isinstance(data, dict) and "sizes" in data:
            data = {k: v for k, v in data.items() if k != "sizes"}
        return data

    def find(self, case: Case, method: Method) -> Measurement | None:
        for m in self.measurements:
            if m.case == case and m.method == method:
                return m
        return None
