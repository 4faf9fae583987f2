"""Lesson 06 (the student writes the kernel) graded on this machine's CPU, Triton through its interpreter:
the instructor's kernel, a slow but correct one (blocks of 32), a loop of torch ops, a wrong one and a blank
one each get what a TA would give, with a reason; predictions about the student's own kernel are scored
against the grader's measurement of that kernel; the fast batch and `nbgrader autograde` agree row for row.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import nbformat
import pytest

from autograder.course import Course
from autograder.grading.batch import grade_class
from autograder.grading.gradebook_sync import read_rows
from autograder.grading.policy import GradingPolicy
from autograder.grading.records_store import RecordStore
from autograder.ledger import append, genesis
from autograder.lesson._output import ledger_bundle
from autograder.sample.fill import fill_predictions

pytest.importorskip("triton", reason="lesson 06 runs students' Triton kernels (TRITON_INTERPRET=1 on a CPU)")
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
LESSON = "06_fused_kernel"
SHARE, SPEEDUP = "share@fp16,2^26", "speedup_vs_eager@fp16,2^26"


def _instructor() -> str:
    nb = json.loads((REPO / "source" / LESSON / f"{LESSON}.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "answer_kernel")
    return "".join(cell["source"])


TORCH_LOOP = """import torch

def fused_chain(x):
    y = x
    for op in (lambda t: t * 2.0, lambda t: t + 1.0, torch.relu, lambda t: t * 0.5):
        y = op(y)
    return y
"""
WRONG = """import torch

def fused_chain(x):
    return torch.relu(x * 2.0 + 1.0)  # forgot the * 0.5
"""
SAMPLES = {
    "instructor": _instructor(),
    "block32": _instructor().replace("BLOCK_SIZE = 1024", "BLOCK_SIZE = 32"),
    "torch_loop": TORCH_LOOP,
    "wrong": WRONG,
    "blank": None,  # the cell as released
}


def _submission(release: nbformat.NotebookNode, kernel: str | None, predictions: dict[str, float]):
    """A notebook as a student hands it in: the kernel cell filled, predictions committed (before any
    measurement) and their ledger outputs in place."""
    nb = nbformat.from_dict(json.loads(json.dumps(release)))
    if kernel is not None:
        cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "answer_kernel")
        cell.source = kernel
    fill_predictions(nb, {q: (v, f"my work model for {q}") for q, v in predictions.items()})
    at = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
    chain = [genesis(LESSON, "ab" * 16, at)]
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.outputs = []
        if "Lesson.load" in cell.source:
            cell.outputs.append(nbformat.v4.new_output("display_data", data=ledger_bundle(LESSON, chain, "new")))
        for qid, value in predictions.items():
            if f'"{qid}"' in cell.source and ".predict(" in cell.source:
                at += timedelta(minutes=3)
                chain.append(append(chain, "prediction", qid, value, at, f"my work model for {qid}"))
                out = ledger_bundle(LESSON, list(chain), f"committed {qid}")
                cell.outputs.append(nbformat.v4.new_output("display_data", data=out))
    return nb


def _write(course: Course, student: str, nb) -> None:
    folder = course.root / "submitted" / student / LESSON
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(folder / f"{LESSON}.ipynb"))
    (folder / "timestamp.txt").write_text("2026-11-30 12:00:00.000000 UTC", encoding="utf-8")


@pytest.fixture(scope="module")
def course06(tmp_path_factory) -> Course:
    """A course graded against the CPU reference (committed in references/06_fused_kernel/cpu.json), one
    submission per sample kernel, each predicting the H200 numbers of the instructor's kernel."""
    root = tmp_path_factory.mktemp("lesson06") / "course"
    c = Course.copy(REPO, root, parts=("nbgrader_config.py", "source", "references"))
    with (root / "nbgrader_config.py").open("a", encoding="utf-8") as fh:
        fh.write('\nc.LessonGrading.device_of_record = "cpu"\n')
    c.generate_assignment(LESSON)
    release = nbformat.read(str(root / "release" / LESSON / f"{LESSON}.ipynb"), as_version=4)
    for name, kernel in SAMPLES.items():
        _write(c, name, _submission(release, kernel, {SHARE: 0.95, SPEEDUP: 4.0}))
    return c


@pytest.fixture(scope="module")
def graded(course06):
    native = course06.root.parent / "native"
    shutil.copytree(course06.root, native)  # before grading: the native path starts from the same class
    result = grade_class(course06, LESSON, GradingPolicy(device_of_record="cpu"), workers=1)
    assert sorted(result.graded) == sorted(SAMPLES) and not result.failed
    records = {r.student: r for r in RecordStore(course06.root / "records").all(LESSON)}
    return records, native


def _by_grade_id(record):
    return {p.grade_id: p for p in record.predictions}


def test_the_instructor_kernel_earns_full_kernel_credit(graded):
    g = _by_grade_id(graded[0]["instructor"])
    assert g["grade_kernel_correct"].points == 2.0
    assert "matched the reference on 5 hidden check case(s)" in g["grade_kernel_correct"].reason
    perf = g["grade_kernel_performance"]
    assert perf.points == 4.0, perf.reason
    assert "of the copy roofline" in perf.reason and "GB/s" in perf.reason and "→ 100%" in perf.reason


def test_predictions_are_scored_against_the_graders_measurement_of_that_kernel(graded):
    for name in ("instructor", "block32", "torch_loop"):
        g = _by_grade_id(graded[0][name])
        share, speedup = g["grade_kernel_share"], g["grade_kernel_speedup"]
        assert "the grader measured your kernel on the" in share.reason, share.reason
        assert share.reference == pytest.approx(g["grade_kernel_performance"].reference)  # the same measurement
        assert isinstance(speedup.reference, float) and speedup.reference > 0
    # the three kernels were measured apart: the slow one is slower than the instructor's
    s = {n: _by_grade_id(graded[0][n])["grade_kernel_share"].reference for n in ("instructor", "block32")}
    assert s["block32"] < s["instructor"] / 3


def test_a_careful_student_predicting_their_own_measurement_earns_full_credit(course06, graded, tmp_path):
    """Predict exactly what the grader measured of the instructor's kernel: full credit on both — the
    grade is about THAT kernel (the stored result of the same source is what a regrade uses)."""
    g = _by_grade_id(graded[0]["instructor"])
    # what was measured, unrounded: the prediction (0.95, 4.0) over its ratio to the measurement
    truth = {SHARE: 0.95 / g["grade_kernel_share"].ratio, SPEEDUP: 4.0 / g["grade_kernel_speedup"].ratio}
    release = nbformat.read(str(course06.root / "release" / LESSON / f"{LESSON}.ipynb"), as_version=4)
    _write(course06, "careful", _submission(release, SAMPLES["instructor"], truth))
    grade_class(course06, LESSON, GradingPolicy(device_of_record="cpu"), workers=1, students=["careful"])
    mine = _by_grade_id(RecordStore(course06.root / "records").load(LESSON, "careful"))
    share, speedup = mine["grade_kernel_share"], mine["grade_kernel_speedup"]
    assert share.fraction == 1.0 and speedup.fraction == 1.0, (share.reason, speedup.reason)
    assert mine["grade_kernel_performance"].points == 4.0


def test_a_slow_but_correct_kernel_gets_correctness_and_partial_performance(graded):
    g = _by_grade_id(graded[0]["block32"])
    assert g["grade_kernel_correct"].points == 2.0
    perf = g["grade_kernel_performance"]
    assert 0.0 < perf.points < 4.0, perf.reason
    assert "full credit from" in perf.reason


def test_torch_ops_are_allowed_and_measured(graded):
    g = _by_grade_id(graded[0]["torch_loop"])
    assert g["grade_kernel_correct"].points == 2.0
    # on a CPU torch's own kernels outrun Triton's interpreter: its CPU band gives full credit; on the H200
    # the same four passes reach a quarter of the roofline (tests/kinds/test_roofline_share.py)
    assert g["grade_kernel_performance"].reference > _by_grade_id(graded[0]["instructor"])["grade_kernel_performance"].reference


@pytest.mark.parametrize("name, why", [("wrong", "wrong"), ("blank", "as released")])
def test_a_wrong_or_blank_kernel_earns_nothing_and_says_why(graded, name, why):
    r = graded[0][name]
    g = _by_grade_id(r)
    for gid in ("grade_kernel_correct", "grade_kernel_performance", "grade_kernel_share", "grade_kernel_speedup"):
        assert g[gid].points == 0.0, (gid, g[gid].reason)
        assert why in g[gid].reason, g[gid].reason
    assert "scored against nothing" in g["grade_kernel_share"].reason
    verdict = "wrong" if name == "wrong" else "no_entry"
    assert f"kernel_{verdict}:kernel_correctness" in r.flags
    assert r.total == 0.0


def test_both_grading_paths_give_the_same_rows(graded, course06):
    _, native = graded
    # the kernels' results are kept beside the references: the native path grades the same measurements
    shutil.copytree(course06.root / ".kernel_results", native / ".kernel_results")
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", "autograde", LESSON], cwd=native, capture_output=True, text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    want = read_rows(f"sqlite:///{course06.root / 'gradebook.db'}", LESSON, LESSON)
    want = {k: v for k, v in want.items() if k[0] in SAMPLES}  # not the careful student added after the copy
    got = read_rows(f"sqlite:///{native / 'gradebook.db'}", LESSON, LESSON)
    assert got == want
    assert got[("instructor", "grade_kernel_performance")] == 4.0
    assert got[("wrong", "grade_kernel_correct")] == 0.0


def test_release_matches_a_fresh_generate_assignment(course06):
    fresh = course06.root / "release" / LESSON
    committed = REPO / "release" / LESSON
    assert sorted(p.name for p in fresh.iterdir()) == sorted(p.name for p in committed.iterdir())

    def cells(p: Path):
        nb = json.loads(p.read_text(encoding="utf-8"))
        return [(c["cell_type"], "".join(c["source"]), c["metadata"].get("nbgrader")) for c in nb["cells"]]

    assert cells(fresh / f"{LESSON}.ipynb") == cells(committed / f"{LESSON}.ipynb"), (
        f"release/ is stale: run `nbgrader generate_assignment {LESSON} --force` and commit it"
    )
    text = (committed / f"{LESSON}.ipynb").read_text(encoding="utf-8")
    assert "BEGIN SOLUTION" not in text and "_relu_chain_kernel" not in text
    assert "def fused_chain(x):" in text and "raise NotImplementedError()" in text
