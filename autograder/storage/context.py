"""What the nbgrader-native path hands the grading kernel: the submission as read before ClearOutput,
the chosen reference, the policy and the record graded from them (the kernel shows it, never regrades).
Written next to the notebook by a preprocessor before Execute."""

from __future__ import annotations

from pathlib import Path

from ..files.atomic import atomic_write
from ..grading.policy import GradingPolicy
from ..grading.reader import SubmissionReading
from ..records import ReferenceRun, SubmissionGrade
from ..records._base import Record

__all__ = ["CONTEXT_FILENAME", "GradingContext"]

CONTEXT_FILENAME = ".autograder_context.json"


class GradingContext(Record):
    reading: SubmissionReading
    reference: ReferenceRun
    note: str = ""
    policy: GradingPolicy
    record: SubmissionGrade | None = None

    def write(self, folder: str | Path) -> Path:
        p = Path(folder) / CONTEXT_FILENAME
        atomic_write(p, self.model_dump_json())
        return p

    @classmethod
    def read(cls, folder: str | Path) -> GradingContext | None:
        p = Path(folder) / CONTEXT_FILENAME
        return cls.model_validate_json(p.read_text(encoding="utf-8")) if p.exists() else None
