"""From measurements to quantity values, through the kinds registry: shared by the reference run, the
lesson API (the student's own values) and the sample-class generator."""

from __future__ import annotations

from collections.abc import Iterable

from ..kinds import Measurements, kind_of
from ..records import DeviceFingerprint, Measurement, Quantity, QuantityValue

__all__ = ["quantity_value", "quantity_values"]


def quantity_value(
    q: Quantity, ms: Iterable[Measurement] | Measurements, device: str, fp: DeviceFingerprint | None = None
) -> QuantityValue | None:
    """The quantity's value on this device, or None when what it needs was not measured."""
    index = ms if isinstance(ms, Measurements) else Measurements(ms)
    return kind_of(q).derive(q, index, fp, device)


def quantity_values(
    qs: Iterable[Quantity], ms: Iterable[Measurement], device: str, fp: DeviceFingerprint | None = None
) -> dict[str, QuantityValue]:
    index = Measurements(ms)
    out = {}
    for q in qs:
        v = quantity_value(q, index, device, fp)
        if v is not None:
            out[q.id] = v
    return out
