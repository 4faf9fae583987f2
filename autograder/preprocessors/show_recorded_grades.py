"""Autograde step, right after LimitedExecute: each graded test cell shows the record's points and reason.

The student's kernel printed *something* under each test cell, and returned some number; student code can
make that anything (replace ``L.grade``, print "2.00/2 points"). What the autograded notebook and the
feedback show under a test cell is therefore written here from the record ReadLedger graded (the one the
gradebook gets), the same outputs the fast batch writes (``autograded.grade_cell_outputs``), so nbgrader's
SaveAutoGrades reads the record's points too. Plain nbgrader assignments pass through.
"""

from __future__ import annotations

from typing import Any

from nbconvert.exporters.exporter import ResourcesDict
from nbformat import from_dict
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

from ..records import SubmissionGrade
from ..storage.autograded import grade_cell_outputs
from .read_ledger import grading_meta

__all__ = ["ShowRecordedGrades"]


def _joined(output: dict[str, Any]) -> dict[str, Any]:
    """An output as nbformat holds it in memory (multi-line strings joined, as on reading a file)."""
    out = dict(output)
    if isinstance(out.get("text"), list):
        out["text"] = "".join(out["text"])
    if isinstance(out.get("data"), dict):
        out["data"] = {k: "".join(v) if isinstance(v, list) else v for k, v in out["data"].items()}
    return out


class ShowRecordedGrades(NbGraderPreprocessor):
    """Replace every graded test cell's outputs with the record's grade for that cell."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        meta = grading_meta(nb)
        if "record" not in meta:
            return nb, resources
        record = SubmissionGrade.model_validate(meta["record"])
        by_cell = {p.grade_id: p for p in record.predictions}
        for cell in nb.cells:
            if cell.get("cell_type") != "code":
                continue
            gid = (cell.get("metadata", {}).get("nbgrader") or {}).get("grade_id")
            g = by_cell.get(gid) if isinstance(gid, str) else None
            if g is not None:
                cell.outputs = [from_dict(_joined(o)) for o in grade_cell_outputs(g, cell.get("execution_count"))]
        return nb, resources
