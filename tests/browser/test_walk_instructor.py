"""A new instructor's first walk, as README.md and docs/authoring.md tell it: `autograder quickstart COURSE`
in a fresh folder, the mistakes a newcomer makes on the way (a command run from the wrong folder, a lesson
name misspelled, `--device cpu` on a laptop that has no CPU reference, a typo in lesson.toml), then
`nbgrader generate_assignment`, Release in formgrader (Chromium, a real JupyterLab with nbgrader's
extensions), a student's submission through the exchange, Collect, `autograder grade`, the submission in
formgrader (score reasons, the pre-read under the answer) and the feedback the student gets.

What is asserted is what the instructor sees: each command's one line (never a traceback), the pages'
text, the score.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.browser.conftest import COURSE_ID, LabServer, formgrader_action, squash, student_config

pytestmark = pytest.mark.slow

LESSON = "04_fusion"
STUDENT = "dave"


@dataclass
class Course:
    base: Path
    root: Path
    exchange: Path
    instructor: LabServer
    artifacts: Path

    def env(self) -> dict[str, str]:
        env = self.instructor.env()
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")  # alembic, nbgrader
        env["COLUMNS"] = "200"  # one message, one line (rich wraps at the terminal's width)
        return env

    def cli(self, *args: str, cwd: Path | None = None, ok: bool = True) -> subprocess.CompletedProcess[str]:
        """`autograder ARGS` run in `cwd` (the course by default): the real command line, in this process (an
        interpreter per command costs seconds on a busy 2-core machine)."""
        from typer.testing import CliRunner

        from autograder.cli import app

        here = Path.cwd()
        os.chdir(cwd or self.root)
        try:
            result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
        finally:
            os.chdir(here)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        proc = subprocess.CompletedProcess(["autograder", *args], result.exit_code, result.output, "")
        if ok:
            assert proc.returncode == 0, proc.stdout[-3000:]
        return proc

    def run(self, *cmd: str, cwd: Path | None = None, ok: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(list(cmd), cwd=cwd or self.root, env=self.env(), capture_output=True, text=True,
                              timeout=300)
        if ok:
            assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
        return proc


def said(proc: subprocess.CompletedProcess[str]) -> str:
    """What a command printed, as the newcomer reads it: one line, no traceback."""
    text = (proc.stdout + proc.stderr).strip()
    assert "Traceback" not in text, text
    return squash(text)


@pytest.fixture(scope="module")
def course(chromium, tmp_path_factory) -> Iterator[Course]:
    """`autograder quickstart my-course` in a fresh folder; the instructor's JupyterLab started there."""
    base = tmp_path_factory.mktemp("walk-instructor")
    exchange = base / "exchange"
    exchange.mkdir()
    home = base / "home" / "instructor"
    (home / ".jupyter").mkdir(parents=True)
    (home / ".jupyter" / "nbgrader_config.py").write_text(
        f"c = get_config()  # noqa: F821\nc.Exchange.root = {str(exchange)!r}\n", encoding="utf-8")
    root = base / "my-course"
    server = LabServer("instructor", root, home)
    artifacts = base / "screenshots"
    artifacts.mkdir()
    c = Course(base, root, exchange, server, artifacts)
    made = c.cli("quickstart", "my-course", cwd=base)
    c.quickstart_said = said(made)  # type: ignore[attr-defined]
    try:
        server.start()  # it boots while the instructor makes the first mistakes
        yield c
    finally:
        server.stop()


done: set[str] = set()


def test_quickstart_then_the_mistakes_a_newcomer_makes(course: Course) -> None:
    c = course
    told = c.quickstart_said  # type: ignore[attr-defined]
    assert told.startswith(f"course created in {c.root}: nbgrader_config.py, source/ (03_roofline, 04_fusion, "
                           "05_softmax, 06_fused_kernel), references/"), told
    assert "next: cd my-course && nbgrader generate_assignment 03_roofline" in told
    assert (c.root / "nbgrader_config.py").is_file() and (c.root / "references" / LESSON / "nvidia-h200.json").is_file()
    # a command from the folder above the course
    above = c.cli("grade", LESSON, cwd=c.base, ok=False)
    assert above.returncode == 2
    assert said(above) == (f"error: no lesson.toml for assignment '{LESSON}': {c.base} is not a course (no "
                           "nbgrader_config.py); run from the course folder or pass -C COURSE")
    # a lesson name misspelled
    typo = c.cli("lint", "04_fusoin", ok=False)
    assert typo.returncode == 2 and said(typo).endswith("did you mean 04_fusion?"), said(typo)
    # a laptop: --device cpu, and the starter lesson has no CPU reference yet
    cpu = c.cli("grade", LESSON, "--device", "cpu", ok=False)
    assert said(cpu) == (f"error: no cpu reference for {LESSON} (stored: nvidia-h200): run `autograder bench "
                         f"{LESSON} --device cpu` first")
    # grading before the assignment is generated: no gradebook yet
    early = c.cli("grade", LESSON, ok=False)
    assert said(early) == (f"error: no gradebook at {c.root / 'gradebook.db'}: run `nbgrader generate_assignment "
                           f"{LESSON}` in the course first (or grade with --no-gradebook)")
    # a typo in lesson.toml: lint names it, and generate_assignment refuses to release a broken notebook
    toml = c.root / "source" / LESSON / "lesson.toml"
    good = toml.read_text(encoding="utf-8")
    toml.write_text(good.replace('kind = "speedup"', 'kind = "speedpu"', 1), encoding="utf-8")
    lint = c.cli("lint", LESSON, ok=False)
    assert lint.returncode == 1
    assert said(lint) == (f"{LESSON}: error: unknown quantity kind 'speedpu'; did you mean 'speedup'? known: count, crossover, direction, "
                          "peak_fraction, ratio, roofline_share, speedup")
    broken = c.run(sys.executable, "-m", "nbgrader", "generate_assignment", LESSON, ok=False)
    assert broken.returncode != 0
    assert "LessonSpecError: unknown quantity kind 'speedpu'" in broken.stdout + broken.stderr
    assert not (c.root / "release" / LESSON / f"{LESSON}.ipynb").exists()  # no notebook with nbgrader's stub
    toml.write_text(good, encoding="utf-8")
    c.run(sys.executable, "-m", "nbgrader", "generate_assignment", LESSON, "--force")
    released = nbformat.read(str(c.root / "release" / LESSON / f"{LESSON}.ipynb"), as_version=4)
    assert any('None, because="",  # <- your prediction' in cell.source for cell in released.cells)
    # nothing collected yet: grading says so instead of "nothing changed"
    empty = c.cli("grade", LESSON, ok=False)
    assert empty.returncode == 2
    assert said(empty) == (f"error: no submissions of {LESSON} under {c.root / 'submitted'} (submitted/STUDENT/"
                           f"{LESSON}/{LESSON}.ipynb): collect them first (`nbgrader collect {LESSON}` or `nbgrader "
                           f"zip_collect {LESSON}`), or write a synthetic class with `autograder sample {LESSON}`")
    done.add("generated")


def student_submits(c: Course) -> None:
    """A careful student fetches, answers and submits through the exchange (nbgrader's own commands, in the
    student's home); the notebook is what `autograder sample` writes for a careful student."""
    from autograder.bench.store import ReferenceStore
    from autograder.sample.generate import PERSONAS, make_submission, solution_texts
    from autograder.spec import load_spec

    home = c.base / "home" / STUDENT
    (home / ".jupyter").mkdir(parents=True)
    (home / ".jupyter" / "nbgrader_config.py").write_text(student_config(c.exchange, STUDENT, home), encoding="utf-8")
    env = {k: v for k, v in c.env().items() if not k.startswith("JUPYTER")}
    env.update(HOME=str(home), JUPYTER_CONFIG_DIR=str(home / ".jupyter"))

    def nbgrader(*args: str) -> None:
        proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=home, env=env, capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-3000:]

    nbgrader("fetch_assignment", LESSON, f"--course={COURSE_ID}")
    spec = load_spec(c.root / "source" / LESSON)
    mine = home / LESSON / f"{LESSON}.ipynb"
    careful = next(p for p in PERSONAS if p.name == "careful")
    solutions = solution_texts(nbformat.read(str(c.root / "source" / LESSON / f"{LESSON}.ipynb"), as_version=4), spec)
    ref = ReferenceStore(c.root / "references").load(LESSON, "nvidia-h200")
    from datetime import datetime, timezone

    nb = make_submission(nbformat.read(str(mine), as_version=4), spec, ref, careful, 7,
                         datetime(2026, 11, 28, tzinfo=timezone.utc), solutions)
    nbformat.write(nb, str(mine))
    nbgrader("submit", LESSON, f"--course={COURSE_ID}")


def test_release_collect_grade_then_read_the_submission_and_the_feedback(course: Course, browser: Any) -> None:
    if "generated" not in done:
        pytest.fail("the course was not generated: see the step before")
    from autograder.storage.records_store import RecordStore

    c = course
    c.instructor.wait_ready()
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(60_000)
    page = ctx.new_page()
    try:
        # formgrader, as README's "What an instructor sees" says: the lesson listed, released from there
        page.goto(c.instructor.at("/formgrader"))
        page.locator("td.name", has_text=LESSON).wait_for()
        formgrader_action(page, LESSON, "release")
        assert (c.exchange / COURSE_ID / "outbound" / LESSON / f"{LESSON}.ipynb").is_file()
        student_submits(c)
        page.reload()
        page.locator("td.name", has_text=LESSON).wait_for()
        formgrader_action(page, LESSON, "collect")
        assert (c.root / "submitted" / STUDENT / LESSON / f"{LESSON}.ipynb").is_file()
        graded = said(c.run(sys.executable, "-m", "autograder", "grade", LESSON))
        assert "graded 1, unchanged 0, failed 0" in graded, graded
        assert f"`nbgrader autograde {LESSON}` skips them" in graded
        record = RecordStore(c.root / "records").load(LESSON, STUDENT)
        assert record.chain.status == "ok" and len(record.predictions) == 4
        preread = squash(record.explanations[0].comment)
        assert preread.startswith("Autograder pre-read: found") and "Suggested" in preread, preread

        # the submission in formgrader: every reason, and the pre-read in full under the answer
        page.goto(c.instructor.at(f"/formgrader/gradebook/{LESSON}/{LESSON}"))
        row = page.locator("tr", has=page.locator("td", has_text=STUDENT))
        row.wait_for()
        row.locator("a", has_text="Submission").first.click()
        page.wait_for_function("""() => {
            const c = document.querySelector('#explain_headline-comment');
            return c && c.placeholder.startsWith('Autograder pre-read');
        }""")
        text = squash(page.locator("body").inner_text())
        for p in record.predictions:
            assert squash(p.reason) in text, p.quantity
        note = page.locator(".text_cell_render", has_text="Autograder on explain_headline")
        assert note.is_visible() and preread in squash(note.inner_text())
        note.scroll_into_view_if_needed()
        page.screenshot(path=str(c.artifacts / "formgrader-submission.png"))

        # the feedback the student gets: the score, each reason, the pre-read
        page.goto(c.instructor.at("/formgrader"))
        page.locator("td.name", has_text=LESSON).wait_for()
        formgrader_action(page, LESSON, "generate-feedback")
        html = c.root / "feedback" / STUDENT / LESSON / f"{LESSON}.html"
        page.goto(html.as_uri())
        feedback = squash(page.locator("body").inner_text())
        header = re.search(rf"{LESSON} \(Score: ([\d.]+) / ([\d.]+)\)", feedback)
        assert header, feedback[:300]
        assert float(header.group(1)) == pytest.approx(record.total, abs=0.05)  # explanations: not graded yet
        assert float(header.group(2)) == pytest.approx(record.max_total)
        for p in record.predictions:
            assert f"Test cell (Score: {p.points:.1f} / {p.max_points:.1f})" in feedback, p.quantity
            assert squash(p.reason) in feedback, p.quantity
        assert preread in feedback
        page.screenshot(path=str(c.artifacts / "feedback.png"), full_page=False)
    finally:
        ctx.close()
