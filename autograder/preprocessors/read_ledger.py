"""Sanitize step, placed before nbgrader's ClearOutput: the submission is graded here, once.

The reading comes from :class:`~.submission_exporter.SubmissionExporter` (which read the file through the
path-safe reader before nbgrader could); without that exporter the file is read here, the same safe way.
The grading state (the record every later step shows or stores) goes into ``nb.metadata``.
"""

from __future__ import annotations

from typing import Any

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

from ..config import CourseSettings
from ..errors import LessonSpecError
from ..files.safe_read import open_submission
from ..grading.reader import SubmissionReading
from ..grading.references import ReferenceSet
from ..grading.state import grade_reading, load_release, read_opened

META_KEY = "gpu_lessons"


def grading_meta(nb: NotebookNode) -> dict[str, Any]:
    """This project's part of the notebook metadata: reading, record, execution."""
    meta = nb.metadata.get(META_KEY)
    return dict(meta) if isinstance(meta, dict) else {}


class ReadLedger(NbGraderPreprocessor):
    """Verify the commitment chain, judge the cells, grade: one SubmissionGrade in ``nb.metadata``.

    Plain nbgrader assignments (no lesson.toml) pass through untouched.
    """

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        settings = CourseSettings.from_config(self.config)
        info = resources["nbgrader"]
        course = settings.course
        try:
            spec = course.spec(info["assignment"])
        except LessonSpecError:
            return nb, resources
        release = load_release(course.root, spec)
        meta = grading_meta(nb)
        if "reading" in meta:
            reading = SubmissionReading.model_validate(meta["reading"])
        else:
            opened = open_submission(course.root, info["student"], info["assignment"], f"{info['notebook']}.ipynb")
            reading = read_opened(opened, spec, release)
        policy = settings.policy
        refs = ReferenceSet(settings.store(), info["assignment"], policy)
        record = grade_reading(reading, spec, refs, policy, info["student"], release)
        nb.metadata[META_KEY] = {"reading": reading.model_dump(mode="json"), "record": record.model_dump(mode="json")}
        if reading.tampered_cells:
            self.log.warning(
                "locked cells edited by the student (restored by OverwriteCells): %s", ", ".join(reading.tampered_cells)
            )
        if reading.problem:
            self.log.warning("%s: %s", info["student"], "; ".join(reading.errors))
        if not reading.verdict.trusted:
            self.log.info("commitment chain %s: %s", reading.verdict.status, "; ".join(reading.verdict.reasons))
        return nb, resources
