"""From measurements to quantity values, through the kinds registry: shared by the reference run, the
lesson API (the student's own values) and the sample-class generator."""

from __future__ import annotations

from collections.abc import Iterable

from ..kinds import Measurements, kind_of
from ..records import DeviceFingerprint, Measurement, Quantity, QuantityValue, ReferenceRun
from ..spec import LessonSpec

__all__ = ["quantity_value", "quantity_values", "rederived"]


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


def rederived(run: ReferenceRun, spec: LessonSpec) -> ReferenceRun:
    """A single process's run with its quantities derived again from its raw measurements under ``spec``: a
    lesson that changed a question (another statistic, case or direction) is merged from what was measured,
    not from the values the old question derived. A merged run (``sources``) is kept as it is: its
    per-process values cannot be told apart from its pooled samples; so is a quantity its measurements
    cannot give."""
    if run.sources or run.assignment != spec.id or not run.measurements:
        return run
    qs = quantity_values(spec.for_device(run.device.kind).quantities, run.measurements, run.device.key, run.device)
    return run.model_copy(update={"quantities": {**run.quantities, **qs}})
