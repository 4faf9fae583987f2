"""Choosing the device of record for one submission, and saying which one was used."""

from __future__ import annotations

from collections.abc import Mapping

from ..bench.store import ReferenceStore
from ..errors import ReferenceNotFoundError
from ..records import DeviceFingerprint, ReferenceRun
from .policy import GradingPolicy

__all__ = ["ReferenceSet", "fingerprint_note"]

#: fingerprint fields that move per-call timings, and how much of a version has to differ to matter.
_VERSIONS = {"torch": 2, "triton": 2, "cuda": 2, "python": 2, "driver": 1}


def _release(version: str, parts: int) -> str:
    return ".".join(version.split("+", maxsplit=1)[0].split(".")[:parts])


def fingerprint_note(reference: DeviceFingerprint, student: Mapping[str, str]) -> str:
    """A sentence naming what differs between the reference's machine and the student's, or ''.

    ``student`` holds whatever the student's ledger recorded (``device_key``, ``device_name``, and,
    where recorded, ``torch``, ``triton``, ``cuda``, ``python``, ``driver``, ``cpu_model``).  Only
    differences that move timings count: another device model, another release (major.minor) of the
    software that generates and launches the kernels, another host CPU (per-call wall time is mostly
    host-side dispatch).  Patch releases and fields either side lacks are ignored.
    """
    diffs: list[str] = []
    key = student.get("device_key")
    if key and key != reference.key:
        diffs.append(f"device {student.get('device_name') or key} (reference: {reference.name})")
    for field, parts in _VERSIONS.items():
        mine, theirs = student.get(field), getattr(reference, field)
        if mine and theirs and _release(mine, parts) != _release(theirs, parts):
            diffs.append(f"{field} {_release(mine, parts)} (reference: {_release(theirs, parts)})")
    cpu = student.get("cpu_model")
    if cpu and reference.cpu_model and cpu.strip() != reference.cpu_model.strip():
        diffs.append(f"host CPU {cpu} (reference: {reference.cpu_model}), which per-call wall times depend on")
    if not diffs:
        return ""
    return "your setup differs from the reference's: " + "; ".join(diffs)


class ReferenceSet:
    """Loads each device's reference once per grading run."""

    def __init__(self, store: ReferenceStore, assignment: str, policy: GradingPolicy) -> None:
        self.store, self.assignment, self.policy = store, assignment, policy
        self._cache: dict[str, ReferenceRun | None] = {}

    def get(self, device_key: str) -> ReferenceRun | None:
        if device_key not in self._cache:
            try:
                self._cache[device_key] = self.store.load(self.assignment, device_key)
            except ReferenceNotFoundError:
                self._cache[device_key] = None
        return self._cache[device_key]

    def course_reference(self) -> ReferenceRun:
        ref = self.get(self.policy.device_of_record)
        if ref is None:
            self.store.load(self.assignment, self.policy.device_of_record)  # raises with the full message
        assert ref is not None
        return ref

    def for_student(
        self,
        student_device: str | None,
        student_device_name: str | None,
        student_meta: Mapping[str, str] | None = None,
    ) -> tuple[ReferenceRun, str]:
        """(reference, note for the student). A student's own GPU model wins when a reference for it exists.

        ``student_meta`` is the meta of the student's measurement entries; where it records software
        versions or the host CPU, a difference that moves timings is added to the note.
        """
        course = self.course_reference()
        meta = {**(student_meta or {}), **({"device_key": student_device} if student_device else {})}
        if not student_device or student_device == course.device.key:
            return course, fingerprint_note(course.device, meta)
        if self.policy.use_student_gpu and student_device != "cpu":
            own = self.get(student_device)
            if own is not None:
                extra = fingerprint_note(own.device, meta)
                return own, f"graded against your own GPU model, {own.device.name}" + (f"; {extra}" if extra else "")
        shown = student_device_name or student_device
        note = f"you measured on {shown}; the course grades on {course.device.name}, for which a reference exists"
        extra = fingerprint_note(course.device, {k: v for k, v in meta.items() if k != "device_key"})
        return course, note + (f"; {extra}" if extra else "")
