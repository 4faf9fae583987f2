"""One run of an assignment's reference benchmark on one device; every grading run reuses it."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from ._base import Record
from .device import DeviceFingerprint
from .measurement import Measurement
from .quantity import Case, Method

__all__ = ["QuantityValue", "ReferenceRun"]


class QuantityValue(Record):
    """A quantity's reference value, with the spread that widens every student's tolerance."""

    quantity: str
    value: float | str
    ratio: float = Field(description="the underlying ratio (for a direction: speedup / baseline speedup)")
    log_spread: float = Field(ge=0, description="half-width of the ratio's noise band, in log space")
    method: Method
    device: str


class ReferenceRun(Record):
    """Fingerprint + every case's measurements + the derived quantity values."""

    assignment: str
    device: DeviceFingerprint
    created_at: datetime
    duration_s: float = Field(ge=0)
    measurements: list[Measurement]
    quantities: dict[str, QuantityValue]
    sizes: dict[str, list[int]] = Field(default_factory=dict, description="legacy: dtype -> log2 sizes swept")

    def find(self, case: Case, method: Method) -> Measurement | None:
        for m in self.measurements:
            if m.case == case and m.method == method:
                return m
        return None
