"""The fast batch's autograded notebook: what formgrader and ``nbgrader generate_feedback`` open.

``nbgrader autograde`` leaves ``autograded/STUDENT/ASSIGNMENT/NOTEBOOK.ipynb``: the notebook it executed (the
released cells in the released order with the student's answers, :func:`~.reader.normalized_cells`; the
released notebook itself when the file could not be graded from its content) with each graded test cell's
output. The fast batch runs no kernel, so it writes the same notebook with only what it knows for sure:
every code cell's outputs are empty except the graded test cells, which carry what the native path's kernel
prints for them (:func:`~.grade.grade_cell_text` of the stored record, and the points it returns). nbgrader's
cell metadata (grade_id, points, checksums) is the release's, as nbgrader's own autograde leaves it.

Written atomically, read-only (0444, as nbgrader sets it), and only when its bytes change: a rerun with
nothing changed writes nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from ..files.atomic import atomic_write
from ..grading.grade import grade_cell_text
from ..grading.reader import SubmissionReading, normalized_cells, parse_notebook_bytes
from ..records import PredictionGrade, SubmissionGrade

__all__ = [
    "AUTOGRADED_BY",
    "autograded_notebook",
    "autograded_path",
    "grade_cell_outputs",
    "keep_autograded",
    "parsed",
    "restore_autograded",
    "write_autograded",
    "write_timestamp",
]

AUTOGRADED_BY = "autograder grade (fast batch: no kernel ran; test cells show the stored grade)"

def autograded_path(course_root: str | Path, student: str, assignment: str, notebook: str) -> Path:
    return Path(course_root, "autograded", student, assignment, notebook)


def parsed(data: bytes | None) -> Any | None:
    """The submitted file's JSON, or None where it was not read or is not JSON a notebook could be."""
    raw = parse_notebook_bytes(data, "") if data is not None else None
    return None if isinstance(raw, SubmissionReading) else raw


def _cells(nb: Any | None, record: SubmissionGrade, release: dict[str, Any]) -> list[dict[str, Any]]:
    """The cells the native path executes: the released notebook for a file that was not read or cannot be
    graded from its content (the record says so), else the normalized cells of the submission."""
    if nb is None or "unreadable" in record.flags:
        return [json.loads(json.dumps(c)) for c in release.get("cells", [])]
    return normalized_cells(nb, release)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def grade_cell_outputs(g: PredictionGrade, execution_count: int | None = None) -> list[dict[str, Any]]:
    """A graded test cell's outputs, from the record: the reason ``Lesson.grade`` prints and the points it
    returns. Both paths write these (the native path over whatever the student's kernel printed)."""
    return [
        {"name": "stdout", "output_type": "stream", "text": _lines(grade_cell_text(g) + "\n")},
        {"data": {"text/plain": [repr(g.points)]}, "execution_count": execution_count, "metadata": {},
         "output_type": "execute_result"},
    ]


def autograded_notebook(nb: Any | None, record: SubmissionGrade, release: dict[str, Any]) -> dict[str, Any]:
    """The autograded notebook of a submission (``nb``: the submitted notebook as parsed, :func:`parsed`)."""
    by_cell = {p.grade_id: p for p in record.predictions}
    released_ids = {c.get("id") for c in release.get("cells", []) if isinstance(c, dict)}
    cells = _cells(nb, record, release)
    for i, cell in enumerate(cells):
        if cell.get("id") not in released_ids:  # a student's own cell: a stable id, so a rerun writes nothing
            digest = hashlib.sha256(f"{i}\0{cell.get('source', '')}".encode()).hexdigest()[:12]
            cell["id"] = f"s{digest}"
        src = cell.get("source", "")
        cell["source"] = _lines("".join(src) if isinstance(src, list) else str(src))
        if cell.get("cell_type") != "code":
            continue
        cell["execution_count"] = None
        gid = (cell.get("metadata", {}).get("nbgrader") or {}).get("grade_id")
        g = by_cell.get(gid) if isinstance(gid, str) else None
        cell["outputs"] = [] if g is None else grade_cell_outputs(g)
    meta = {**release.get("metadata", {}),
            "gpu_lessons": {"autograded_by": AUTOGRADED_BY, "notebook_sha256": record.notebook_sha256}}
    return {**release, "metadata": meta, "cells": cells}


def _dumps(nb: dict[str, Any]) -> bytes:
    # nbformat's JSON without its indentation (a third of the cost of writing one: Python's indenting
    # encoder is slow); nbformat, nbconvert and Jupyter read it alike
    return (json.dumps(nb, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")


def write_autograded(
    course_root: str | Path, nb: Any | None, record: SubmissionGrade, release: dict[str, Any]
) -> bool:
    """Write the submission's autograded notebook unless it already holds these bytes; True if written.
    ``nb``: the submitted notebook as parsed (:func:`parsed`)."""
    path = autograded_path(course_root, record.student, record.assignment, record.notebook)
    return _write_if_changed(path, _dumps(autograded_notebook(nb, record, release)))


def write_timestamp(course_root: str | Path, student: str, assignment: str, data: bytes) -> bool:
    """``autograded/STUDENT/ASSIGNMENT/timestamp.txt``, as nbgrader autograde copies it (``data``: the
    submitted file's bytes, read safely and already parsed by the caller): nbgrader compares it with the
    submitted one to regrade a resubmission."""
    return _write_if_changed(Path(course_root, "autograded", student, assignment, "timestamp.txt"), data)


def _write_if_changed(path: Path, content: bytes) -> bool:
    try:
        with open(path, "rb") as f:
            if f.read(len(content) + 1) == content:
                return False
    except OSError:
        pass
    atomic_write(path, content, sync=False, mode=0o444)
    return True


def keep_autograded(folders: list[Path], store: Path) -> int:
    """Before ``nbgrader autograde`` touches them: a copy (hard links where it can) of every file of each
    ``autograded/STUDENT/ASSIGNMENT`` folder in ``store``. nbgrader deletes a student's folder when their
    native run fails (and first, with ``--force`` or a newer submission); :func:`restore_autograded` puts
    back what a failed run left missing. nbgrader only ever writes new files there (it deletes before it
    writes), so a link is never written through. Returns the number of folders kept."""
    kept = 0
    for folder in folders:
        if folder.is_symlink() or not folder.is_dir():
            continue
        files = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
        if not files:
            continue
        dest = store / folder.parent.name / folder.name
        for p in files:
            target = dest / p.relative_to(folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(p, target)
            except OSError:
                shutil.copy2(p, target)
        kept += 1
    return kept


def restore_autograded(store: Path, autograded: Path) -> list[str]:
    """Put back each kept folder whose notebook is gone (its native run failed): every kept file, the
    submission's ``timestamp.txt`` too (so nbgrader knows it is not graded yet). A folder the run rewrote
    keeps the new notebook. Then the store is removed. Returns STUDENT/ASSIGNMENT of each folder restored."""
    restored: list[str] = []
    if not store.is_dir():
        return restored
    for kept in sorted(p for p in store.glob("*/*") if p.is_dir()):
        live = autograded / kept.parent.name / kept.name
        notebooks = [p.relative_to(kept) for p in kept.rglob("*.ipynb")]
        if notebooks and all((live / n).is_file() for n in notebooks):
            continue
        for p in (q for q in kept.rglob("*") if q.is_file()):
            target = live / p.relative_to(kept)
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.restore")
            tmp.unlink(missing_ok=True)
            try:
                os.link(p, tmp)
            except OSError:
                shutil.copy2(p, tmp)
            os.replace(tmp, target)
        restored.append(f"{kept.parent.name}/{kept.name}")
    shutil.rmtree(store, ignore_errors=True)
    return restored
