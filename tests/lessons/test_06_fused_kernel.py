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

from autograder import Course, GradingPolicy, RecordStore, grade_class
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


def _rows(db: Path, students) -> dict[tuple[str, ...], object]:
    """Every automatic score, manual-grading flag and comment of the lesson's notebook in nbgrader's gradebook
    (read through nbgrader's own API), keyed (student, cell[, "manual" | "comment"])."""
    from nbgrader.api import Gradebook

    out: dict[tuple[str, ...], object] = {}
    with Gradebook(f"sqlite:///{db}") as gb:
        for student in students:
            nb = gb.find_submission_notebook(LESSON, LESSON, student)
            for g in nb.grades:
                out[(student, g.name)] = g.auto_score
                out[(student, g.name, "manual")] = g.needs_manual_grade
            for c in nb.comments:
                out[(student, c.name, "comment")] = c.auto_comment
    return out


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
    want = _rows(course06.root / "gradebook.db", SAMPLES)  # not the careful student added after the copy
    got = _rows(native / "gradebook.db", SAMPLES)
    assert got == want
    graded = ("grade_kernel_share", "grade_kernel_speedup", "grade_kernel_correct", "grade_kernel_performance")
    assert {(s, g) for s in SAMPLES for g in graded} <= set(got)
    assert got[("instructor", "grade_kernel_performance")] == 4.0
    assert got[("wrong", "grade_kernel_correct")] == 0.0
    # in the executed notebook, the measure cell shows what the grader measured instead of measuring
    executed = nbformat.read(str(native / "autograded" / "instructor" / LESSON / f"{LESSON}.ipynb"), as_version=4)
    shown = "".join(
        str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
        for c in executed.cells if c.cell_type == "code" and "measure_student" in c.source for o in c.outputs
    )
    assert "was run by the grader" in shown and "correctness: your fused_chain matched" in shown, shown


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


# ---------------------------------------------------------------- the bands against the H200 probe's numbers

#: the integrator's H200 probe (SIGNAL-probe06: benchmarks/results/h200-2026-12-01b/), fp16 2^26, gpu_time ms
H200_COPY_GBPS, H200_EAGER_MS = 4151.0, 0.26328
H200_KERNEL_MS = {"instructor": 0.06530, "block32": 1.27667, "torch_loop": 0.26328}


def _h200_result(case, ms):
    from autograder.kernels import CaseResult, KernelResult
    from autograder.records import Case, Measurement, summarize

    samples = [ms * 0.995, ms, ms * 1.005]
    m = Measurement(case=Case(variant="student", params=case), method="gpu_time", samples_ms=samples,
                    stats=summarize(samples), bytes_moved=0)
    return KernelResult(verdict="ok", family=None, reason="correct", seconds=2.0,
                        cases=(CaseResult(case=case, measurement=m, max_error=0.0, external_ms=ms),))


@pytest.mark.parametrize(
    "name, correct, performance, predictions",
    [("instructor", 2.0, 4.0, 4.0), ("block32", 2.0, 0.0, 0.0), ("torch_loop", 2.0, (0.4, 1.0), 0.0)],
)
def test_on_the_h200_probe_numbers_each_kernel_gets_what_a_ta_would_give(
    tmp_path, name, correct, performance, predictions
):
    """The grader's H200 measurements of the three correct kernels, as the probe measured them (stored as the
    kernels' results, which grading reads before running anything): the instructor's kernel and predictions
    (0.95 of the roofline, 4.0x) earn everything; blocks of 32 (5% of the roofline, slower than eager) earn
    correctness only; torch ops at eager's speed (a quarter of the roofline on a fused kernel's bytes) a
    little performance credit; neither earns the instructor's predictions."""
    from autograder.grading.grade import grade_quantity
    from autograder.grading.reader import read_notebook_node
    from autograder.grading.student_kernel import grade_student_kernel, kernel_task, result_key, results_folder
    from autograder.records import Case, DeviceFingerprint, Measurement, ReferenceRun, summarize
    from autograder.spec import load_spec

    spec = load_spec(REPO / "source" / LESSON).for_device("cuda")
    path = REPO / "release" / LESSON / f"{LESSON}.ipynb"
    nb = _submission(nbformat.read(str(path), as_version=4), SAMPLES[name], {SHARE: 0.95, SPEEDUP: 4.0})
    release = json.loads(nbformat.writes(nbformat.read(str(path), as_version=4)))
    reading = read_notebook_node(json.loads(nbformat.writes(nb)), spec, "sha", release)
    h200 = DeviceFingerprint(kind="cuda", key="nvidia-h200", name="NVIDIA H200", torch="2.13.0", python="3.11",
                             copy_gbps=H200_COPY_GBPS, copy_bytes=1 << 30)
    case = {"dtype": "float16", "log2_n": 26}
    eager = [H200_EAGER_MS * f for f in (0.99, 1.0, 1.01)]
    ref = ReferenceRun(
        assignment=LESSON, device=h200, created_at=datetime(2026, 12, 1, tzinfo=timezone.utc), duration_s=1.0,
        quantities={}, measurements=[Measurement(case=Case(variant="eager", params=case), method="gpu_time",
                                                 samples_ms=eager, stats=summarize(eager), bytes_moved=8 << 27)],
    )
    task = kernel_task(spec, "cuda", SAMPLES[name], 0)
    folder = results_folder(tmp_path, spec, "nvidia-h200")
    folder.mkdir(parents=True)
    (folder / f"{result_key(task)}.json").write_text(_h200_result(case, H200_KERNEL_MS[name]).model_dump_json())
    policy = GradingPolicy()
    before = [grade_quantity(q.id, reading, spec, ref, "", policy) for q in spec.quantities]
    g = {p.grade_id: p for p in grade_student_kernel(reading, spec, ref, "", policy, before, tmp_path, grade_quantity)}
    assert g["grade_kernel_correct"].points == correct
    perf = g["grade_kernel_performance"].points
    assert (performance[0] <= perf <= performance[1]) if isinstance(performance, tuple) else perf == performance, (
        g["grade_kernel_performance"].reason
    )
    assert g["grade_kernel_share"].points + g["grade_kernel_speedup"].points == predictions, (
        g["grade_kernel_share"].reason, g["grade_kernel_speedup"].reason
    )
    assert "NVIDIA H200" in g["grade_kernel_share"].reason and "4,151 GB/s" in g["grade_kernel_performance"].reason
