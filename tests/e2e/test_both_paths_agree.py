"""The bad-input corpus through both grading paths: `nbgrader autograde` (one CLI call) and the fast batch
must leave the same gradebook rows (scores, manual-grading flags, comments) and the same record scores for
every submission, including the ones nbgrader itself could not open.

A representative subset of tests/grading/test_bad_inputs.py's corpus (the unreadable kinds nbgrader fails
on, the filesystem kinds, the cell-structure kinds, a student who started over) keeps the kernel time to a couple of minutes; the
rest of the corpus differs only in the ledger, which both paths read with the same function.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import datetime, timezone

import nbformat
import pytest

from autograder.batch.fast import grade_class
from autograder.bench.store import ReferenceStore
from autograder.config import CourseSettings
from autograder.course import Course
from autograder.grading.policy import GradingPolicy
from autograder.sample.generate import PERSONAS, make_submission
from autograder.storage.gradebook_sync import read_rows
from autograder.storage.records_store import RecordStore
from tests.grading.test_bad_inputs import CASES, FS_CASES, build_corpus

pytestmark = pytest.mark.slow

SUBSET = [
    "not_json", "nested_too_deep", "old_nbformat", "invalid_cell_ids", "cells_reordered", "cell_duplicated",
    "test_cell_deleted", "grade_id_renamed", "non_dict_cells", "symlinked_notebook", "symlinked_student_folder",
    "fifo", "sparse_201_mib", "started_over",
    # issue 18's hostile kinds: device claims (the student's own answer key), look-alike ids, extra keys, a 20 MB
    # explanation, a 300,000-entry ledger. Not device_key_fifo: nbgrader's init_assignment copies the submission
    # folder's other files (the FIFO) with shutil before any hook runs, and fails that student (docs/reliability.md)
    "device_key_own_answer_key", "device_key_not_its_name", "quantity_id_cyrillic",
    "extra_top_level_keys", "explanation_20_mb", "ledger_300k_entries",
]
SECRET = "TOP-SECRET-OUTSIDE-THE-COURSE"


def _course(tmp_path_factory, course_template, name):
    root = tmp_path_factory.mktemp(name) / "course"
    shutil.copytree(course_template, root)
    c = Course.at(root)
    spec = c.spec("04_fusion")
    ref = ReferenceStore(c.references).load("04_fusion", "nvidia-h200")
    release = nbformat.read(str(root / "release/04_fusion/04_fusion.ipynb"), as_version=4)
    nb = make_submission(release, spec, ref, PERSONAS[0], seed=1, start=datetime(2026, 11, 28, tzinfo=timezone.utc))
    base = json.loads(nbformat.writes(nb))
    outside = tmp_path_factory.mktemp(f"{name}_outside")
    build_corpus(root, outside, base, SUBSET)
    # the linked targets carry a marker that must never reach a log
    for p in outside.rglob("*.ipynb"):
        p.write_text(SECRET + p.read_text(encoding="utf-8"), encoding="utf-8")
    return c


@pytest.fixture(scope="module")
def both(tmp_path_factory, course_template):
    native = _course(tmp_path_factory, course_template, "native")
    proc = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "04_fusion"],
                          cwd=native.root, capture_output=True, text=True, timeout=1200)
    fast = _course(tmp_path_factory, course_template, "fast")
    result = grade_class(fast, "04_fusion", GradingPolicy(), workers=2)
    assert not result.failed
    return native, fast, proc


def test_native_autograde_grades_every_submission(both):
    native, _, proc = both
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert {r.student for r in RecordStore(native.records).all("04_fusion")} == {"base", *SUBSET}


def test_no_submission_content_reaches_the_log(both):
    _, _, proc = both
    assert SECRET not in proc.stdout + proc.stderr
    assert "print('hello')" not in proc.stdout + proc.stderr


def test_every_gradebook_row_agrees(both):
    native, fast, _ = both
    a = read_rows(CourseSettings.load(native.root).db_url, "04_fusion", "04_fusion")
    b = read_rows(CourseSettings.load(fast.root).db_url, "04_fusion", "04_fusion")
    assert {k[0] for k in a} == {"base", *SUBSET}
    diff = {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}
    assert not diff, sorted(diff.items())[:10]


@pytest.mark.parametrize("name", SUBSET)
def test_same_record_on_both_paths(both, name):
    native, fast, _ = both
    a, b = RecordStore(native.records).load("04_fusion", name), RecordStore(fast.records).load("04_fusion", name)
    keep = {"predictions", "total", "errors", "unanswered", "notebook_sha256", "chain"}
    assert a.model_dump(include=keep) == b.model_dump(include=keep)
    # the fast batch's cross-class check (chain_shared_with) runs over the whole class, not per notebook
    assert [f for f in a.flags if not f.startswith("execution_")] == [
        f for f in b.flags if not f.startswith("chain_shared_with")
    ]
    check = CASES[name][1] if name in CASES else FS_CASES[name][1]
    assert check(a, RecordStore(native.records).load("04_fusion", "base"))


def _graded_cells(nb: dict) -> list[tuple[str | None, str, str, str]]:
    """(grade_id, cell id, source, what a graded test cell printed) of every cell, in notebook order; cell
    ids only of nbgrader's cells (a student's own cell gets a fresh one on each path). Only test cells'
    outputs: the fast batch runs no kernel, so the other cells have none."""
    out = []
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader") or {}
        gid = meta.get("grade_id")
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        printed = "".join(
            "".join(o["text"]) if isinstance(o.get("text"), list) else o.get("text", "")
            for o in cell.get("outputs", []) if o.get("output_type") == "stream"
        )
        out.append((gid, cell["id"] if gid else "", src, printed if meta.get("grade") else ""))
    return out


@pytest.mark.parametrize("name", ["base", *SUBSET])
def test_same_autograded_notebook_on_both_paths(both, name):
    """formgrader and generate_feedback read autograded/: the fast batch writes the notebook nbgrader's
    kernel left, for the cells that matter (answers, test cells and the points they print)."""
    native, fast, _ = both
    path = f"autograded/{name}/04_fusion/04_fusion.ipynb"
    a = json.loads((native.root / path).read_text(encoding="utf-8"))
    b = json.loads((fast.root / path).read_text(encoding="utf-8"))
    assert _graded_cells(a) == _graded_cells(b)
    assert [c["cell_type"] for c in a["cells"]] == [c["cell_type"] for c in b["cells"]]
    assert (fast.root / path).stat().st_mode & 0o777 == (native.root / path).stat().st_mode & 0o777 == 0o444
