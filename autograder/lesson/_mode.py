"""What every mode of the lesson API answers (:class:`Mode`), and what the two modes that read the
notebook's own ledger share (:class:`NotebookMode`: the student's kernel and ``nbgrader validate``)."""

from __future__ import annotations

import abc
import json
from pathlib import Path
from typing import Any

from ..grading.checklist import checklist, render_checklist, restart_notes
from ..grading.reader import SubmissionReading
from ..ledger import verify_chains
from ..records import LedgerEntry, ParamValue, Quantity
from ..spec import DeviceKind, LessonSpec
from ._output import show_text

__all__ = ["Mode", "NotebookMode", "kernel_credit", "read_sidecar", "sidecar_path"]

KERNEL_PARTS = ("correctness", "performance")


def sidecar_path(spec: LessonSpec, folder: Path) -> Path:
    """The notebook's ledger beside it (a kernel restart resumes from it)."""
    return folder / f".{spec.id}.ledger.json"


def read_sidecar(path: Path) -> list[LedgerEntry] | None:
    """The chain in ``path`` when it is there and trusted, else None."""
    try:
        verdict, chain = verify_chains([json.loads(path.read_text(encoding="utf-8"))])
    except (ValueError, OSError):
        return None
    return chain if verdict.trusted else None


def kernel_credit(spec: LessonSpec, part: str) -> str | None:
    """The grade id of ``part`` ("correctness", "performance") of the student's kernel, or None."""
    sv = spec.student_variant
    if sv is None or part not in KERNEL_PARTS:
        return None
    return sv.correctness.grade_id if part == "correctness" and sv.correctness else sv.performance_grade_id


def no_such_part(part: str) -> None:
    show_text(f"✘ {part!r}: this lesson grades no such part of your kernel (correctness, performance).")


class Mode(abc.ABC):
    """One way a lesson notebook runs; :class:`~autograder.lesson.Lesson` hands each call to its mode,
    arguments already parsed (a known quantity, the workload's parameters)."""

    def __init__(self, spec: LessonSpec, folder: Path) -> None:
        self.spec = spec
        self.folder = folder
        self.chain: list[LedgerEntry] = []

    @property
    def kind(self) -> DeviceKind:
        """The kind of device this mode measures on (what ``[sweep.cpu]``/``substitute`` apply to)."""
        return "cpu"

    @abc.abstractmethod
    def predict(self, q: Quantity, value: float | str | None, because: str) -> None: ...

    @abc.abstractmethod
    def start_over(self, because: str) -> None: ...

    @abc.abstractmethod
    def device(self) -> None: ...

    @abc.abstractmethod
    def measure(self, asked: dict[str, ParamValue], point: dict[str, ParamValue]) -> None: ...

    @abc.abstractmethod
    def sweep(self, fixed: dict[str, ParamValue]) -> None: ...

    @abc.abstractmethod
    def measure_student(self, fn: Any) -> None:
        """Only called for a lesson with a ``[student_variant]``."""

    @abc.abstractmethod
    def grade_kernel(self, part: str, credit: str | None) -> float | None:
        """``credit``: the grade id of the part (None: no such part of this lesson)."""

    @abc.abstractmethod
    def grade(self, q: Quantity) -> float | None: ...

    @abc.abstractmethod
    def status(self) -> None: ...


class NotebookMode(Mode):
    """A mode whose ledger is the notebook's own (not a submission's): a grade is a preview, the status
    is this chain's."""

    device_key = "?"
    device_name = "?"

    def reading(self) -> SubmissionReading:
        """This chain as the grader would read it."""
        verdict, chain = verify_chains([[e.model_dump(mode="json") for e in self.chain]])
        return SubmissionReading(
            verdict=verdict, entries=chain, student_device=self.device_key, student_device_name=self.device_name
        )

    def grade(self, q: Quantity) -> float | None:
        rows, _ = checklist(self.reading(), self.spec)
        row = next(r for r in rows if r.quantity == q.id)
        show_text(
            f"{q.id}: {row.state} {row.value} ({row.note}). It is graded against the reference on the "
            f"course's grading device ({q.method}), not against your own measurement."
        )
        return None

    def grade_kernel(self, part: str, credit: str | None) -> float | None:
        sv = self.spec.student_variant
        if sv is None or credit is None:
            no_such_part(part)
            return None
        show_text(
            f"{part} of your {sv.entry}: graded when you submit, by running it on the course's grading device "
            "on hidden inputs (what you measured here is not used)."
        )
        return None

    def status(self) -> None:
        reading = self.reading()
        rows, problems = checklist(reading, self.spec)
        show_text(render_checklist(rows, problems, restart_notes(reading)))
