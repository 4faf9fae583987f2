"""The lesson API outside Jupyter (it prints instead of displaying); measurements are real, on the CPU."""

import shutil

import pytest

from autograder.errors import PredictionError
from autograder.lesson import Lesson
from autograder.lesson.student_mode import MEASUREMENT_LOG
from autograder.records import Measurement


@pytest.fixture()
def lesson_dir(tmp_path, repo):
    for name in ("lesson.toml", "workload.py"):
        shutil.copy2(repo / "source/04_fusion" / name, tmp_path)
    return tmp_path


def test_predict_refuses_what_cannot_be_graded(lesson_dir, capsys):
    L = Lesson.load(lesson_dir)
    for bad in ("about 3x", float("nan"), -1.0, 0.0):
        with pytest.raises(PredictionError, match="not committed"):
            L.predict("gpu_speedup@fp16,2^24", bad, because="x")
    with pytest.raises(PredictionError, match="because"):
        L.predict("gpu_speedup@fp16,2^24", 3.0)
    with pytest.raises(PredictionError, match="higher, lower, same"):
        L.predict("fp32_vs_fp16@2^24", "faster", because="x")
    L.predict("gpu_speedup@fp16,2^24", None)
    assert "no prediction yet" in capsys.readouterr().out
    assert len(L.chain) == 1  # nothing committed


def test_commit_resume_and_revision(lesson_dir, capsys):
    L = Lesson.load(lesson_dir)
    L.predict("wall_speedup@fp32,2^30", 0.8, because="kernels outlast dispatch at 2^30")
    L.predict("wall_speedup@fp32,2^30", 0.8, because="kernels outlast dispatch at 2^30")  # re-run: nothing new
    assert len(L.chain) == 2
    # a kernel restart resumes the chain from the sidecar
    L2 = Lesson.load(lesson_dir)
    assert [e.hash for e in L2.chain] == [e.hash for e in L.chain]
    L2.mode._append("measurement", "wall_speedup@fp32,2^30", 0.5, meta={"device_key": "cpu"})
    capsys.readouterr()
    L2.predict("wall_speedup@fp32,2^30", 0.5, because="saw it")
    assert "revised_after_measurement" in capsys.readouterr().out
    L2.status()
    assert "revised" in capsys.readouterr().out


def test_measure_on_cpu_records_both_methods(lesson_dir, capsys):
    L = Lesson.load(lesson_dir)
    L.predict("wall_speedup@fp32,2^30", 0.8, because="dispatch-bound")
    L.measure("float32", 28)
    out = capsys.readouterr().out
    assert "wall_per_call" in out and "gpu_time" in out and "work model: eager 4 launches" in out
    kinds = [(e.kind, e.quantity) for e in L.chain]
    assert ("measurement", "wall_speedup@fp32,2^30") in kinds
    assert L.grade("wall_speedup@fp32,2^30") is None  # a preview for the student, not points


def test_each_measurement_is_logged_where_the_environment_asks(lesson_dir, monkeypatch, tmp_path, capsys):
    """AUTOGRADER_MEASUREMENT_LOG: the notebook-vs-bench benchmark reads every raw measurement back."""
    log = tmp_path / "made.jsonl"
    monkeypatch.setenv(MEASUREMENT_LOG, str(log))
    L = Lesson.load(lesson_dir)
    L.predict("wall_speedup@fp32,2^30", 0.8, because="dispatch-bound")
    L.measure("float32", 28)
    made = [Measurement.model_validate_json(line) for line in log.read_text().splitlines()]
    assert {m.case.variant for m in made} == {"eager", "compiled"}
    assert {m.method for m in made} == {"wall_per_call", "gpu_time"} and all(m.samples_ms for m in made)
    L.measure("float32", 28)  # the same point again is not measured again, so not logged again
    assert len(log.read_text().splitlines()) == len(made)


def test_measuring_before_predicting_reveals_nothing_and_costs_nothing(lesson_dir, capsys):
    """Run All with the predictions still empty: the measure cell refuses, so committing afterwards is a
    plain commitment, not a revision."""
    L = Lesson.load(lesson_dir)
    L.predict("wall_speedup@fp32,2^30", None)
    L.measure("float32", 28)
    out = capsys.readouterr().out
    assert "not measured yet" in out and "wall_speedup@fp32,2^30" in out and "wall_per_call" not in out
    assert [e.kind for e in L.chain] == ["genesis"]
    L.predict("wall_speedup@fp32,2^30", 0.8, because="kernels outlast dispatch at 2^30")
    L.measure("float32", 28)
    from autograder.ledger import committed_predictions

    assert not committed_predictions(L.chain)["wall_speedup@fp32,2^30"].revised_after_measurement


def test_nbgrader_validate_never_touches_the_ledger(lesson_dir, repo, tmp_path):
    import subprocess
    import sys

    import nbformat

    from autograder.sample.fill import fill_predictions

    L = Lesson.load(lesson_dir)
    L.predict("gpu_speedup@fp16,2^24", 3.9, because="4x less traffic")
    before = (lesson_dir / ".04_fusion.ledger.json").read_bytes()
    nb = nbformat.read(str(repo / "release/04_fusion/04_fusion.ipynb"), as_version=4)
    fill_predictions(nb, {"gpu_speedup@fp16,2^24": (3.5, "changed my mind in the saved file")})
    path = lesson_dir / "04_fusion.ipynb"
    nbformat.write(nb, str(path))
    r = subprocess.run(
        [sys.executable, "-m", "nbgrader", "validate", str(path)], capture_output=True, text=True, cwd=tmp_path,
        timeout=600,
    )
    assert "Traceback" not in r.stdout, r.stdout[-2000:]
    assert (lesson_dir / ".04_fusion.ledger.json").read_bytes() == before


def test_graded_notebook_shows_own_measurement_next_to_the_device_of_record(lesson_dir, h200, monkeypatch, capsys):
    """Under nbgrader autograde the measure cell does not measure again: the feedback notebook shows what the
    student measured on their own device next to the device of record's value."""
    from datetime import datetime, timezone

    from autograder.grading.policy import GradingPolicy
    from autograder.grading.reader import SubmissionReading
    from autograder.ledger import append, genesis, verify_chains
    from autograder.storage.context import GradingContext

    t = datetime(2026, 11, 30, tzinfo=timezone.utc)
    chain = [genesis("04_fusion", "n" * 32, t)]
    chain.append(append(chain, "measurement", "gpu_speedup@fp16,2^24", 2.5, t, meta={"device_name": "Tesla T4"}))
    verdict, entries = verify_chains([[e.model_dump(mode="json") for e in chain]])
    ctx = GradingContext(reading=SubmissionReading(verdict=verdict, entries=entries), reference=h200,
                         policy=GradingPolicy())
    ctx.write(lesson_dir)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    L = Lesson.load(lesson_dir)
    capsys.readouterr()
    L.measure("float16", 24)
    out = capsys.readouterr().out
    assert "gpu_speedup@fp16,2^24: you 2.50× on Tesla T4; NVIDIA H200: 3.96×" in out
    assert "fp32_vs_fp16@2^24: you not measured; NVIDIA H200: same" in out
    assert "wall_speedup@fp32,2^30" not in out  # not measured by this cell


def test_check_says_when_the_notebook_was_not_saved(lesson_dir, repo):
    from typer.testing import CliRunner

    from autograder.cli import app

    L = Lesson.load(lesson_dir)
    L.predict("gpu_speedup@fp16,2^24", 3.9, because="4x less traffic")
    nb = lesson_dir / "04_fusion.ipynb"
    nb.write_bytes((repo / "release/04_fusion/04_fusion.ipynb").read_bytes())  # as released: never saved since
    r = CliRunner().invoke(app, ["check", str(nb)])
    out = " ".join(r.output.split())
    assert r.exit_code == 1 and "the notebook file is not saved" in out and "notebook OK" not in out


def test_half_of_a_direction_is_not_shown_before_the_direction_is_predicted(lesson_dir, capsys):
    """fp16 at 2^24 is one side of the fp32-vs-fp16 direction, fp32 at 2^24 the other: either reveals it,
    whatever was measured before (the old rule let fp32 through while fp16 had not been measured)."""
    L = Lesson.load(lesson_dir)
    L.measure("float32", 24)  # Run All on the blank notebook: nothing committed
    out = capsys.readouterr().out
    assert "✋ not measured yet: this would reveal fp32_vs_fp16@2^24, which you have not predicted" in out
    assert 'L.predict("fp32_vs_fp16@2^24", …) cell' in out and "work model" not in out
    L.predict("gpu_speedup@fp16,2^24", 3.9, because="4x less traffic")
    capsys.readouterr()
    L.measure("float16", 24)
    out = capsys.readouterr().out
    assert "would reveal fp32_vs_fp16@2^24," in out and "work model" not in out
    assert [e.kind for e in L.chain] == ["genesis", "prediction"]


def test_a_shown_half_is_sealed_and_a_later_change_is_a_revision(lesson_dir, capsys):
    """What is shown is sealed even when the quantity cannot be derived yet (its other side unmeasured)."""
    from autograder.grading.checklist import checklist
    from autograder.ledger import committed_predictions

    L = Lesson.load(lesson_dir)
    L.predict("fp32_vs_fp16@2^24", "same", because="both memory-bound")
    L.measure("float32", 24)  # belongs to no other quantity: shown
    out = capsys.readouterr().out
    assert "work model" in out and "sealed fp32_vs_fp16@2^24: you have seen part of it" in out
    sealed = [e for e in L.chain if e.kind == "measurement"]
    assert [(e.quantity, e.value) for e in sealed] == [("fp32_vs_fp16@2^24", None)]
    assert "float32" in sealed[0].meta["shown"] and "2^24" in sealed[0].meta["shown"]
    rows, _ = checklist(L.mode.reading(), L.spec)
    row = next(r for r in rows if r.quantity == "fp32_vs_fp16@2^24")
    assert row.state == "committed" and row.note == "you have seen part of it"
    L.predict("fp32_vs_fp16@2^24", "higher", because="fp32 gave a big speedup")
    assert committed_predictions(L.chain)["fp32_vs_fp16@2^24"].revised_after_measurement
    rows, _ = checklist(L.mode.reading(), L.spec)
    assert next(r for r in rows if r.quantity == "fp32_vs_fp16@2^24").state == "revised"


def test_a_lesson_declares_what_else_reveals_a_quantity(lesson_dir, capsys):
    """[reveals] in lesson.toml: here the 2^16 point gives the largest case's per-call speedup away."""
    from autograder.errors import LessonSpecError
    from autograder.spec import load_spec

    toml = lesson_dir / "lesson.toml"
    base = toml.read_text(encoding="utf-8")
    toml.write_text(base + '\n[reveals]\n"wall_speedup@fp32,2^30" = [{ dtype = "float16", log2_n = 16 }]\n',
                    encoding="utf-8")
    L = Lesson.load(lesson_dir)
    L.measure("float16", 16)
    out = capsys.readouterr().out
    assert "this would reveal wall_speedup@fp32,2^30, which you have not predicted" in out
    L.predict("wall_speedup@fp32,2^30", 0.8, because="dispatch-bound")
    L.measure("float16", 16)
    out = capsys.readouterr().out
    assert "work model" in out and "sealed wall_speedup@fp32,2^30: you have seen part of it" in out
    toml.write_text(base + '\n[reveals]\n"no_such" = [{ log2_n = 16 }]\n', encoding="utf-8")
    with pytest.raises(LessonSpecError, match=r"\[reveals\] names unknown quantities: \['no_such'\]"):
        load_spec(lesson_dir)
    toml.write_text(base + '\n[reveals]\n"wall_speedup@fp32,2^30" = [{ size = 16 }]\n', encoding="utf-8")
    assert any("[reveals] 'wall_speedup@fp32,2^30'" in p and "unknown: ['size']" in p
               for p in load_spec(lesson_dir).problems())


def test_each_mode_is_its_own_object_and_names_itself(lesson_dir, monkeypatch, capsys):
    """The facade hands every call to the object of its mode: validating says so (not "(grading)"), and
    neither mode measures or writes a ledger."""
    from autograder.lesson.grading_mode import GradingMode
    from autograder.lesson.validate_mode import ValidateMode

    for execution, mode, says in (
        ("validate", ValidateMode, "(validating) device measurement skipped"),
        ("autograde", GradingMode, "(grading) device measurement skipped"),
    ):
        monkeypatch.setenv("NBGRADER_EXECUTION", execution)
        L = Lesson.load(lesson_dir)
        assert type(L.mode) is mode
        L.device()
        L.measure("float16", 24)
        out = capsys.readouterr().out
        assert says in out
        assert ("(grading)" not in out) if execution == "validate" else ("(validating)" not in out)
    assert not (lesson_dir / ".04_fusion.ledger.json").exists()
