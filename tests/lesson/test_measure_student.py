"""L.measure_student: the student's own kernel checked and timed on this CPU (Triton's interpreter), next to
eager, refused until what it reveals is predicted, and sealed in the ledger like any measurement."""

import json
import shutil

import pytest

from autograder.ledger import measured_values
from autograder.lesson import Lesson

pytest.importorskip("triton", reason="lesson 06's kernel is a Triton kernel (TRITON_INTERPRET=1 on a CPU)")

LESSON = "06_fused_kernel"
SHARE, SPEEDUP = "share@fp16,2^26", "speedup_vs_eager@fp16,2^26"


@pytest.fixture()
def lesson_dir(tmp_path, repo):
    for name in ("lesson.toml", "workload.py"):
        shutil.copy2(repo / "source" / LESSON / name, tmp_path)
    return tmp_path


def _instructor_kernel(repo):
    nb = json.loads((repo / "source" / LESSON / f"{LESSON}.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "answer_kernel")
    scope: dict = {}
    exec(compile("".join(cell["source"]), "<answer_kernel>", "exec"), scope)  # the instructor's cell
    return scope["fused_chain"]


@pytest.mark.slow  # times a Triton kernel in its interpreter and measures this CPU's copy roofline
def test_refused_until_both_predictions_are_committed_then_measured_and_sealed(lesson_dir, repo, capsys):
    L = Lesson.load(lesson_dir)
    fused_chain = _instructor_kernel(repo)
    L.predict(SHARE, 0.95, because="one read and one write, far beyond the L2")
    capsys.readouterr()
    L.measure_student(fused_chain)
    out = capsys.readouterr().out
    assert "not measured yet" in out and SPEEDUP in out and "ms" not in out
    assert measured_values(L.chain) == {}
    L.predict(SPEEDUP, 4.0, because="a quarter of eager's bytes")
    L.measure_student(fused_chain)
    out = capsys.readouterr().out
    assert "your fused_chain ms" in out and "eager/yours" in out and "copy roofline" in out
    assert "work model: yours 1 launch" in out
    sealed = measured_values(L.chain)
    assert set(sealed) == {SHARE, SPEEDUP}
    assert 0 < float(sealed[SHARE].value) < 1.5 and float(sealed[SPEEDUP].value) > 0
    assert sealed[SHARE].meta["device_key"] == "cpu"


def test_a_wrong_kernel_is_not_timed_and_says_where_it_differs(lesson_dir, capsys):
    import torch

    L = Lesson.load(lesson_dir)
    L.predict(SHARE, 0.95, because="x")
    L.predict(SPEEDUP, 4.0, because="x")
    capsys.readouterr()
    L.measure_student(lambda x: torch.relu(x * 2.0 + 1.0))
    out = capsys.readouterr().out
    assert "✘ not measured" in out and "differs from the reference" in out
    L.measure_student(lambda x: 1 / 0)
    assert "raised ZeroDivisionError" in capsys.readouterr().out
    L.measure_student("fused_chain")
    assert "takes your function" in capsys.readouterr().out
    assert measured_values(L.chain) == {}


def test_grade_kernel_is_a_note_for_the_student(lesson_dir, capsys):
    L = Lesson.load(lesson_dir)
    assert L.grade_kernel("performance") is None
    assert "graded when you submit" in capsys.readouterr().out
    assert L.grade_kernel("style") is None
    assert "no such part" in capsys.readouterr().out
