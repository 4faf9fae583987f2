"""Starting over, as a student does it: the released notebook run in a real Jupyter kernel, a cell with
``L.start_over()`` added and run, prediction cells run again; then the submission graded.

A quantity measured before the restart and committed again with another value is graded as *committed
after starting over* (its own flag and policy); the very value committed before measuring costs nothing;
a quantity never measured before the restart is a plain change of mind; one not committed again is missing.
"""

from __future__ import annotations

import shutil

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.batch.fast import grade_class
from autograder.course import Course
from autograder.grading.policy import GradingPolicy
from autograder.ledger import verify_chains
from autograder.records import LEDGER_MIME
from autograder.sample.execute import copy_lesson_files
from autograder.sample.fill import fill_predictions
from autograder.storage.records_store import RecordStore

GPU, WALL, SMALL, FP32 = "gpu_speedup@fp16,2^24", "wall_speedup@fp32,2^30", "wall_2^20_vs_2^28@fp16", "fp32_vs_fp16@2^24"
FIRST = {
    GPU: (3.9, "fused moves 2·N·s bytes instead of 8·N·s"),
    WALL: (3.7, "at 2^28 the kernels outlast dispatch"),
    SMALL: ("lower", "2 MB is launch overhead"),
    FP32: ("same", "both dtypes are memory-bound"),
}


def _cell(nb, grade_id):
    return next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _refill(nb, i, answers, clear=()):
    """The prediction cell ``i`` back to its released stubs, then filled with ``answers`` (``clear``: left
    as stubs, not committed)."""
    import re

    src = nb.cells[i].source
    for q in [*answers, *clear]:
        src = re.sub(r'("' + re.escape(q) + r'",\s*\n\s*)(.*?), because=(".*?"|\'.*?\'),',
                     lambda m: m.group(1) + 'None, because="",  # <- your prediction', src, count=1)
    tmp = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src)])
    assert fill_predictions(tmp, answers) == []
    nb.cells[i].source = tmp.cells[0].source


def _text(cell) -> str:
    return "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in cell.outputs)


@pytest.fixture(scope="module")
def started_over(tmp_path_factory, course_template):
    course = tmp_path_factory.mktemp("restart") / "course"
    shutil.copytree(course_template, course)
    work = copy_lesson_files(course / "release/04_fusion", tmp_path_factory.mktemp("student"))
    nb = nbformat.read(str(course / "release/04_fusion/04_fusion.ipynb"), as_version=4)
    assert fill_predictions(nb, FIRST) == []
    setup, headline, measure, small, fp32, measure32, status = (
        _cell(nb, g)
        for g in ("setup", "predict_headline", "measure_headline", "predict_small", "predict_fp32", "measure_fp32",
                  "status")
    )
    # the student's own cell, added below the setup cell
    nb.cells.insert(setup + 1, nbformat.v4.new_code_cell('L.start_over(because="I ran my cells out of order")'))
    restart = setup + 1
    headline, measure, small, fp32, measure32, status = (
        i + 1 for i in (headline, measure, small, fp32, measure32, status)
    )
    client = NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(work)}})
    with client.setup_kernel():
        for i in (setup, headline, small, fp32, measure, measure32):  # predicted, then measured 2^24 twice
            client.execute_cell(nb.cells[i], i)
        client.execute_cell(nb.cells[restart], restart)
        restart_out = _text(nb.cells[restart])
        client.execute_cell(nb.cells[measure], measure)  # nothing committed since: refused
        refused = _text(nb.cells[measure])
        # the peeked value for the gpu speedup, the same fp32 direction as before measuring, a new small-size
        # direction (never measured), and the 2^28 speedup left uncommitted
        _refill(nb, headline, {GPU: (3.3, "what I measured on my machine")})
        _refill(nb, fp32, {FP32: FIRST[FP32]})
        _refill(nb, small, {SMALL: ("higher", "on second thought the guards cost less")}, clear=[WALL])
        for i in (headline, fp32, small, measure, status):
            client.execute_cell(nb.cells[i], i)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    folder = course / "submitted" / "restarter" / "04_fusion"
    folder.mkdir(parents=True)
    nbformat.write(nb, str(folder / "04_fusion.ipynb"))
    result = grade_class(Course.at(course), "04_fusion", GradingPolicy(), workers=1)
    assert not result.failed
    record = RecordStore(course / "records").load("04_fusion", "restarter")
    return nb, restart_out, refused, _text(nb.cells[headline]), _text(nb.cells[status]), record


def test_the_notebook_records_the_restart_and_refuses_to_measure_until_recommitted(started_over):
    nb, restart_out, refused, headline_out, _, _ = started_over
    assert "started over at #" in restart_out and "the 4 prediction(s) committed before no longer count" in restart_out
    assert GPU in restart_out and FP32 in restart_out  # measured before starting over
    assert "not measured yet" in refused and GPU in refused
    assert "marked started_over_after_measurement" in headline_out
    chains = [o.data[LEDGER_MIME]["chain"] for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if LEDGER_MIME in o.get("data", {})]
    verdict, chain = verify_chains(chains)
    assert verdict.status == "ok" and verdict.restarts == 1
    assert [e.kind for e in chain].count("restart") == 1 and chain[0].kind == "genesis"
    assert len([e for e in chain if e.kind == "prediction"]) == 4 + 3  # nothing removed


def test_status_shows_the_restart_in_its_own_words(started_over):
    _, _, _, _, status, _ = started_over
    assert "restarted" in status and "committed after starting over; you had measured this before" in status
    assert "not committed since you started over" in status  # the 2^28 speedup: not committed again
    assert "you started over once" in status


def test_graded_record_shows_each_verdict(started_over):
    *_, record = started_over
    assert record.chain.status == "ok" and record.chain.restarts == 1
    assert "started_over:1" in record.flags
    by = {p.quantity: p for p in record.predictions}
    # measured before the restart, committed again with another value: its own flag and reason, costed
    gpu = by[GPU]
    assert gpu.flags == ["started_over_after_measurement"]
    assert "committed after starting over; you had measured this before → 50% of that kept" in gpu.reason
    assert "revised after" not in gpu.reason and "committed after you had measured" not in gpu.reason
    assert f"started_over_after_measurement:{GPU}" in record.flags
    # measured before, committed again with the value committed before measuring: graded normally
    assert by[FP32].flags == [] and "starting over" not in by[FP32].reason
    # never measured before the restart: a change of mind, graded normally
    assert by[SMALL].predicted == "higher" and by[SMALL].flags == [] and "starting over" not in by[SMALL].reason
    # committed only before the restart: missing, and told why
    assert by[WALL].points == 0 and by[WALL].flags == ["missing"]
    assert "since you started over" in by[WALL].reason and "no longer counts" in by[WALL].reason


def test_start_over_is_inert_when_graded_or_validated(tmp_path, repo, monkeypatch, capsys):
    from autograder.errors import PredictionError
    from autograder.lesson import Lesson

    for name in ("lesson.toml", "workload.py"):
        shutil.copy2(repo / "source/04_fusion" / name, tmp_path)
    for mode, says in (("autograde", "(grading) start_over"), ("validate", "(validating) start_over")):
        monkeypatch.setenv("NBGRADER_EXECUTION", mode)
        L = Lesson.load(tmp_path)
        before = list(L.chain)
        L.start_over()
        assert says in capsys.readouterr().out and L.chain == before
    monkeypatch.delenv("NBGRADER_EXECUTION")
    L = Lesson.load(tmp_path)
    L.start_over()
    assert "nothing to start over" in capsys.readouterr().out and len(L.chain) == 1
    with pytest.raises(PredictionError, match="not started over"):
        L.start_over(because=["a list"])  # type: ignore[arg-type]
