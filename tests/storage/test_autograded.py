"""The fast batch's autograded notebooks: after `autograder grade` on a sample class (plus two submissions it
cannot read), nbgrader's own formgrader API lists and renders every submission, `nbgrader generate_feedback`
works, every grade cell shows the stored points and reason, and a rerun with nothing changed writes nothing.
The native path's notebooks are compared with these in tests/e2e/test_both_paths_agree.py."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from html import unescape
from pathlib import Path

import nbformat
import pytest

from autograder.bench.store import ReferenceStore
from autograder.config import CourseSettings, load_course_config
from autograder.course import Course
from autograder.grading.grade import grade_cell_text
from autograder.records import SubmissionGrade
from autograder.sample.generate import generate_class
from autograder.storage.autograded import autograded_path
from autograder.storage.records_store import RecordStore

pytestmark = pytest.mark.slow  # nbgrader autograde, generate_feedback and a formgrader server

A = "04_fusion"
UNREADABLE = {"junk": b"print('hello')", "empty": b""}


def _text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _grade(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", A, "-C", str(root), *args],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


@pytest.fixture(scope="module")
def graded(tmp_path_factory, course_template):
    root = tmp_path_factory.mktemp("autograded") / "course"
    shutil.copytree(course_template, root)
    course = Course.at(root)
    spec = course.spec(A)
    ref = ReferenceStore(course.references).load(A, "nvidia-h200")
    students = generate_class(root, spec, ref, root / "release" / A / spec.notebook, 12, seed=5)
    for name, data in UNREADABLE.items():
        folder = root / "submitted" / name / A
        folder.mkdir(parents=True)
        (folder / spec.notebook).write_bytes(data)
    _grade(root)
    records = {r.student: r for r in RecordStore(course.records).all(A)}
    assert set(records) == {*students, *UNREADABLE}
    return course, records


def _nb(course: Course, student: str) -> dict:
    return json.loads(autograded_path(course.root, student, A, f"{A}.ipynb").read_text(encoding="utf-8"))


def _release(course: Course) -> dict:
    return json.loads((course.root / "release" / A / f"{A}.ipynb").read_text(encoding="utf-8"))


def _gid(cell: dict) -> str | None:
    return (cell.get("metadata", {}).get("nbgrader") or {}).get("grade_id")


def _src(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def test_every_grade_cell_shows_the_stored_points_and_the_answers_are_the_students(graded):
    course, records = graded
    release = _release(course)
    released = {_gid(c): c for c in release["cells"] if _gid(c)}
    for student, record in records.items():
        path = autograded_path(course.root, student, A, f"{A}.ipynb")
        assert stat.S_IMODE(path.stat().st_mode) == 0o444, student
        nb = _nb(course, student)
        nbformat.validate(nbformat.reads(json.dumps(nb), as_version=4))
        cells = {_gid(c): c for c in nb["cells"] if _gid(c)}
        # every released graded/answer cell, in the released order, nbgrader metadata (checksums) as released
        assert [_gid(c) for c in nb["cells"] if _gid(c)] == list(released), student
        for gid, cell in cells.items():
            assert cell["metadata"] == released[gid]["metadata"], (student, gid)
        for p in record.predictions:
            outs = cells[p.grade_id]["outputs"]
            assert "".join(outs[0]["text"]) == grade_cell_text(p) + "\n"
            assert "".join(outs[1]["data"]["text/plain"]) == repr(p.points)
            assert f"{p.points:.2f}/" in outs[0]["text"][0]
        # no student output is trusted: only the graded test cells have outputs
        assert not [c for c in nb["cells"] if c["cell_type"] == "code" and c["outputs"]
                    and _gid(c) not in {p.grade_id for p in record.predictions}]
        if student in UNREADABLE:
            assert [_src(c) for c in nb["cells"]] == [_src(c) for c in release["cells"]]
            assert all("could not be read" in p.reason for p in record.predictions)
            continue
        submitted = nbformat.read(str(course.submitted / student / A / f"{A}.ipynb"), as_version=4)
        for c in submitted.cells:
            gid = _gid(c)
            if gid and released[gid]["metadata"]["nbgrader"].get("solution"):
                assert _src(cells[gid]) == c.source, (student, gid)


def test_generate_feedback_shows_the_reasons_and_the_preread(graded):
    course, records = graded
    proc = subprocess.run([sys.executable, "-m", "nbgrader", "generate_feedback", A], cwd=course.root,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for student, record in records.items():
        text = _text((course.root / "feedback" / student / A / f"{A}.html").read_text(encoding="utf-8"))
        for p in record.predictions:
            assert " ".join(p.reason.split()) in text, (student, p.grade_id)
        for e in record.explanations:
            assert e.comment in text, (student, e.grade_id)


def test_formgrader_lists_and_renders_every_submission(graded):
    from nbconvert.exporters import HTMLExporter
    from nbgrader.api import Gradebook
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.server_extensions.formgrader import handlers

    course, records = graded
    config = load_course_config(course.root)
    api = NbGraderAPI(CourseDirectory(config=config), config=config)
    # formgrader lists a submission only where autograded/STUDENT/ASSIGNMENT/NOTEBOOK.ipynb exists
    listed = {s["student"] for s in api.get_notebook_submissions(A, A)}
    assert listed == set(records)
    assert api.get_autograded_students(A) >= set(records) - set(UNREADABLE)  # those have a timestamp.txt
    # what FormgradeExtension builds: the course config plus its template; SubmissionHandler's resources
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    exporter = HTMLExporter(config=config)
    with Gradebook(CourseSettings.load(course.root).db_url) as gb:
        ids = {s: gb.find_submission_notebook(A, A, s).id for s in records}
    indices = api.get_notebook_submission_indices(A, A)
    for student, record in records.items():
        resources = {"assignment_id": A, "notebook_id": A, "submission_id": ids[student],
                     "index": indices[ids[student]], "total": len(indices), "base_url": "", "student": student,
                     "last_name": None, "first_name": None, "notebook_path": "x"}
        html, _ = exporter.from_filename(str(autograded_path(course.root, student, A, f"{A}.ipynb")),
                                         resources=resources)
        text = _text(html)
        for p in record.predictions:
            assert " ".join(grade_cell_text(p).split()) in text, (student, p.grade_id)
        for e in record.explanations:
            assert f"Autograder on {e.grade_id}" in text and e.comment in text, (student, e.grade_id)


def test_a_rerun_with_nothing_changed_writes_nothing(graded):
    course, records = graded

    def stamps() -> dict[str, tuple[int, int]]:
        out = {}
        for s in records:
            st = autograded_path(course.root, s, A, f"{A}.ipynb").stat()
            out[s] = (st.st_ino, st.st_mtime_ns)
        return out

    before = stamps()
    _grade(course.root)
    _grade(course.root, "--force")  # regraded, same notebooks: still not rewritten
    assert stamps() == before
    # one deleted (or never written: graded before autograded notebooks existed): only that one is written
    gone = sorted(records)[0]
    autograded_path(course.root, gone, A, f"{A}.ipynb").unlink()
    _grade(course.root)
    after = stamps()
    assert {s for s in records if after[s] != before[s]} == {gone}
    assert not any(p.name.endswith(".tmp") for p in (course.root / "autograded").rglob("*"))
    # a resubmission: only that student's notebook is written again, with the new answer
    changed = sorted(set(records) - set(UNREADABLE))[-1]
    sub = course.submitted / changed / A / f"{A}.ipynb"
    nb = nbformat.read(str(sub), as_version=4)
    cell = next(c for c in nb.cells if _gid(c) == "explain_sweep")
    cell.source = "Resubmitted: launch overhead dominates below 2^16."
    nbformat.write(nb, str(sub))
    _grade(course.root)
    again = stamps()
    assert {s for s in records if again[s] != after[s]} == {changed}
    cells = {_gid(c): c for c in _nb(course, changed)["cells"] if _gid(c)}
    assert _src(cells["explain_sweep"]) == cell.source


def test_the_timestamp_goes_beside_it_as_nbgrader_autograde_copies_it(graded):
    from nbgrader.coursedir import CourseDirectory

    course, records = graded
    coursedir = CourseDirectory(config=load_course_config(course.root))
    for student in set(records) - set(UNREADABLE):
        copied = course.root / "autograded" / student / A / "timestamp.txt"
        assert copied.read_bytes() == (course.submitted / student / A / "timestamp.txt").read_bytes()
        assert stat.S_IMODE(copied.stat().st_mode) == 0o444
        # what `nbgrader autograde` compares to regrade only a newer submission
        assert coursedir.get_existing_timestamp(str(copied.parent)) is not None
    for student in UNREADABLE:  # no timestamp.txt submitted: none made up
        assert not (course.root / "autograded" / student / A / "timestamp.txt").exists()


def test_no_autograded_writes_none(graded, tmp_path):
    course, records = graded
    root = tmp_path / "course"
    shutil.copytree(course.root, root, ignore=shutil.ignore_patterns("autograded", "records", "feedback"))
    _grade(root, "--no-autograded")
    assert not (root / "autograded").exists()
    record = SubmissionGrade.model_validate_json(
        (root / "records" / A / f"{sorted(records)[0]}.json").read_text(encoding="utf-8"))
    assert record.total == records[sorted(records)[0]].total
    assert os.path.isdir(root / "records" / A)


def test_a_real_formgrader_server_serves_every_submission(graded, tmp_path):
    """nbgrader's own formgrader (a `jupyter lab` server with the course as its root, no browser): the
    submission list and each submission's page, rendered by its SubmissionHandler from autograded/."""
    import urllib.request

    from nbgrader.api import Gradebook

    from tests.browser.conftest import LabServer

    course, records = graded
    server = LabServer("instructor", course.root, tmp_path / "home")
    (server.home / ".jupyter").mkdir(parents=True)
    server.start()
    try:
        server.wait_ready()
        with urllib.request.urlopen(server.at(f"/formgrader/api/submitted_notebooks/{A}/{A}"), timeout=60) as r:
            listed = {s["student"] for s in json.loads(r.read())}
        assert listed == set(records)
        with Gradebook(CourseSettings.load(course.root).db_url) as gb:
            ids = {s: gb.find_submission_notebook(A, A, s).id for s in records}
        for student, record in records.items():
            with urllib.request.urlopen(server.at(f"/formgrader/submissions/{ids[student]}/"), timeout=60) as r:
                assert r.status == 200
                text = _text(r.read().decode("utf-8"))
            for p in record.predictions:
                assert " ".join(grade_cell_text(p).split()) in text, (student, p.grade_id)
            for e in record.explanations:
                assert f"Autograder on {e.grade_id}" in text and e.comment in text, (student, e.grade_id)
    finally:
        server.stop()
