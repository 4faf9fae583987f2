"""ClearSolutions whose code stub depends on the assignment: lessons get the prediction stub, plain
nbgrader problem sets keep nbgrader's own ``raise NotImplementedError()``."""

from __future__ import annotations

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import ClearSolutions
from traitlets import Dict

from ..config import LessonGrading
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
        try:
            LessonGrading(config=self.config).course().spec(assignment)
        except LessonSpecError:
            return super().preprocess(nb, resources)
        plain: dict[str, str] = dict(self.code_stub)  # type: ignore[has-type]
        self.code_stub = {**plain, **self.lesson_code_stub}
        try:
            return super().preprocess(nb, resources)
        finally:
            self.code_stub = plain


__all__ = ["LessonClearSolutions"]
