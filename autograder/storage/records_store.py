"""SubmissionGrade records on disk: ``records/<assignment>/<student>.json``, one file each, atomic."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from ..files.atomic import atomic_write
from ..records import SubmissionGrade

__all__ = ["RecordStore"]



class RecordStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, assignment: str, student: str) -> Path:
        return self.root / assignment / f"{student}.json"

    def save(self, record: SubmissionGrade, sync: bool = True) -> Path:
        """``sync=False``: no fsync (the batch; see :func:`~autograder.files.atomic.atomic_write`)."""
        p = self.path(record.assignment, record.student)
        atomic_write(p, record.model_dump_json(indent=1), sync=sync)
        return p

    def load(self, assignment: str, student: str) -> SubmissionGrade | None:
        p = self.path(assignment, student)
        try:
            return SubmissionGrade.model_validate_json(p.read_text(encoding="utf-8"))
        except (OSError, ValidationError, ValueError):
            return None

    def all(self, assignment: str) -> list[SubmissionGrade]:
        d = self.root / assignment
        out = []
        for p in sorted(d.glob("*.json")) if d.is_dir() else []:
            r = self.load(assignment, p.stem)
            if r is not None:
                out.append(r)
        return out
