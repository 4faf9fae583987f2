"""The bulk gradebook writer against nbgrader's own Gradebook API written row by row: the same rows, every
column, on a fresh gradebook, after a grader's manual scores, after a changed submission, and on a rerun."""

from __future__ import annotations

import shutil
import warnings
from datetime import datetime, timedelta

import pytest
from nbgrader.api import Gradebook

from autograder.batch.fast import find_submissions, grade_class
from autograder.config import CourseSettings
from autograder.storage.gradebook_sync import dump_rows, without_ids, write_gradebook, write_submission
from autograder.storage.records_store import RecordStore
from tests.batch.test_batch import _setup

A = "04_fusion"


def _row_by_row(url, records, stamps):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with Gradebook(url) as gb:
            for r in records:
                write_submission(gb, r, A, stamps.get(r.student))


def _bulk(url, records, stamps):
    return write_gradebook(url, "", A, A, records, stamps)


def _set_manual(url, student, cell, score):
    with Gradebook(url) as gb:
        gb.find_grade(cell, A, A, student).manual_score = score
        gb.db.commit()


@pytest.fixture(scope="module")
def graded_class(course_template, tmp_path_factory):
    """A class of 24 graded once without touching the gradebook (records, submission timestamps): both
    tests only read them (a changed record is a copy) and write only their own copies of the gradebook."""
    course = tmp_path_factory.mktemp("bulk") / "course"
    shutil.copytree(course_template, course)
    c, _ids = _setup(course, n=24)
    grade_class(c, A, workers=1, gradebook=False)
    records = RecordStore(c.records).all(A)
    stamps = {s.student: s.timestamp for s in find_submissions(c, c.spec(A))}
    return c, records, stamps


@pytest.fixture()
def graded(graded_class, tmp_path):
    """The graded class and two fresh copies of its gradebook as `nbgrader generate_assignment` left it, for
    this test alone: one written row by row through nbgrader's API, one by the bulk writer."""
    c, records, stamps = graded_class
    urls = {}
    for name in ("rows", "bulk"):
        shutil.copy(c.root / "gradebook.db", tmp_path / f"{name}.db")
        urls[name] = f"sqlite:///{tmp_path / f'{name}.db'}"
    return c, list(records), dict(stamps), urls


def test_bulk_rows_equal_nbgrader_api_rows_in_every_column(graded):
    _c, records, stamps, urls = graded
    assert any(t is not None for t in stamps.values()), "the sample class must have timestamps to compare"
    _row_by_row(urls["rows"], records, stamps)
    done = _bulk(urls["bulk"], records, stamps)
    assert done.inserted["submission"] == len(records) and done.inserted["grade"] > 0
    rows, bulk = dump_rows(urls["rows"], A), dump_rows(urls["bulk"], A)
    assert {t: len(v) for t, v in bulk.items()} == {t: len(v) for t, v in rows.items()}
    assert len(bulk["submission"]) == len(records)
    assert without_ids(bulk) == without_ids(rows)
    # the values themselves, not only agreement: a scored test cell, a manual cell, a "No response."
    grades = without_ids(bulk)["grade"]
    comments = without_ids(bulk)["comment"]
    for r in records:
        for p in r.predictions:
            assert grades[(r.student, A, p.grade_id)][0] == pytest.approx(p.points)
            assert grades[(r.student, A, p.grade_id)][3] is False
        for e in r.explanations:
            assert grades[(r.student, A, e.grade_id)][3] is (e.grade_id not in r.unanswered)
            assert comments[(r.student, A, e.grade_id)][0] == e.comment
    assert any(v[0] == "No response." for v in comments.values())
    assert {k[0]: v[0] for k, v in without_ids(bulk)["submission"].items()} == {
        s: t for s, t in stamps.items() if s in {r.student for r in records}
    }


def test_manual_scores_kept_changes_applied_and_rerun_writes_nothing(graded):
    _c, records, stamps, urls = graded
    for url in urls.values():
        _row_by_row(url, records, stamps) if url == urls["rows"] else _bulk(url, records, stamps)
    before = dump_rows(urls["bulk"], A)
    student = records[0].student
    test_cell = records[0].predictions[0].grade_id
    manual_cell = records[0].explanations[0].grade_id
    for url in urls.values():  # a grader's manual scores, on an auto-graded and on a manual cell
        _set_manual(url, student, test_cell, 0.25)
        _set_manual(url, student, manual_cell, 1.0)
    # a regraded submission (other points) and a later timestamp for another student
    p0 = records[0].predictions[0]
    changed = records[0].model_copy(update={"predictions": [p0.model_copy(update={"points": p0.points + 0.5}),
                                                            *records[0].predictions[1:]]})
    records = [changed, *records[1:]]
    stamps = {**stamps, records[1].student: datetime(2031, 1, 2, 3, 4, 5) + timedelta(seconds=1)}
    _row_by_row(urls["rows"], records, stamps)
    done = _bulk(urls["bulk"], records, stamps)
    assert done.updated["submission"] == 1 and done.updated["grade"] >= 1 and not any(done.inserted.values())
    rows, bulk = dump_rows(urls["rows"], A), dump_rows(urls["bulk"], A)
    assert without_ids(bulk) == without_ids(rows)
    g = bulk["grade"][(student, A, test_cell)]
    assert g[1] == pytest.approx(p0.points + 0.5) and g[2] == 0.25 and g[4] is True  # manual kept, flagged
    assert bulk["grade"][(student, A, manual_cell)][2] == 1.0
    # no row was recreated: every id is the one the first write made
    for table in ("submission", "notebook", "grade", "comment"):
        assert {k: v[0] for k, v in bulk[table].items()} == {k: v[0] for k, v in before[table].items()}
    again = _bulk(urls["bulk"], records, stamps)
    assert not again.changed
    assert dump_rows(urls["bulk"], A) == bulk


def test_grade_class_writes_into_the_configured_db_url(course):
    """c.CourseDirectory.db_url decides the gradebook: point it elsewhere and the batch writes there."""
    elsewhere = course / "elsewhere.db"
    shutil.copy(course / "gradebook.db", elsewhere)
    (course / "gradebook.db").unlink()
    cfg = course / "nbgrader_config.py"
    cfg.write_text(cfg.read_text() + f'\nc.CourseDirectory.db_url = "sqlite:///{elsewhere}"\n')
    settings = CourseSettings.load(course)
    assert settings.db_url == f"sqlite:///{elsewhere}"
    c, _ids = _setup(course, n=4)
    result = grade_class(c, A, workers=1)
    assert not result.failed
    assert not (course / "gradebook.db").exists()
    assert len(dump_rows(settings.db_url, A)["submission"]) == 4


def test_course_settings_read_nbgraders_config_once(course):
    """CourseSettings: the course root, nbgrader's db_url and course id, the grading policy, Slurm settings,
    from the one nbgrader_config.py (and nbgrader's default gradebook when the config names none)."""
    s = CourseSettings.load(course)
    assert s.course.root == course.resolve()
    assert s.db_url.startswith(f"sqlite:///{course.resolve() / 'gradebook.db'}")
    assert s.course_id == "gpu-lessons" and s.policy.device_of_record == "nvidia-h200"
    assert s.slurm.max_array_tasks == 100
    (course / "nbgrader_config.py").write_text("c = get_config()\nc.LessonGrading.revised_penalty = 0.25\n")
    bare = CourseSettings.load(course)
    assert bare.db_url == f"sqlite:///{course.resolve() / 'gradebook.db'}" and bare.course_id == ""
    assert bare.policy.revised_penalty == 0.25
