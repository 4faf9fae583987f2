"""ClearSolutions whose code stub depends on the assignment: lessons get the prediction stub, plain
nbgrader problem sets keep nbgrader's own ``raise NotImplementedError()``."""

from __future__ import annotations

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import ClearSolutions
from traitlets import Dict

from ..config import CourseSettings
from ..errors import LessonSpecError


class LessonClearSolutions(ClearSolutions):
    """In a lesson (an assignment with a lesson.toml) the code solution regions are the argument slots of
    ``L.predict(...)``, so the stub must itself be valid arguments; anywhere else that stub would turn a
    problem set into nonsense, so ``code_stub`` (nbgrader's default unless configured) is used."""

    lesson_code_stub = Dict(
        {"python": 'None, because="",  # <- your prediction, and one sentence of reasoning'},
        help="code_stub used for assignments that have a lesson.toml.",
    ).tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        assignment = resources.get("nbgrader", {}).get("assignment", "")
        course = CourseSettings.from_config(self.config).course
        try:
            spec = course.spec(assignment)
        except LessonSpecError:
            if (course.root / "source" / assignment / "lesson.toml").exists():
                raise  # a lesson whose lesson.toml does not load: releasing it with nbgrader's stub breaks it
            return super().preprocess(nb, resources)
        plain: dict[str, str] = dict(self.code_stub)  # type: ignore[has-type]
        self.code_stub = {**plain, **self.lesson_code_stub}
        sv = spec.student_variant
        self._answer_stub = (sv.answer_cell, sv.stub) if sv is not None else None
        try:
            return super().preprocess(nb, resources)
        finally:
            self.code_stub, self._answer_stub = plain, None

    def preprocess_cell(
        self, cell: NotebookNode, resources: ResourcesDict, cell_index: int
    ) -> tuple[NotebookNode, ResourcesDict]:
        """The student variant's answer cell (``[student_variant]``) gets its own stub: a definition of the
        entry to write, not prediction arguments."""
        answer = getattr(self, "_answer_stub", None)
        if answer is None or cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") != answer[0]:
            return super().preprocess_cell(cell, resources, cell_index)
        lesson_stub = self.code_stub
        self.code_stub = {**lesson_stub, "python": answer[1]}
        try:
            return super().preprocess_cell(cell, resources, cell_index)
        finally:
            self.code_stub = lesson_stub


__all__ = ["LessonClearSolutions"]
