"""Autograde step, placed after SaveAutoGrades: store the record and make the gradebook rows the record's."""

from __future__ import annotations

from pathlib import Path

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor

from ..config import CourseSettings
from ..records import SubmissionGrade
from ..storage.context import CONTEXT_FILENAME
from ..storage.gradebook_sync import write_submission
from ..storage.records_store import RecordStore
from .read_ledger import grading_meta


class SaveGradingRecord(NbGraderPreprocessor):
    """The record graded once by ReadLedger, plus the execution verdict, is stored; then the gradebook rows
    (scores, manual-grading flags, comments) are written from it with the fast batch's own function, so
    whatever the kernel printed (or a student's code made it print) the two paths leave the same rows.

    Plain nbgrader assignments (no grading state) pass through.
    """

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        meta = grading_meta(nb)
        folder = Path(resources.get("metadata", {}).get("path", "."))
        (folder / CONTEXT_FILENAME).unlink(missing_ok=True)
        if "record" not in meta:
            return nb, resources
        info = resources["nbgrader"]
        record = SubmissionGrade.model_validate(meta["record"])
        execution = meta.get("execution")
        if isinstance(execution, dict) and execution.get("status") != "ok":
            record = record.model_copy(
                update={
                    "flags": [*record.flags, *(f"execution_{k}" for k in execution.get("kinds", []))],
                    "errors": [*record.errors, *execution.get("problems", [])],
                }
            )
        RecordStore(CourseSettings.from_config(self.config).course.records).save(record)
        with Gradebook(info["db_url"]) as gb:
            write_submission(gb, record, info["notebook"])
        return nb, resources
