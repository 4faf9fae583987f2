"""Students run the released notebook in a real kernel, submit, and nbgrader autogrades it with the
course's config; the fast batch must then give exactly the same scores.

Four executed students (good, poor predictor, revised after measuring, blank) plus four synthetic ones
(adjectives-only, misconception, late, forged) go through `nbgrader autograde` in one real CLI call.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import nbformat
import pytest

from autograder.batch.fast import grade_class
from autograder.bench.store import ReferenceStore
from autograder.course import Course
from autograder.grading.policy import GradingPolicy
from autograder.records import SubmissionGrade
from autograder.sample.execute import copy_lesson_files, run_as_student
from autograder.sample.fill import fill_explanations, fill_predictions
from autograder.sample.generate import PERSONAS, make_submission
from autograder.storage.gradebook_sync import read_rows
from autograder.storage.records_store import RecordStore

pytestmark = pytest.mark.slow

GOOD = {
    "gpu_speedup@fp16,2^24": (3.8, "fused moves 2·N·s bytes instead of 8·N·s, and both are memory-bound at 2^24"),
    "wall_speedup@fp32,2^30": (3.6, "at 4 GiB per tensor the kernels outlast the tens of µs of dispatch"),
    "wall_2^20_vs_2^28@fp16": ("lower", "at 2 MB both are pure launch overhead; at 2^28 the kernels dominate"),
    "fp32_vs_fp16@2^24": ("same", "both dtypes are memory-bound; fusion cuts the same 4x of traffic"),
}
POOR = {
    "gpu_speedup@fp16,2^24": (20.0, "compilers are magic"),
    "wall_speedup@fp32,2^30": (12.0, "four kernels become one"),
    "wall_2^20_vs_2^28@fp16": ("higher", "small is fast"),
    "fp32_vs_fp16@2^24": ("lower", "fp32 is slower"),  # the H200's "same" leans higher (1.006): half for "higher"
}
EXPLAIN = {
    "explain_headline": "Eager runs four kernels moving 268 MB; fused moves 67 MB in one kernel: 4x less "
    "traffic, so about 3.9x in GPU time near the 4,200 GB/s roofline.",
    "explain_sweep": "It is faster when it is bigger.",
}


def _submit(course, student, nb):
    folder = course / "submitted" / student / "04_fusion"
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(folder / "04_fusion.ipynb"))


@pytest.fixture(scope="module")
def graded_course(tmp_path_factory, course_template, spec, h200):
    course = tmp_path_factory.mktemp("e2e") / "course"
    shutil.copytree(course_template, course)
    release = nbformat.read(str(course / "release/04_fusion/04_fusion.ipynb"), as_version=4)
    plans = {
        "good": (GOOD, None),
        "poor": (POOR, None),
        "reviser": (POOR, {"gpu_speedup@fp16,2^24": (3.9, "after seeing the measurement")}),
        "blank": ({}, None),
    }
    for student, (answers, revise) in plans.items():
        work = tmp_path_factory.mktemp(f"work_{student}")
        copy_lesson_files(course / "release/04_fusion", work)
        nb = nbformat.from_dict(release)
        nb = nbformat.reads(nbformat.writes(nb), as_version=4)
        assert fill_predictions(nb, answers) == []
        if student != "blank":
            fill_explanations(nb, EXPLAIN)
        executed = run_as_student(nb, work, revise=revise)
        errors = [o for c in executed.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
        assert not errors, errors
        _submit(course, student, executed)
    from datetime import datetime, timezone

    for name in ("adjectives", "misconception", "late", "forger"):
        persona = next(p for p in PERSONAS if p.name == name)
        nb = make_submission(
            release, spec, h200, persona, seed=len(name), start=datetime(2026, 11, 28, tzinfo=timezone.utc)
        )
        _submit(course, f"syn_{name}", nb)
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", "autograde", "04_fusion"],
        cwd=course,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return course, proc.stderr


def _gradebook(course):
    """{student: {"scores": {cell: auto}, "manual": {cell: flag}, "comments": {cell: text}}}"""
    out: dict = {}
    for key, value in read_rows(f"sqlite:///{course / 'gradebook.db'}", "04_fusion", "04_fusion").items():
        entry = out.setdefault(key[0], {"scores": {}, "manual": {}, "comments": {}})
        field = "scores" if len(key) == 2 else {"manual": "manual", "comment": "comments"}[key[2]]
        entry[field][key[1]] = value
    return out


def _record(course, student) -> SubmissionGrade:
    r = RecordStore(course / "records").load("04_fusion", student)
    assert r is not None
    return r


def test_good_student_earns_full_prediction_credit(graded_course):
    course, _ = graded_course
    gb = _gradebook(course)["good"]
    assert gb["scores"]["grade_gpu_speedup"] == 2.0
    assert gb["scores"]["grade_wall_speedup"] == 2.0
    assert gb["scores"]["grade_fp32_direction"] == 2.0
    assert gb["manual"]["explain_headline"] is True  # instructors still grade explanations
    assert "Suggested" in gb["comments"]["explain_headline"] and "268 MB" in gb["comments"]["explain_headline"]
    assert "no numbers" in gb["comments"]["explain_sweep"]
    rec = _record(course, "good")
    assert rec.chain.status == "ok" and rec.device_of_record == "nvidia-h200"
    assert "you measured on CPU" in rec.predictions[0].reason  # never silently graded on another device


def test_poor_predictor_gets_zero_with_reasons(graded_course):
    course, _ = graded_course
    gb = _gradebook(course)["poor"]
    assert gb["scores"]["grade_gpu_speedup"] == 0.0
    assert gb["scores"]["grade_fp32_direction"] == 0.0
    rec = _record(course, "poor")
    assert "you predicted 20.00×; the NVIDIA H200 reference measured" in rec.predictions[0].reason


def test_revised_after_measurement_is_penalized(graded_course):
    course, _ = graded_course
    gb = _gradebook(course)["reviser"]
    assert gb["scores"]["grade_gpu_speedup"] == 1.0  # right value, half kept under the "penalty" policy
    rec = _record(course, "reviser")
    assert "revised_after_measurement" in rec.predictions[0].flags


def test_blank_student_scores_zero_everywhere(graded_course):
    course, _ = graded_course
    gb = _gradebook(course)["blank"]
    assert all(v == 0.0 for k, v in gb["scores"].items())
    assert _record(course, "blank").predictions[0].reason.startswith("no committed prediction")


def test_feedback_shows_reasons(graded_course):
    course, _ = graded_course
    from nbgrader.api import Gradebook

    from autograder.config import CourseSettings

    # the instructor comments on an explanation: the pre-read stays in the feedback, below the comment
    with Gradebook(CourseSettings.load(course).db_url) as gb:
        gb.find_comment("explain_headline", "04_fusion", "04_fusion", "poor").manual_comment = "Name the bytes."
        gb.db.commit()
    preread = _record(course, "poor").explanations[0].comment
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_feedback", "04_fusion", "--student", "poor"],
        cwd=course,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    html = next((course / "feedback" / "poor" / "04_fusion").glob("*.html")).read_text(encoding="utf-8")
    text = " ".join(html.split())
    assert "reference measured" in text and "no credit" in text
    assert "Name the bytes." in text and preread in text and text.index("Name the bytes.") < text.index(preread)
    longest = max(len(line) for line in html.splitlines() if "reference measured" in line or "points —" in line)
    assert longest < 200, "the reason is one long line: it would scroll sideways in the feedback"


def test_fast_batch_agrees_exactly_with_nbgrader_autograde(graded_course, course_template, tmp_path):
    course, _ = graded_course
    native = _gradebook(course)
    fast_course = tmp_path / "fast"
    shutil.copytree(
        course, fast_course, ignore=shutil.ignore_patterns("records", "autograded", "feedback", "gradebook.db")
    )
    # the gradebook as `nbgrader generate_assignment 04_fusion` wrote it (the template's: the same course
    # files, generated once per content by tests/conftest.py) before anything was graded into it
    shutil.copy2(course_template / "gradebook.db", fast_course / "gradebook.db")
    result = grade_class(Course.at(fast_course), "04_fusion", GradingPolicy(), workers=2)
    assert not result.failed
    fast = _gradebook(fast_course)
    assert set(fast) == set(native)
    for student in native:
        assert fast[student]["scores"] == native[student]["scores"], student
        assert fast[student]["manual"] == native[student]["manual"], student
        assert fast[student]["comments"] == native[student]["comments"], student
    assert ReferenceStore(course / "references").devices("04_fusion") == ["nvidia-h200"]
