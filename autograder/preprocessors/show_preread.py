"""Formgrader's view of a submission: each answer's automatic comment shown in full beside the answer.

Formgrader renders the autograded notebook with an ``HTMLExporter`` built from the course's config, and
shows the automatic comment (the explanation pre-read) only as the grey placeholder of the comment box,
which vanishes as soon as the instructor types a comment. Configured as ``c.HTMLExporter.preprocessors``,
this step adds, under each lesson answer that has one, a plain Markdown cell holding the automatic comment
from the gradebook and whether the student's feedback will show it. The notebook file and the gradebook
are not changed.

The same exporter setting also reaches ``nbgrader generate_feedback`` (its HTMLExporter reads the course
config too): there this step does nothing, FeedbackPreRead puts the comments where the feedback shows
them. Formgrader is told apart by what it hands the exporter: a ``submission_id`` and no ``nbgrader``
resources (nbgrader's converters always set those).
"""

from __future__ import annotations

from typing import Any

import nbformat
from nbconvert.exporters.exporter import ResourcesDict
from nbconvert.preprocessors import Preprocessor
from nbformat.notebooknode import NotebookNode
from nbgrader import utils

from ..config import CourseSettings
from ..errors import LessonSpecError
from ..storage.feedback import formgrader_note

NOTE_KEY = "autograder_note"


def _comments(db_url: str, submission_id: str) -> dict[str, str | None]:
    # start-up speed: nbgrader's ORM only when formgrader asks
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        try:
            submitted = gb.find_submission_notebook_by_id(submission_id)
        except MissingEntry:
            return {}
        return {c.name: c.auto_comment for c in submitted.comments}


class ShowPreRead(Preprocessor):
    """Under each answer cell, its automatic comment in full (formgrader only; see the module docstring)."""

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        if "nbgrader" in resources or not resources.get("submission_id"):
            return nb, resources  # not formgrader's submission view
        settings = CourseSettings.from_config(self.config)
        try:
            settings.course.spec(str(resources.get("assignment_id", "")))
        except LessonSpecError:
            return nb, resources
        db_url = settings.db_url
        comments = _comments(db_url, str(resources["submission_id"]))
        cells: list[Any] = []
        for cell in nb.cells:
            cells.append(cell)
            if not (utils.is_solution(cell) or utils.is_task(cell)):
                continue
            gid = cell.metadata["nbgrader"]["grade_id"]
            note = formgrader_note(gid, comments.get(gid), settings.preread_in_feedback)
            if note is not None:
                cells.append(nbformat.v4.new_markdown_cell(note, metadata={NOTE_KEY: gid}))
        nb.cells = cells
        return nb, resources


__all__ = ["ShowPreRead"]
