"""Student code on the native path runs in bubblewrap: one `nbgrader autograde` call over a class in which
some notebooks try to read another student's submission, the gradebook or the records, write outside their
folder, open a socket, or fork without end. Each is denied, gets a verdict, and is still graded from its
ledger; the honest notebook beside them is graded exactly as the fast batch grades it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import datetime, timezone

import nbformat
import pytest

from autograder.bench.store import ReferenceStore
from autograder.config import CourseSettings
from autograder.course import Course
from autograder.grading.batch import grade_class
from autograder.grading.gradebook_sync import read_rows
from autograder.grading.policy import GradingPolicy
from autograder.grading.records_store import RecordStore
from autograder.preprocessors.sandbox import bwrap_available
from autograder.sample.generate import PERSONAS, make_submission

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not bwrap_available(), reason="bubblewrap is not installed")]

HOSTILE = {
    "snoop_student": "print(open('../../../submitted/good/04_fusion/04_fusion.ipynb').read()[:100])",
    "snoop_gradebook": "print(open('../../../gradebook.db', 'rb').read(100))",
    "snoop_records": "import os\nprint(os.listdir('../../../records/04_fusion'))",
    "vandal": "open('../../../records/pwned.txt', 'w').write('x')",
    "vandal_system": "open('/usr/pwned.txt', 'w').write('x')",
    "caller": "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=5)",
    "forker": "import os, time\nwhile True:\n    if os.fork() == 0:\n        time.sleep(30)\n        os._exit(0)",
}


def _course(tmp_path_factory, course_template, name, students):
    root = tmp_path_factory.mktemp(name) / "course"
    shutil.copytree(course_template, root)
    c = Course.at(root)
    spec = c.spec("04_fusion")
    ref = ReferenceStore(c.references).load("04_fusion", "nvidia-h200")
    release = nbformat.read(str(root / "release/04_fusion/04_fusion.ipynb"), as_version=4)
    start = datetime(2026, 11, 28, tzinfo=timezone.utc)
    for i, student in enumerate(students):
        nb = make_submission(release, spec, ref, PERSONAS[0], seed=60 + i, start=start)
        if student in HOSTILE:
            nb.cells.insert(2, nbformat.v4.new_code_cell(HOSTILE[student]))
        folder = c.submitted / student / "04_fusion"
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / "04_fusion.ipynb"))
    (c.records / "04_fusion").mkdir(parents=True, exist_ok=True)
    (c.records / "04_fusion" / "someone.json").write_text("{}", encoding="utf-8")
    return c


@pytest.fixture(scope="module")
def sandboxed(tmp_path_factory, course_template):
    students = ["good", *HOSTILE]
    c = _course(tmp_path_factory, course_template, "sandbox", students)
    proc = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "04_fusion",
                           "--LimitedExecute.timeout=30", "--LimitedExecute.process_limit=64"],
                          cwd=c.root, capture_output=True, text=True, timeout=900)
    fast = _course(tmp_path_factory, course_template, "sandbox_fast", students)
    grade_class(fast, "04_fusion", GradingPolicy(), workers=1)
    return c, fast, proc


def test_every_notebook_is_graded(sandboxed):
    c, _, proc = sandboxed
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert {r.student for r in RecordStore(c.records).all("04_fusion")} >= {"good", *HOSTILE}


@pytest.mark.parametrize("student", sorted(HOSTILE))
def test_each_attempt_is_denied_with_a_verdict(sandboxed, student):
    c, _, _ = sandboxed
    record = RecordStore(c.records).load("04_fusion", student)
    assert "execution_denied" in record.flags, record.flags
    assert any(word in " ".join(record.errors) for word in
               ("No such file", "Read-only file system", "Network is unreachable", "Resource temporarily"))
    assert record.total > 0  # still graded from its ledger


def test_nothing_outside_the_folders_changed_or_leaked(sandboxed):
    c, _, proc = sandboxed
    assert not (c.records / "pwned.txt").exists() and not (c.root / "records" / "pwned.txt").exists()
    assert not any("execution_wrote_outside_folder" in f for r in RecordStore(c.records).all("04_fusion")
                   for f in r.flags)
    assert "SQLite format" not in proc.stdout + proc.stderr


def test_gradebook_rows_equal_the_fast_batch(sandboxed):
    c, fast, _ = sandboxed
    assert read_rows(CourseSettings.load(c.root).db_url, "04_fusion", "04_fusion") == read_rows(
        CourseSettings.load(fast.root).db_url, "04_fusion", "04_fusion"
    )
