"""A course's own lesson of a kind none of the bundled three is (fixtures/07_transpose: a copy next to a
transpose, the same bytes in a different access pattern; written from docs/authoring.md alone), added to a
copy of this course: lint, the demo and the lesson's own tests pass there without an H200 reference or a
hand-written explanation corpus, each check that lacks data saying what is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "07_transpose"
NAME = "07_transpose"


def _run(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    r = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=900,
                       check=False)
    if check:
        assert r.returncode == 0, (args, r.stdout[-3000:], r.stderr[-3000:])
    return r


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """A copy of this repository (what git tracks, and new files it does not ignore) with the lesson added."""
    root = tmp_path_factory.mktemp("own") / "course"
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = REPO / rel
        if src.is_file():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, root / rel)
    shutil.copytree(FIXTURE, root / "source" / NAME)
    return root


def test_lint_says_only_what_is_left_to_do(course):
    r = _run("-m", "autograder", "lint", NAME, cwd=course)
    assert r.stdout.strip() == (
        f"{NAME}: warning: no reference for 'nvidia-h200' yet: run `autograder bench {NAME}` on the nvidia-h200 "
        "and commit references/"
    ), r.stdout


def test_the_demo_grades_it_against_the_best_reference_it_has(course):
    r = _run("-m", "autograder", "demo", "--assignment", "04_fusion", "--assignment", NAME, "--students", "4",
             "--out", "demo", cwd=course)
    out = " ".join(r.stdout.split())
    assert f"{NAME}: graded 4 against the cpu reference (no nvidia-h200 reference yet" in out, out[-3000:]
    assert "04_fusion: graded 4 against the nvidia-h200 reference in" in out
    assert "…" not in r.stdout  # no heading or cell cut short
    assert (course / "demo/reports/course.csv").is_file()


def test_its_tables_and_reasons_speak_the_lessons_words(course):
    """The slowdown is asked for and tabled as transpose ÷ copy, the share as one of the copy roofline; a
    correct "…% of the copy roofline" is not read as a figure of the variant named copy; on the CPU, reasons
    name the size the CPU measured (2^11 in place of 2^12)."""
    from autograder.bench.store import ReferenceStore
    from autograder.kinds import kind_of
    from autograder.preread import grade_explanation
    from autograder.records import SubmissionGrade
    from autograder.spec import load_spec

    demo = course / "demo"
    if not (demo / "references" / NAME / "cpu.json").is_file():
        _run("-m", "autograder", "demo", "--assignment", NAME, "--students", "4", "--out", "demo", cwd=course)
    spec = load_spec(course / "source" / NAME)
    slowdown, share = spec.quantities
    assert kind_of(slowdown).asks_for.startswith("the slowdown as a factor (transpose time ÷ copy time)")
    assert kind_of(share).show(0.39) == "39% of the copy roofline"

    ref = ReferenceStore(demo / "references").load(NAME, "cpu")
    pct = round(100 * float(ref.quantities[share.id].value))
    text = f"The transpose reaches only {pct} % of the copy roofline: its writes are strided."
    g = grade_explanation(text, spec.for_device("cpu"), spec.for_device("cpu").explanations[0], ref)
    verdicts = [f.verdict for f in g.found]
    assert "misattributed" not in verdicts and g.matched >= 1, g.comment

    record = SubmissionGrade.model_validate_json(next((demo / "records" / NAME).glob("*.json")).read_text())
    reasons = " ".join(p.reason for p in record.predictions)
    assert "2^11" in reasons and "2^12" not in reasons, reasons


def test_its_own_tests_pass_or_say_what_data_is_missing(course):
    r = _run("-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-q", "-rs", "-k", NAME,
             "tests/lessons/test_every_lesson.py", "tests/grading/test_explanation_corpus.py",
             "tests/test_framework_is_lesson_agnostic.py", cwd=course, check=False)
    assert r.returncode == 0, r.stdout[-4000:]
    assert "failed" not in r.stdout.splitlines()[-1]
    assert "no H200 reference committed" in r.stdout
    assert "without a hand-written explanation corpus" in r.stdout
    summary = r.stdout.splitlines()[-1]
    assert "passed" in summary and int(summary.split(" passed")[0].split()[-1]) >= 4, summary
