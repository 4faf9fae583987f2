"""The explanation pre-read survives an instructor's comment: in the student's feedback (nbgrader's own
GenerateFeedback with the course's config) below the instructor's comment, unless the course withholds it;
in formgrader's submission view (nbgrader's formgrade template and exporter) in full under the answer.

A synthetic student is graded by the fast batch (the gradebook rows both paths write, and the autograded/
notebook the feedback and formgrader render); the gradebook is read, never changed."""

from __future__ import annotations

import re
import shutil
from datetime import datetime, timezone
from html import unescape

import nbformat
import pytest

from autograder.batch.fast import grade_class
from autograder.config import CourseSettings, load_course_config
from autograder.course import Course
from autograder.grading.policy import GradingPolicy
from autograder.records import SubmissionGrade
from autograder.sample.generate import PERSONAS, make_submission, solution_texts
from autograder.storage.feedback import feedback_comment, formgrader_note

STUDENT = "careful1"
MANUAL = "Good use of bytes; say **why** the two timings differ. (instructor)"


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


@pytest.fixture(scope="module")
def graded(tmp_path_factory, course_template):
    root = tmp_path_factory.mktemp("feedback") / "course"
    shutil.copytree(course_template, root)
    course = Course.at(root)
    spec = course.spec("04_fusion")
    from autograder.bench.store import ReferenceStore

    ref = ReferenceStore(course.references).load("04_fusion", "nvidia-h200")
    release = nbformat.read(str(root / "release/04_fusion/04_fusion.ipynb"), as_version=4)
    source = nbformat.read(str(root / "source/04_fusion/04_fusion.ipynb"), as_version=4)
    nb = make_submission(release, spec, ref, PERSONAS[0], seed=3, start=datetime(2026, 11, 28, tzinfo=timezone.utc),
                         solutions=solution_texts(source, spec))
    folder = root / "submitted" / STUDENT / "04_fusion"
    folder.mkdir(parents=True)
    nbformat.write(nb, str(folder / "04_fusion.ipynb"))
    result = grade_class(course, "04_fusion", GradingPolicy(), workers=1)
    assert not result.failed
    record: SubmissionGrade = result.records[0]
    assert record.explanations[0].comment.startswith("Autograder pre-read: found")
    return course, record


def _set_manual(course: Course, cell: str, text: str | None) -> None:
    from nbgrader.api import Gradebook

    with Gradebook(CourseSettings.load(course.root).db_url) as gb:
        gb.find_comment(cell, "04_fusion", "04_fusion", STUDENT).manual_comment = text
        gb.db.commit()


def _feedback(course: Course, preread: bool) -> str:
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    config = load_course_config(course.root)
    config.LessonGrading.preread_in_feedback = preread
    api = NbGraderAPI(CourseDirectory(config=config), config=config)
    out = api.generate_feedback("04_fusion", STUDENT, force=True)
    assert out["success"], out.get("log") or out.get("error")
    return (course.root / "feedback" / STUDENT / "04_fusion" / "04_fusion.html").read_text(encoding="utf-8")


def test_feedback_shows_the_instructors_comment_and_then_the_preread(graded):
    course, record = graded
    preread = record.explanations[0].comment
    _set_manual(course, record.explanations[0].grade_id, MANUAL)
    try:
        text = _text(_feedback(course, preread=True))
    finally:
        _set_manual(course, record.explanations[0].grade_id, None)
    assert "Good use of bytes; say why the two timings differ. (instructor)" in text
    assert preread in text, "the pre-read is missing from the feedback once the instructor commented"
    assert text.index("(instructor)") < text.index(preread)
    # the other explanation has no manual comment: its pre-read shows, as nbgrader would show it
    assert record.explanations[1].comment in text


def test_the_course_can_keep_the_preread_from_students(graded):
    course, record = graded
    _set_manual(course, record.explanations[0].grade_id, MANUAL)
    try:
        text = _text(_feedback(course, preread=False))
    finally:
        _set_manual(course, record.explanations[0].grade_id, None)
    assert "(instructor)" in text
    assert "Autograder pre-read" not in text


def test_formgrader_view_shows_the_preread_in_full_under_the_answer(graded):
    from nbconvert.exporters import HTMLExporter
    from nbgrader.api import Gradebook
    from nbgrader.server_extensions.formgrader import handlers

    course, record = graded
    _set_manual(course, record.explanations[0].grade_id, MANUAL)
    config = load_course_config(course.root)
    # what FormgradeExtension builds: the course config plus its template
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    with Gradebook(CourseSettings.load(course.root).db_url) as gb:
        sub_id = gb.find_submission_notebook("04_fusion", "04_fusion", STUDENT).id
    resources = {"assignment_id": "04_fusion", "notebook_id": "04_fusion", "submission_id": sub_id, "index": 0,
                 "total": 1, "base_url": "", "student": STUDENT, "last_name": None, "first_name": None,
                 "notebook_path": "x"}
    try:
        html, _ = HTMLExporter(config=config).from_filename(
            str(course.root / "autograded" / STUDENT / "04_fusion" / "04_fusion.ipynb"), resources=resources)
    finally:
        _set_manual(course, record.explanations[0].grade_id, None)
    text = _text(html)
    for e in record.explanations:
        assert f"Autograder on {e.grade_id}" in text
        assert e.comment in text, f"{e.grade_id}: the pre-read is not shown in full"
    # right under its answer, before the next section of the notebook
    assert text.index("Autograder on explain_headline") < text.index("3. Where fusion stops helping")
    assert "the student's feedback shows it below your comment" in text
    # the file formgrader renders is not changed
    nb = nbformat.read(str(course.root / "autograded" / STUDENT / "04_fusion" / "04_fusion.ipynb"), as_version=4)
    assert not any("Autograder on" in c.source for c in nb.cells)


def test_comment_rules():
    pre = "Autograder pre-read: found 1 number(s) with units, 0 matching: 3 <b>kernels</b>. Suggested 0.75/3."
    assert feedback_comment(None, pre, True) == pre.replace("<b>", "&lt;b&gt;").replace("</b>", "&lt;/b&gt;")
    assert feedback_comment(None, pre, False) is None
    assert feedback_comment("Fine.", pre, False) == "Fine."
    assert feedback_comment("Fine.", "No response.", True) == "Fine."
    assert feedback_comment(None, "No response.", False) == "No response."
    assert feedback_comment("", None, True) is None  # a cleared comment box
    shown = feedback_comment("Fine.", "Not graded: your submitted notebook could not be read (empty).", False)
    assert shown is not None and shown.startswith("Fine.") and shown.endswith("(empty).")
    assert formgrader_note("explain_sweep", "No response.", True) is None
    note = formgrader_note("explain_sweep", pre, False)
    assert note is not None and "not shown to the student" in note and "&lt;b&gt;" in note
