"""A new operator grading a class with `autograder grade --executor slurm` on a real single-node Slurm
(the one tests/scaleout/conftest.py shares), through the real CLI in a subprocess: the
mistakes (no Slurm on PATH, a partition that does not exist) are one line each, a class is graded into
records/ and nbgrader's gradebook, Ctrl-C while the jobs run says what is kept and that the jobs go on,
the rerun after them sends out only the submissions without a record, and the rerun after that changes
nothing, says so and submits no job."""

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
from autograder.config import CourseSettings
from autograder.course import Course
from autograder.sample.generate import generate_class
from autograder.storage.gradebook_sync import read_rows

pytestmark = pytest.mark.slow
N = 12


def _env(path: str | None = None) -> dict[str, str]:
    here = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": path or f"{here}{os.pathsep}{os.environ.get('PATH', '')}", "COLUMNS": "200"}


def _cli(course: Path, *args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=course, env=_env(path),
                          capture_output=True, text=True, timeout=300)


def _records(course: Path) -> set[str]:
    return {p.stem for p in (course / "records" / "04_fusion").glob("*.json")}


def _job_dirs(course: Path) -> set[str]:
    """submitit's log folder of every Slurm job submitted for this course: .slurm/<id>, or <id>_<task> for
    each task of a job array (shards, when more than one)."""
    logs = course / ".slurm"
    return {p.name for p in logs.iterdir() if p.is_dir()} if logs.is_dir() else set()


def _jobs_of(course: Path) -> set[str]:
    return {name.split("_")[0] for name in _job_dirs(course)}


def _jobs_finish(course: Path, env: dict[str, str], timeout: float = 120) -> None:
    """Wait for this course's jobs only: another test may have jobs of its own in the same Slurm."""
    ours = _jobs_of(course)
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        q = subprocess.run(["squeue", "-h", "-o", "%F"], env=env, capture_output=True, text=True)
        if q.returncode == 0 and not ours & set(q.stdout.split()):
            return
        time.sleep(0.5)
    pytest.fail("the interrupted run's jobs did not finish")


def test_an_operator_grades_a_class_on_slurm(slurm, course_template, tmp_path):
    course = tmp_path / "course"
    shutil.copytree(course_template, course)
    c = Course.at(course)
    generate_class(course, c.spec("04_fusion"), ReferenceStore(c.references).load("04_fusion", "nvidia-h200"),
                   course / "release/04_fusion/04_fusion.ipynb", N, seed=3)
    config = course / "nbgrader_config.py"
    base = config.read_text()
    config.write_text(base + "\nc.SlurmGrading.shard_size = 6\nc.SlurmGrading.poll_s = 0.2\n")

    r = _cli(course, "grade", "04_fusion", "--executor", "slurm", path=str(Path(sys.executable).parent))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "--executor slurm needs Slurm's commands on PATH" in r.stderr and "--executor local" in r.stderr

    config.write_text(config.read_text() + 'c.SlurmGrading.partition = "no-such-partition"\n')
    r = _cli(course, "grade", "04_fusion", "--executor", "slurm")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "Slurm refused the job:" in r.stderr and "invalid partition" in r.stderr.lower()
    assert "sinfo -s" in r.stderr and not _records(course)
    config.write_text(base + "\nc.SlurmGrading.shard_size = 6\nc.SlurmGrading.poll_s = 0.2\n")

    # Ctrl-C while the shards run: the jobs go on in Slurm, and the operator is told so
    proc = subprocess.Popen([sys.executable, "-m", "autograder", "grade", "04_fusion", "--executor", "slurm"],
                            cwd=course, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    while proc.poll() is None and time.monotonic() - t0 < 120 and not any((course / ".slurm").glob("*/*.pkl")):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert "interrupted: every record written so far is kept" in err and "squeue --me" in err, err

    _jobs_finish(course, slurm)  # the shards the interrupted run submitted finish on their own
    assert len(_records(course)) == N  # ... and wrote every record; its merge never ran
    # a shard that never ran (scancel'd, say) leaves its students without a record: only they are sent out
    lost = sorted(_records(course))[:4]
    for student in lost:
        (course / "records" / "04_fusion" / f"{student}.json").unlink()
    before = _job_dirs(course)
    r = _cli(course, "grade", "04_fusion", "--executor", "slurm")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"graded 4, unchanged {N - 4}, failed 0; records in {course / 'records' / '04_fusion'}" in r.stdout, r.stdout
    assert "shards" in r.stdout and "merge + gradebook" in r.stdout  # progress while the jobs ran
    submitted = _job_dirs(course) - before
    assert len(submitted) == 2, submitted  # one shard for the 4 (not 2 array tasks for all 12) and the merge
    assert _records(course) == {p.parent.parent.name for p in (course / "submitted").glob("*/04_fusion/*.ipynb")}
    rows = read_rows(CourseSettings.load(course).db_url, "04_fusion", "04_fusion")
    assert {row[0] for row in rows} == _records(course) and len(_records(course)) == N

    before = _job_dirs(course)
    r = _cli(course, "grade", "04_fusion", "--executor", "slurm")  # nothing changed: no job at all
    assert r.returncode == 0 and f"graded 0, unchanged {N}, failed 0" in r.stdout, r.stdout
    assert "nothing changed" in r.stdout and "merge + gradebook" not in r.stdout and "shards" not in r.stdout
    assert _job_dirs(course) == before, _job_dirs(course) - before
    rows_again = read_rows(CourseSettings.load(course).db_url, "04_fusion", "04_fusion")
    assert rows_again == rows


def test_after_an_interrupted_run_whose_shards_all_finished_only_the_merge_runs(slurm, course_template, tmp_path):
    """SIGTERM (a closed terminal, a batch system) after the shards were submitted: the rerun sends no shard,
    merges the records they wrote into the gradebook, and says so."""
    course = tmp_path / "course"
    shutil.copytree(course_template, course)
    c = Course.at(course)
    generate_class(course, c.spec("04_fusion"), ReferenceStore(c.references).load("04_fusion", "nvidia-h200"),
                   course / "release/04_fusion/04_fusion.ipynb", 6, seed=5)
    config = course / "nbgrader_config.py"
    config.write_text(config.read_text() + "\nc.SlurmGrading.shard_size = 3\nc.SlurmGrading.poll_s = 0.2\n")
    proc = subprocess.Popen([sys.executable, "-m", "autograder", "grade", "04_fusion", "--executor", "slurm"],
                            cwd=course, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    while proc.poll() is None and time.monotonic() - t0 < 120 and not any((course / ".slurm").glob("*/*.pkl")):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted: every record written so far is kept" in err, out + err
    _jobs_finish(course, slurm)
    assert len(_records(course)) == 6
    before = _job_dirs(course)
    r = _cli(course, "grade", "04_fusion", "--executor", "slurm")
    assert r.returncode == 0 and "graded 0, unchanged 6, failed 0" in r.stdout, r.stdout + r.stderr
    assert "the 6 records an interrupted run had written are merged now into the gradebook" in r.stdout, r.stdout
    submitted = _job_dirs(course) - before
    assert len(submitted) == 1 and "_" not in next(iter(submitted)), submitted  # the merge, no shard
    rows = read_rows(CourseSettings.load(course).db_url, "04_fusion", "04_fusion")
    assert {row[0] for row in rows} == _records(course)
