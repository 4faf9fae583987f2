"""The batch grader under SIGKILL and under a second grader running at once (real processes)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.bench.store import ReferenceStore
from autograder.course import Course
from autograder.sample.generate import generate_class
from autograder.storage.gradebook_sync import read_rows
from autograder.storage.records_store import RecordStore

pytestmark = pytest.mark.slow
N = 120


@pytest.fixture(scope="module")
def class_template(tmp_path_factory, course_template):
    root = tmp_path_factory.mktemp("crash") / "course"
    shutil.copytree(course_template, root)
    c = Course.at(root)
    spec = c.spec("04_fusion")
    generate_class(root, spec, ReferenceStore(c.references).load("04_fusion", "nvidia-h200"),
                   root / "release/04_fusion/04_fusion.ipynb", N, seed=5)
    return root


@pytest.fixture(scope="module")
def uninterrupted(class_template, tmp_path_factory):
    """The class graded once by one uninterrupted `autograder grade` (records, gradebook rows, students with
    rows): what both tests compare their crashed or concurrent runs with (each test used to grade its own copy
    of the same class with the same command, for the same state)."""
    clean = _copy(class_template, tmp_path_factory.mktemp("clean") / "course")
    assert _run(clean).returncode == 0
    expected = _state(clean)
    assert len(expected[0]) == N and expected[2] == N
    return expected


def _copy(template: Path, dest: Path) -> Path:
    shutil.copytree(template, dest)
    return dest


def _grade_cmd(course: Path) -> list[str]:
    return [sys.executable, "-m", "autograder", "grade", "04_fusion", "--course", str(course), "--workers", "2"]


def _run(course: Path) -> subprocess.CompletedProcess:
    return subprocess.run(_grade_cmd(course), capture_output=True, text=True, timeout=600)


def _state(course: Path):
    records = {r.student: r.model_dump(exclude={"graded_at"}) for r in RecordStore(course / "records").all("04_fusion")}
    rows = read_rows(f"sqlite:///{course / 'gradebook.db'}", "04_fusion", "04_fusion")
    return records, rows, len({k[0] for k in rows})


def _kill_when(course: Path, condition, settle: float = 0.0) -> None:
    proc = subprocess.Popen(_grade_cmd(course), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None and not condition():
        time.sleep(0.005)
    time.sleep(settle)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _n_records(course: Path) -> int:
    d = course / "records" / "04_fusion"
    return len(list(d.glob("*.json"))) if d.is_dir() else 0


def test_sigkill_at_several_points_then_resume_equals_an_uninterrupted_run(class_template, uninterrupted, tmp_path):
    expected = uninterrupted
    crashed = _copy(class_template, tmp_path / "crashed")
    _kill_when(crashed, lambda: _n_records(crashed) >= 5)            # early in grading
    assert 5 <= _n_records(crashed) < N, "the first kill must land mid-batch"
    _kill_when(crashed, lambda: _n_records(crashed) >= 70)           # mid-way
    _kill_when(crashed, lambda: _n_records(crashed) >= N, 0.4)       # while writing the gradebook
    assert _n_records(crashed) <= N
    final = _run(crashed)
    assert final.returncode == 0, final.stderr[-2000:]
    got = _state(crashed)
    assert got[0] == expected[0], "records differ from an uninterrupted run"
    assert got[1] == expected[1], "gradebook rows differ from an uninterrupted run"
    assert got[2] == N, "no submission missing, none twice"


def test_two_graders_at_once_give_the_same_result_as_one(class_template, uninterrupted, tmp_path):
    twice = _copy(class_template, tmp_path / "twice")
    procs = [subprocess.Popen(_grade_cmd(twice), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err[-2000:]
        assert "database is locked" not in (out + err)
    assert _state(twice) == uninterrupted
