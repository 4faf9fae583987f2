"""Choosing the device of record for one submission, and saying which one was used."""

from __future__ import annotations

from ..bench.store import ReferenceStore
from ..errors import ReferenceNotFoundError
from ..records import ReferenceRun
from .policy import GradingPolicy

__all__ = ["ReferenceSet"]


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

    def for_student(self, student_device: str | None, student_device_name: str | None) -> tuple[ReferenceRun, str]:
        """(reference, note for the student). A student's own GPU model wins when a reference for it exists."""
        course = self.course_reference()
        if not student_device or student_device == course.device.key:
            return course, ""
        if self.policy.use_student_gpu and student_device != "cpu":
            own = self.get(student_device)
            if own is not None:
                return own, f"graded against your own GPU model, {own.device.name}"
        shown = student_device_name or student_device
        return course, (
            f"you measured on {shown}; the course grades on {course.device.name}, for which a reference exists"
        )
