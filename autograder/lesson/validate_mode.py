"""``nbgrader validate`` (and the Validate button): the saved notebook re-run in a fresh kernel. It never
commits, measures or changes the student's ledger; it only reads it (the sidecar beside the notebook)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..records import ParamValue, Quantity
from ..spec import LessonSpec
from ._mode import NotebookMode, read_sidecar, sidecar_path
from ._output import show_text

__all__ = ["ValidateMode"]


class ValidateMode(NotebookMode):
    def __init__(self, spec: LessonSpec, folder: Path) -> None:
        super().__init__(spec, folder)
        self.chain = read_sidecar(sidecar_path(spec, folder)) or []
        show_text(f"{spec.id}: validating — nothing is committed or measured; your ledger is left as it is.")

    def predict(self, q: Quantity, value: float | str | None, because: str) -> None:
        show_text(f"(validating) {q.id}: not committed here; run the cell in your notebook to commit it.")

    def start_over(self, because: str) -> None:
        show_text("(validating) start_over: not recorded here; run it in your notebook to start over.")

    def device(self) -> None:
        show_text("(validating) device measurement skipped: nothing is measured while validating.")

    def measure(self, asked: dict[str, ParamValue], point: dict[str, ParamValue]) -> None:
        show_text(f"(validating) measurement of {self.spec.workload.describe(point)} skipped.")

    def sweep(self, fixed: dict[str, ParamValue]) -> None:
        show_text(f"(validating) sweep at {fixed} skipped.")

    def measure_student(self, fn: Any) -> None:
        assert self.spec.student_variant is not None
        show_text(f"(validating) measurement of your {self.spec.student_variant.entry} skipped.")
