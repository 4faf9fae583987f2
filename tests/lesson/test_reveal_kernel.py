"""Nothing is revealed before it is committed, as a student meets it: the released 04_fusion notebook in a
real Jupyter kernel. Run All on the blank release prints no timing at all (fp32 included: the direction
quantity compares it with fp16) and seals nothing; once every prediction is committed the fp32 cell shows
its timings and seals the direction, first as seen in part, then with its value."""

from __future__ import annotations

import re

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.authoring.reveals import REFUSAL
from autograder.ledger import committed_predictions, verify_chains
from autograder.lesson._output import SHOWN_KEY
from autograder.records import LEDGER_MIME
from autograder.sample.execute import copy_lesson_files
from autograder.sample.fill import fill_predictions

GPU, WALL, SMALL, FP32 = "gpu_speedup@fp16,2^24", "wall_speedup@fp32,2^30", "wall_2^20_vs_2^28@fp16", "fp32_vs_fp16@2^24"
ANSWERS = {
    GPU: (3.9, "fused moves 2·N·s bytes instead of 8·N·s"),
    WALL: (3.7, "at 2^28 the kernels outlast dispatch"),
    SMALL: ("lower", "2 MB is launch overhead"),
    FP32: ("same", "both dtypes are memory-bound"),
}
pytestmark = pytest.mark.slow


def _at(nb, grade_id: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _text(cell) -> str:
    return "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in cell.outputs)


def _chain(nb):
    copies = [o.data[LEDGER_MIME]["chain"] for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if LEDGER_MIME in o.get("data", {})]
    verdict, chain = verify_chains(copies)
    assert verdict.status == "ok", verdict
    return chain


def _shown(cell) -> list[dict]:
    return [o.metadata[SHOWN_KEY] for o in cell.outputs if SHOWN_KEY in o.get("metadata", {})]


@pytest.fixture(scope="module")
def blank_run_all(repo, tmp_path_factory):
    release = repo / "release/04_fusion"
    work = copy_lesson_files(release, tmp_path_factory.mktemp("blank"))
    nb = nbformat.read(str(release / "04_fusion.ipynb"), as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(work)}}).execute()
    return nb


def test_run_all_on_the_blank_release_prints_no_timing(blank_run_all):
    nb = blank_run_all
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    for gid in ("measure_headline", "measure_sweep", "measure_largest", "measure_fp32"):
        cell = nb.cells[_at(nb, gid)]
        out = _text(cell)
        assert out.startswith(REFUSAL) and "work model" not in out and " ms" not in out, (gid, out)
        assert _shown(cell) == []
    fp32 = _text(nb.cells[_at(nb, "measure_fp32")])
    assert fp32.strip() == (
        "✋ not measured yet: this would reveal fp32_vs_fp16@2^24, which you have not predicted. Commit your "
        'prediction first (in the L.predict("fp32_vs_fp16@2^24", …) cell: replace None, run it), then run this '
        "cell again."
    )
    everything = "".join(_text(c) for c in nb.cells if c.cell_type == "code")
    assert "work model" not in everything and "  measured " not in everything and "sealed " not in everything
    assert not re.search(r"\d\.\d{4}", everything)  # no timing (measure prints ms to 4 decimals)
    assert not any(_shown(c) for c in nb.cells if c.cell_type == "code")


def test_run_all_on_the_blank_release_seals_nothing_and_status_says_so(blank_run_all):
    nb = blank_run_all
    assert [e.kind for e in _chain(nb)] == ["genesis"]
    status = _text(nb.cells[_at(nb, "status")])
    assert "0/4 predictions committed and valid" in status
    assert status.count("no prediction committed") == 4


def test_once_committed_the_fp32_cell_shows_and_seals(repo, tmp_path):
    release = repo / "release/04_fusion"
    work = copy_lesson_files(release, tmp_path / "student")
    nb = nbformat.read(str(release / "04_fusion.ipynb"), as_version=4)
    assert fill_predictions(nb, ANSWERS) == []
    cells = [_at(nb, g) for g in ("setup", "predict_headline", "predict_fp32", "predict_small")]
    fp32, headline, status = _at(nb, "measure_fp32"), _at(nb, "measure_headline"), _at(nb, "status")
    client = NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(work)}})
    with client.setup_kernel():
        for i in cells:
            client.execute_cell(nb.cells[i], i)
        client.execute_cell(nb.cells[fp32], fp32)  # out of order: only fp32 measured in this kernel
        after_fp32 = _chain(nb)
        fp32_out = _text(nb.cells[fp32])
        client.execute_cell(nb.cells[headline], headline)
        client.execute_cell(nb.cells[status], status)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    assert REFUSAL not in fp32_out and "work model" in fp32_out and "float32" in fp32_out
    assert f"sealed {FP32}: you have seen part of it" in fp32_out
    shown = _shown(nb.cells[fp32])
    assert len(shown) == 1 and {c["params"]["dtype"] for c in shown[0]["cases"]} == {"float32"}
    sealed = [(e.quantity, e.value) for e in after_fp32 if e.kind == "measurement"]
    assert sealed == [(FP32, None)]  # seen, so sealed, though it cannot be derived yet
    chain = _chain(nb)
    measured = {e.quantity: e.value for e in chain if e.kind == "measurement" and e.value is not None}
    assert set(measured) == {GPU, FP32} and measured[FP32] in ("higher", "lower", "same")
    preds = committed_predictions(chain)
    assert not any(p.revised_after_measurement for p in preds.values())
    status_out = _text(nb.cells[status])
    assert "4/4 predictions committed and valid; notebook OK" in status_out
