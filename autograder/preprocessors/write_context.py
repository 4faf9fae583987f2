"""Autograde step, placed before Execute: hand the grading kernel what it needs to grade predictions."""

from __future__ import annotations

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

from ..config import LessonGrading
from ..grading.context import GradingContext
from ..grading.reader import SubmissionReading
from ..grading.references import ReferenceSet
from .read_ledger import META_KEY


class WriteGradingContext(NbGraderPreprocessor):
    """Pick the device of record for this student and write the grading context beside the notebook."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        settings = LessonGrading(config=self.config)
        assignment = resources["nbgrader"]["assignment"]
        raw = nb.metadata.get(META_KEY)
        reading = (
            SubmissionReading.model_validate(raw)
            if raw is not None
            else SubmissionReading(errors=["ReadLedger did not run before ClearOutput (check nbgrader_config.py)"])
        )
        refs = ReferenceSet(settings.store(), assignment, settings.policy())
        ref, note = refs.for_student(reading.student_device, reading.student_device_name)
        folder = resources.get("metadata", {}).get("path", ".")
        GradingContext(reading=reading, reference=ref, note=note, policy=settings.policy()).write(folder)
        return nb, resources
