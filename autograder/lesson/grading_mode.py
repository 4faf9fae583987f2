"""Under ``nbgrader autograde`` (NBGRADER_EXECUTION=autograde): nothing is measured or committed again. The
ledger read from the *submitted* outputs was graded before the kernel started (``GradingContext``, written
by the WriteGradingContext preprocessor); each cell shows that grade, or what the student measured next to
the device of record's value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..grading.checklist import checklist, render_checklist, restart_notes
from ..grading.grade import grade_cell_text, grade_quantity
from ..records import Case, ParamValue, Quantity
from ..spec import LessonSpec
from ..storage.context import GradingContext
from ._mode import Mode, no_such_part
from ._output import show_text
from .tables import against_reference_lines, graded_kernel_lines

__all__ = ["GradingMode"]


class GradingMode(Mode):
    def __init__(self, spec: LessonSpec, folder: Path) -> None:
        super().__init__(spec, folder)
        self.context: GradingContext | None = GradingContext.read(folder)
        dev = self.context.reference.device.name if self.context else "no reference (grading context missing)"
        show_text(f"{spec.id}: grading mode — your committed predictions are graded against {dev}.")

    def predict(self, q: Quantity, value: float | str | None, because: str) -> None:
        show_text(f"(grading) {q.id}: the prediction committed in your submitted notebook is used.")

    def start_over(self, because: str) -> None:
        show_text("(grading) start_over: nothing restarts here; the restarts in your submitted ledger are graded.")

    def device(self) -> None:
        show_text("(grading) device measurement skipped: the stored reference is used.")

    def measure(self, asked: dict[str, ParamValue], point: dict[str, ParamValue]) -> None:
        cases = [Case(variant=v, params=asked) for v in self.spec.workload.variants]
        self._against_reference(cases, self.spec.workload.describe(asked))

    def sweep(self, fixed: dict[str, ParamValue]) -> None:
        self._against_reference(self.spec.grid_cases("cuda", fixed), f"the sweep at {fixed}")

    def _against_reference(self, cases: list[Case], what: str) -> None:
        if self.context is None:
            show_text(f"(grading) {what}: not measured; no grading context was prepared.")
            return
        show_text("\n".join(against_reference_lines(self.spec, self.context, cases, what)))

    def measure_student(self, fn: Any) -> None:
        record = self.context.record if self.context is not None else None
        if record is None:
            show_text("(grading) your kernel: not measured here; no grading context was prepared.")
            return
        show_text("\n".join(graded_kernel_lines(self.spec, record)))

    def grade_kernel(self, part: str, credit: str | None) -> float | None:
        if credit is None:
            no_such_part(part)
            return 0.0
        record = self.context.record if self.context is not None else None
        g = next((p for p in record.predictions if p.grade_id == credit), None) if record else None
        if g is None:
            show_text(f"{part}: no grade of your kernel was prepared (check nbgrader_config.py); 0 points.")
            return 0.0
        show_text(grade_cell_text(g))
        return g.points

    def grade(self, q: Quantity) -> float | None:
        ctx = self.context
        if ctx is None:
            show_text(f"{q.id}: no grading context was prepared (check nbgrader_config.py); 0 points.")
            return 0.0
        shown = next((p for p in ctx.record.predictions if p.quantity == q.id), None) if ctx.record else None
        g = shown or grade_quantity(q.id, ctx.reading, self.spec, ctx.reference, ctx.note, ctx.policy)
        show_text(grade_cell_text(g))  # what the fast batch's autograded notebook shows too
        return g.points

    def status(self) -> None:
        if self.context is not None:
            rows, problems = checklist(self.context.reading, self.spec)
            show_text(render_checklist(rows, problems, restart_notes(self.context.reading)))
