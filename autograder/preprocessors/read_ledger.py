"""Sanitize step, placed before nbgrader's ClearOutput: read the submitted notebook as the student left it."""

from __future__ import annotations

from pathlib import Path

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

from ..config import LessonGrading
from ..grading.reader import read_notebook_bytes

META_KEY = "gpu_lessons"


class ReadLedger(NbGraderPreprocessor):
    """Verify the commitment chain and note tampered cells; keep the reading in ``nb.metadata``.

    It reads the file's raw bytes (not the parsed node) so that it sees exactly what the fast batch sees.
    """

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        settings = LessonGrading(config=self.config)
        spec = settings.course().spec(resources["nbgrader"]["assignment"])
        path = Path(resources.get("metadata", {}).get("path", ".")) / f"{resources['unique_key']}.ipynb"
        reading = read_notebook_bytes(path.read_bytes(), spec)
        nb.metadata[META_KEY] = reading.model_dump(mode="json")
        if reading.tampered_cells:
            self.log.warning(
                "locked cells edited by the student (restored by OverwriteCells): %s", ", ".join(reading.tampered_cells)
            )
        if not reading.verdict.trusted:
            self.log.info("commitment chain %s: %s", reading.verdict.status, "; ".join(reading.verdict.reasons))
        return nb, resources
