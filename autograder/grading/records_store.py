"""SubmissionGrade records on disk: ``records/<assignment>/<student>.json``, one file each, atomic."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from pydantic import ValidationError

from ..bench.store import atomic_write_text
from ..records import SubmissionGrade

__all__ = ["RecordStore"]


def _replace_text(path: Path, text: str) -> None:
    """Temp file + rename without fsync: readers never see half a file and a killed process loses nothing
    (the page cache survives it). Only a power cut can leave a torn file, which fails validation on load
    and is graded again, so ten thousand fsyncs (most of a batch's wall time on a busy disk) buy nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class RecordStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, assignment: str, student: str) -> Path:
        return self.root / assignment / f"{student}.json"

    def save(self, record: SubmissionGrade, sync: bool = True) -> Path:
        """``sync=False``: no fsync (the batch; see :func:`_replace_text`)."""
        p = self.path(record.assignment, record.student)
        (atomic_write_text if sync else _replace_text)(p, record.model_dump_json(indent=1))
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
