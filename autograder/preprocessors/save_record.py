"""Autograde step, placed after SaveAutoGrades: store the pydantic record and the explanation comments."""

from __future__ import annotations

from pathlib import Path

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor

from ..config import LessonGrading
from ..grading.context import CONTEXT_FILENAME
from ..grading.grade import grade_submission
from ..grading.gradebook_sync import write_comments
from ..grading.reader import SubmissionReading
from ..grading.records_store import RecordStore
from ..grading.references import ReferenceSet
from .read_ledger import META_KEY


class SaveGradingRecord(NbGraderPreprocessor):
    """The same SubmissionGrade the fast batch writes, plus pre-read comments on explanation cells."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        settings = LessonGrading(config=self.config)
        info = resources["nbgrader"]
        course = settings.course()
        spec = course.spec(info["assignment"])
        raw = {k: v for k, v in nb.metadata.get(META_KEY, {}).items() if k != "execution"}
        reading = SubmissionReading.model_validate(raw)
        refs = ReferenceSet(settings.store(), info["assignment"], settings.policy())
        record = grade_submission(reading, spec, refs, settings.policy(), info["student"])
        execution = nb.metadata.get(META_KEY, {}).get("execution")
        if execution and execution.get("status") != "ok":
            record = record.model_copy(
                update={
                    "flags": [*record.flags, *(f"execution_{k}" for k in execution.get("kinds", []))],
                    "errors": [*record.errors, *execution.get("problems", [])],
                }
            )
        RecordStore(course.records).save(record)
        with Gradebook(info["db_url"]) as gb:
            write_comments(gb, record, info["notebook"])
        folder = Path(resources.get("metadata", {}).get("path", "."))
        (folder / CONTEXT_FILENAME).unlink(missing_ok=True)
        return nb, resources
