"""Autograde step, placed before Execute: hand the grading kernel the grading state to show."""

from __future__ import annotations

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

from ..config import CourseSettings
from ..grading.reader import SubmissionReading
from ..grading.references import ReferenceSet
from ..records import SubmissionGrade
from ..storage.context import GradingContext
from .read_ledger import grading_meta


class WriteGradingContext(NbGraderPreprocessor):
    """Write the record ReadLedger graded (and the reference it used) beside the notebook for the kernel.

    Plain nbgrader assignments (no grading state) pass through.
    """

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        meta = grading_meta(nb)
        if "record" not in meta:
            return nb, resources
        settings = CourseSettings.from_config(self.config)
        reading = SubmissionReading.model_validate(meta["reading"])
        refs = ReferenceSet(settings.store(), resources["nbgrader"]["assignment"], settings.policy)
        ref, note = refs.for_student(reading.student_device, reading.student_device_name, reading.student_meta)
        folder = resources.get("metadata", {}).get("path", ".")
        GradingContext(
            reading=reading,
            reference=ref,
            note=note,
            policy=settings.policy,
            record=SubmissionGrade.model_validate(meta["record"]),
        ).write(folder)
        return nb, resources
