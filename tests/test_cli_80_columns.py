"""Every table the CLI prints is readable in an 80-column terminal: nothing cut short with "…", every
reason in full, every table line within 80 columns (wrapped, or stacked when its words cannot stand side
by side), scores rounded as the gradebook shows them."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console

from autograder.cli._views import course_table, print_student
from autograder.reports.course_report import CourseScores
from autograder.storage.records_store import RecordStore
from autograder.tables import Column, TextTable, column_widths, print_table

pytestmark = pytest.mark.slow  # runs bench, grade and report on a whole class

REPO = Path(__file__).resolve().parents[1]
LESSONS = ["03_roofline", "04_fusion", "05_softmax"]
SCORE = re.compile(r"\b\d+\.\d{3,}/\d")  # e.g. 0.8985/2: a score not rounded as the gradebook shows it


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "80", "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=600)


def _readable(out: str, soft: tuple[str, ...] = ()) -> None:
    """No "…" anywhere; every line within 80 columns except the one-line messages that the terminal wraps
    (lines starting with one of ``soft``); no score with more than two decimals."""
    assert "…" not in out, out
    wide = [ln for ln in out.splitlines() if cell_len(ln.rstrip()) > 80 and not ln.lstrip().startswith(soft)]
    assert not wide, wide
    assert not SCORE.search(out), SCORE.search(out)


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def graded(tmp_path_factory, course_template):
    course = tmp_path_factory.mktemp("cli80") / "course"
    shutil.copytree(course_template, course)
    assert _cli("sample", "04_fusion", "--students", "8", cwd=course).returncode == 0
    r = _cli("grade", "04_fusion", "--workers", "1", cwd=course)
    assert r.returncode == 0, r.stderr[-2000:]
    return course, r.stdout


def test_grade_summary(graded):
    _, out = graded
    _readable(out)
    assert "class summary" in out and "mean credit wall_speedup@fp32,2^30" in out


def test_report_and_every_student_reads_every_reason_in_full(graded):
    course, _ = graded
    r = _cli("report", "04_fusion", cwd=course)
    assert r.returncode == 0, r.stderr
    _readable(r.stdout)
    for record in RecordStore(course / "records").all("04_fusion"):
        r = _cli("report", "04_fusion", "--student", record.student, cwd=course)
        assert r.returncode == 0, r.stderr
        _readable(r.stdout)
        flat = _flat(r.stdout)
        assert f"{record.total:.2f}/{record.max_total:g}" in flat
        for p in record.predictions:
            assert f"{p.points:.2f}/{p.max_points:g} {p.quantity}: {_flat(p.reason)}" in flat, p.reason
        for e in record.explanations:
            assert _flat(e.comment) in flat
    import csv

    rows = list(csv.DictReader((course / "reports/04_fusion/grades.csv").open(encoding="utf-8")))
    assert len(rows) == 8
    for row in rows:
        scores = [v for k, v in row.items() if k in ("total", "explanation_suggested") or k.endswith(" points")]
        assert scores and all(re.fullmatch(r"\d+\.\d\d", v) for v in scores), row


def test_course_report(graded):
    course, _ = graded
    r = _cli("report", cwd=course)
    assert r.returncode == 0, r.stderr
    _readable(r.stdout)
    assert "04_fusion" in r.stdout and "total" in r.stdout


def test_check_of_a_student_who_started_over(graded):
    from tests.grading.test_bad_inputs import _bytes, _started_over

    course, _ = graded
    nb_path = next((course / "submitted").glob("*careful*/04_fusion/04_fusion.ipynb"))
    restarted = course / "restarted" / "04_fusion.ipynb"
    restarted.parent.mkdir()
    restarted.write_bytes(_bytes(_started_over(json.loads(nb_path.read_text()))))
    r = _cli("check", str(restarted), "--lesson", str(course / "source/04_fusion"), cwd=course)
    _readable(r.stdout)
    flat = _flat(r.stdout)
    assert "restarted" in flat and "you started over once" in flat
    assert "committed after starting over; you had measured this before: the course policy applies" in flat
    r = _cli("check", str(course / "release/04_fusion/04_fusion.ipynb"), cwd=course)
    _readable(r.stdout)
    assert "no prediction committed: fill in the value and run the cell" in _flat(r.stdout)


@pytest.mark.parametrize("lesson", LESSONS)
def test_bench_report_of_each_stored_reference(lesson, tmp_path):
    r = _cli("bench", lesson, "--merge", str(REPO / "references" / lesson / "nvidia-h200.json"),
             "--out", str(tmp_path), cwd=REPO)
    assert r.returncode == 0, r.stderr
    # fairness lines and the path are single messages the terminal wraps, not table rows
    _readable(r.stdout, soft=("fairness", "gpu", "wall", "fp32", "peak", "half", "matmul", "bf16", "eager",
                              "compiled", "library", "reference stored", "process"))
    table = r.stdout.split("quantities students predict")[0]
    assert all(cell_len(ln.rstrip()) <= 80 for ln in table.splitlines())
    run = json.loads((REPO / "references" / lesson / "nvidia-h200.json").read_text())
    for m in run["measurements"][:6]:
        assert f"{m['stats']['median']:.4f}" in r.stdout  # every median shown whole


def test_lint_lines_are_whole(tmp_path):
    from autograder.course import Course

    root = Course.copy(REPO, tmp_path / "course", parts=("nbgrader_config.py", "source")).root
    (root / "references").mkdir()
    r = _cli("lint", "04_fusion", "--strict", cwd=root)
    assert r.returncode == 1
    assert "…" not in r.stdout and "04_fusion: warning: no reference" in r.stdout


def test_course_totals_of_many_lessons_fit_or_stack():
    """The demo's course totals and the course report share one table: with more lessons than fit side by
    side it is stacked, never cut."""
    for n in (3, 12):
        lessons = [f"{i:02d}_lesson_name" for i in range(n)]
        scores = CourseScores(assignments=lessons, max_score={a: 10.0 for a in lessons})
        for s in ("student001", "student002"):
            for i, a in enumerate(lessons):
                scores.total[(s, a)] = 7.123456 + i
        buf = io.StringIO()
        print_table(Console(file=buf, width=80), course_table(scores, scores.students, "course totals"))
        out = buf.getvalue()
        _readable(out)
        assert "8.12" in out and f"{scores.course_total('student001'):.2f}" in out
        stacked = column_widths(course_table(scores, scores.students, ""), 80) is None
        assert stacked == (n == 12)
        if stacked:
            assert f"{lessons[-1]} (of 10): {7.123456 + n - 1:.2f}" in out


def test_a_word_longer_than_the_terminal_is_folded_not_cut():
    t = TextTable([Column("a"), Column("b")])
    t.add_row("x" * 100, "y")
    buf = io.StringIO()
    print_table(Console(file=buf, width=80), t)
    assert "…" not in buf.getvalue() and buf.getvalue().count("x") == 100


def test_student_reasons_with_markup_characters_are_printed_as_written(graded):
    course, _ = graded
    record = RecordStore(course / "records").all("04_fusion")[0]
    p = record.predictions[0].model_copy(update={"reason": "the cell now says [bold]9.5[/bold] [/x] — never run."})
    buf = io.StringIO()
    print_student(Console(file=buf, width=80), record.model_copy(update={"predictions": [p]}))
    assert "[bold]9.5[/bold] [/x]" in buf.getvalue()
