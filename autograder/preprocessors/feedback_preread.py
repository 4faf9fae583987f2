"""Feedback step, placed after nbgrader's GetGrades: every answer cell's comment as the student should read it.

GetGrades puts nbgrader's one comment on each answer cell (the instructor's manual comment if there is one,
else the automatic one), so an instructor's comment used to hide the explanation pre-read. This step puts
back both, the instructor's first, through :func:`autograder.storage.feedback.feedback_comment`; a pre-read
only when ``c.LessonGrading.preread_in_feedback`` is true. Plain nbgrader assignments pass through as
GetGrades left them.
"""

from __future__ import annotations

from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode
from nbgrader import utils
from nbgrader.api import Gradebook
from nbgrader.preprocessors import GetGrades, NbGraderPreprocessor
from traitlets import List

from ..config import CourseSettings
from ..errors import LessonSpecError
from ..storage.feedback import feedback_comment


class FeedbackPreRead(NbGraderPreprocessor):
    """The instructor's comment and the autograder's (pre-read, "No response.", "Not graded: …") together."""

    # configurable as in GetGrades: the HTML exporter configures it for every preprocessor it runs
    display_data_priority = List(GetGrades.class_traits()["display_data_priority"].default()).tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        settings = CourseSettings.from_config(self.config)
        info = resources["nbgrader"]
        try:
            settings.course.spec(info["assignment"])
        except LessonSpecError:
            return nb, resources
        with Gradebook(info["db_url"]) as gb:
            submitted = gb.find_submission_notebook(info["notebook"], info["assignment"], info["student"])
            comments = {c.name: (c.manual_comment, c.auto_comment) for c in submitted.comments}
        for cell in nb.cells:
            if not (utils.is_solution(cell) or utils.is_task(cell)):
                continue
            manual, auto = comments.get(cell.metadata["nbgrader"]["grade_id"], (None, None))
            cell.metadata["nbgrader"]["comment"] = feedback_comment(manual, auto, settings.preread_in_feedback)
        return nb, resources


__all__ = ["FeedbackPreRead"]
