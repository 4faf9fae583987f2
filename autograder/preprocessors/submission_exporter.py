"""nbgrader's notebook reader for submitted files, made path-safe: ``c.Autograde.exporter_class``.

nbgrader opens ``submitted/STUDENT/ASSIGNMENT/NOTEBOOK.ipynb`` in ``Exporter.from_filename`` (plain
``open``: it follows links, blocks on a FIFO, reads a device or a sparse file whole, and prints the start of
a file it cannot parse). A preprocessor runs too late to prevent that, so the exporter itself is replaced:
the file is opened with :func:`~autograder.files.safe_read.open_submission` and read once; for a lesson
the reading goes into ``nb.metadata`` (ReadLedger grades it) and nbgrader gets the notebook in the released
cell order (:func:`~autograder.grading.reader.normalized_cells`), or the released notebook itself when the
file cannot be graded from its content, so nbgrader never fails on it and every submission gets its rows.
Notebooks nbgrader writes itself (the autograde phase reads ``autograded/``) are read as usual.
"""

from __future__ import annotations

import atexit
import glob
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import nbformat
from nbconvert.exporters import NotebookExporter
from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode

from ..config import CourseSettings
from ..errors import AutograderError, LessonSpecError
from ..files.safe_read import open_submission
from ..grading.reader import SubmissionReading, normalized_cells, parse_notebook_bytes, read_notebook_node
from ..grading.state import load_release
from ..storage.autograded import keep_autograded, restore_autograded
from .limited_execute import LimitedExecute
from .read_ledger import META_KEY
from .sandbox import bwrap_available, preflight, python_roots


def _alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


class SubmissionRefused(AutograderError):
    """A submitted file of a plain (non-lesson) assignment that is not read: the reason, never its content."""


class SubmissionExporter(NotebookExporter):
    """NotebookExporter whose ``from_filename`` reads submitted notebooks through the path-safe reader.

    Made once per ``nbgrader autograde`` run, before any student: it first checks that the grading sandbox
    can start Python (else one line with bwrap's message, exit 1, nothing touched), then keeps the
    ``autograded/`` folders the run may delete, and puts back at exit each one whose native run failed."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        coursedir = getattr(self.parent, "coursedir", None)
        if coursedir is not None and hasattr(self.parent, "autograde_preprocessors"):
            self._before_run(coursedir)

    def _before_run(self, coursedir: Any) -> None:
        names = [p if isinstance(p, str) else f"{p.__module__}.{p.__name__}"
                 for p in getattr(self.parent, "autograde_preprocessors", [])]
        execute = LimitedExecute(config=self.config)
        if any(n.endswith("LimitedExecute") for n in names) and execute.sandbox == "bwrap" and bwrap_available():
            problem = preflight([*python_roots(), *(Path(p) for p in execute.sandbox_paths)])
            if problem is not None:
                self.log.error("nbgrader autograde: %s; nothing was graded or changed", problem)
                raise SystemExit(1)
        root, out = Path(coursedir.root), Path(coursedir.root, coursedir.autograded_directory)
        folders = [Path(p) for p in glob.glob(coursedir.format_path(
            coursedir.autograded_directory, coursedir.student_id, coursedir.assignment_id))]
        store = root / ".autograded-kept" / f"{os.getpid()}"
        for stale in sorted((root / ".autograded-kept").glob("*")):  # a run that was killed
            if not _alive(stale.name):
                self._restore(stale, out)
        if keep_autograded(folders, store):
            atexit.register(self._restore, store, out)

    def _restore(self, store: Path, autograded: Path) -> None:
        for where in restore_autograded(store, autograded):
            self.log.warning("%s: the native run did not finish; its earlier autograded notebook "
                             "(e.g. the fast batch's) is put back unchanged", where)

    def from_filename(
        self, filename: str, resources: dict[str, Any] | None = None, **kw: Any
    ) -> tuple[NotebookNode, dict[str, Any]]:
        info = (resources or {}).get("nbgrader")
        course = CourseSettings.from_config(self.config).course
        path = Path(os.path.abspath(filename))
        if not info or path.parent.parent.parent != course.submitted:
            return super().from_filename(filename, resources, **kw)  # nbgrader's own output (autograded/)
        resources = resources if resources is not None else ResourcesDict()
        if not resources.get("metadata"):
            resources["metadata"] = ResourcesDict()
        resources["metadata"]["name"] = path.stem
        resources["metadata"]["path"] = str(path.parent)
        student, assignment = info["student"], info["assignment"]
        opened = open_submission(course.root, student, assignment, path.name)
        try:
            spec = course.spec(assignment)
        except LessonSpecError:
            return self.from_notebook_node(self._plain(opened.data, opened.refusal, path.name), resources, **kw)
        release = load_release(course.root, spec)
        if opened.data is None:
            reading, raw = SubmissionReading(problem="refused", errors=[opened.refusal or "not read"]), None
        else:
            parsed = parse_notebook_bytes(opened.data, hashlib.sha256(opened.data).hexdigest())
            if isinstance(parsed, SubmissionReading):
                reading, raw = parsed, None
            else:
                reading = read_notebook_node(parsed, spec, hashlib.sha256(opened.data).hexdigest(), release)
                raw = parsed
        if release is None:
            if reading.unreadable or raw is None:
                raise SubmissionRefused(f"{student}/{assignment}: {'; '.join(reading.errors)}")
            nb = nbformat.reads(json.dumps(raw), as_version=4)
        else:
            cells = release["cells"] if reading.unreadable or raw is None else normalized_cells(raw, release)
            nb = nbformat.reads(json.dumps({**release, "cells": cells}), as_version=4)  # joins list sources
        nb.metadata[META_KEY] = {"reading": reading.model_dump(mode="json")}
        self.log.info("%s/%s read through the path-safe reader%s", student, assignment,
                      f" ({reading.problem})" if reading.problem else "")
        return self.from_notebook_node(nb, resources, **kw)

    @staticmethod
    def _plain(data: bytes | None, refusal: str | None, name: str) -> NotebookNode:
        """A plain nbgrader assignment: the same safe open, then nbformat as nbgrader would read it."""
        if data is None:
            raise SubmissionRefused(refusal or f"{name} was not read")
        parsed = parse_notebook_bytes(data, "")
        if isinstance(parsed, SubmissionReading):
            raise SubmissionRefused(f"{name}: {'; '.join(parsed.errors)}")
        try:
            return nbformat.reads(data.decode("utf-8"), as_version=4)
        except Exception as exc:  # nbformat's messages may quote the file: say only what kind of failure
            raise SubmissionRefused(f"{name} is not a notebook nbformat can read ({type(exc).__name__})") from None


__all__ = ["SubmissionExporter", "SubmissionRefused"]
