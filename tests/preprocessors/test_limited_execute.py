"""nbgrader autograde with the project's config on notebooks that misbehave when executed: each fails
alone, with a verdict in its record, and the others are graded as usual. Among them a notebook that prints
1 GiB (it must cost neither the student their record nor the grader its memory) and one that ignores every
interrupt until the notebook's deadline."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import datetime, timezone

import nbformat
import pytest

from autograder.bench.store import ReferenceStore
from autograder.course import Course
from autograder.sample.generate import PERSONAS, make_submission
from autograder.storage.records_store import RecordStore

pytestmark = pytest.mark.slow

BAD_CELLS = {
    "looper": "while True:\n    pass",
    "bomber": "hog = bytearray(6 << 30)",
    "writer": "open('../../../records/pwned.txt', 'w').write('x')",
    # 1 GiB in all: 64 flushed writes of 16 MiB, and one single 48 MiB message (over max_message_mb)
    "bigprinter": "import sys\nfor _ in range(64):\n    sys.stdout.write('y' * (16 << 20))\n    sys.stdout.flush()\n"
    "print('z' * (48 << 20))",
    "stubborn": "import time\nwhile True:\n    try:\n        time.sleep(100)\n    except KeyboardInterrupt:\n        pass",
}
NOTEBOOK_TIMEOUT = 70
# runs the grader and says the largest resident size of it and of every process under it (kernels included)
PEAK = ("import resource, subprocess, sys; rc = subprocess.run(sys.argv[1:]).returncode; "
        "print('peak-rss-kib', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(rc)")


@pytest.fixture(scope="module")
def autograded(tmp_path_factory, course_template):
    root = tmp_path_factory.mktemp("limits") / "course"
    shutil.copytree(course_template, root)
    c = Course.at(root)
    spec = c.spec("04_fusion")
    ref = ReferenceStore(c.references).load("04_fusion", "nvidia-h200")
    release = nbformat.read(str(root / "release/04_fusion/04_fusion.ipynb"), as_version=4)
    start = datetime(2026, 11, 28, tzinfo=timezone.utc)
    for i, student in enumerate(["good", *BAD_CELLS]):
        nb = make_submission(release, spec, ref, PERSONAS[0], seed=40 + i, start=start)
        if student in BAD_CELLS:
            nb.cells.insert(2, nbformat.v4.new_code_cell(BAD_CELLS[student]))
        folder = c.submitted / student / "04_fusion"
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / "04_fusion.ipynb"))
    (c.records / "04_fusion").mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-c", PEAK, sys.executable, "-m", "nbgrader", "autograde", "04_fusion",
                           "--LimitedExecute.timeout=25", "--LimitedExecute.memory_limit_mb=2048",
                           f"--LimitedExecute.notebook_timeout={NOTEBOOK_TIMEOUT}"],
                          cwd=root, capture_output=True, text=True, timeout=900)
    peak_kib = int(proc.stderr.rsplit("peak-rss-kib ", 1)[1].split()[0])
    return c, proc, peak_kib


def test_the_batch_goes_on_and_every_notebook_is_graded(autograded):
    c, proc, _ = autograded
    assert proc.returncode == 0, proc.stderr[-3000:]
    store = RecordStore(c.records)
    assert {r.student for r in store.all("04_fusion")} == {"good", *BAD_CELLS}


@pytest.mark.parametrize("student, flag, words", [
    ("looper", "execution_timeout", "CellTimeoutError"),
    ("bomber", "execution_memory", "MemoryError"),
    ("writer", "execution_denied", "pwned.txt"),  # the sandbox hides records/: the write fails
])
def test_each_misbehaving_notebook_gets_a_clear_verdict(autograded, student, flag, words):
    c, _, _ = autograded
    record = RecordStore(c.records).load("04_fusion", student)
    assert flag in record.flags
    assert any(words in e for e in record.errors)
    assert record.total > 0  # graded on what it has: the predictions in its ledger still count


def test_the_good_notebook_is_untouched(autograded):
    c, _, _ = autograded
    good = RecordStore(c.records).load("04_fusion", "good")
    assert not [f for f in good.flags if f.startswith("execution_")] and good.total > 0


def test_a_1_gib_print_costs_neither_the_record_nor_the_graders_memory(autograded):
    c, _, peak_kib = autograded
    record = RecordStore(c.records).load("04_fusion", "bigprinter")
    assert "execution_output" in record.flags and record.total > 0
    assert any("of output; the first 1024 KiB are kept" in e for e in record.errors), record.errors
    nb = c.root / "autograded/bigprinter/04_fusion/04_fusion.ipynb"
    assert nb.stat().st_size < 2 << 20
    assert "[output cut by the grader" in nb.read_text(encoding="utf-8")
    # the largest process of the run (grader or kernel) never held the gigabyte
    assert peak_kib < 1536 * 1024, peak_kib


def test_a_notebook_past_its_deadline_is_stopped_and_says_so(autograded):
    """Every cell interrupted in vain: the notebook's budget ends it, the cells after the deadline are not
    run, the record says so, and the class after it is graded."""
    c, _, _ = autograded
    record = RecordStore(c.records).load("04_fusion", "stubborn")
    assert "execution_deadline" in record.flags and record.total > 0
    said = " ".join(record.errors)
    assert f"ran past its {NOTEBOOK_TIMEOUT} s budget (c.LimitedExecute.notebook_timeout)" in said
    assert "were not run; the notebook is graded from its ledger" in said
    nb = json.loads((c.root / "autograded/stubborn/04_fusion/04_fusion.ipynb").read_text(encoding="utf-8"))
    assert nb["cells"][-1]["cell_type"] != "code" or not nb["cells"][-1].get("execution_count")


def test_cells_share_the_notebook_time_budget(monkeypatch):
    from autograder.preprocessors import LimitedExecute

    pp = LimitedExecute(timeout=300, notebook_timeout=100)
    assert pp.cell_timeout() == 300  # no notebook running yet
    now = [1000.0]
    monkeypatch.setattr("autograder.preprocessors.limited_execute.time.monotonic", lambda: now[0])
    pp._deadline = now[0] + 100
    assert pp.cell_timeout() == 100
    now[0] += 95
    assert pp.cell_timeout() == 5  # a later cell only gets what is left
    now[0] += 50
    assert pp.cell_timeout() == 1  # past the budget: the next cell times out at once
    assert LimitedExecute(timeout=300, notebook_timeout=0).cell_timeout() == 300
