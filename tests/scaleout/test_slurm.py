"""`--executor slurm` on a real single-node Slurm (munge, slurmdbd + MariaDB, slurmctld, slurmd) that
scripts/slurm/start.sh starts and scripts/slurm/stop.sh stops by PID, one for all of tests/scaleout
(conftest.py). CI installs the packages (.ci/run); elsewhere these tests are skipped when Slurm is not installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import cloudpickle
import pytest
from typer.testing import CliRunner

from autograder.batch.fast import grade_class
from autograder.bench.store import ReferenceStore
from autograder.cli import app
from autograder.config import CourseSettings
from autograder.course import Course
from autograder.grading.policy import GradingPolicy
from autograder.sample.generate import generate_class
from autograder.scaleout.slurm import SlurmSettings, _executor, grade_on_slurm, run_finished, run_with_retry
from autograder.storage.gradebook_sync import read_rows
from autograder.storage.records_store import RecordStore

pytestmark = pytest.mark.slow
cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the job processes need not import tests/


def _class(template: Path, dest: Path, n: int) -> Course:
    shutil.copytree(template, dest)
    c = Course.at(dest)
    generate_class(dest, c.spec("04_fusion"), ReferenceStore(c.references).load("04_fusion", "nvidia-h200"),
                   dest / "release/04_fusion/04_fusion.ipynb", n, seed=9)
    return c


def _gradebook(course: Course):
    return read_rows(CourseSettings.load(course.root).db_url, "04_fusion", "04_fusion")


def _records(course: Course):
    return {r.student: r.model_dump(exclude={"graded_at"}) for r in RecordStore(course.records).all("04_fusion")}


def test_slurm_results_are_identical_to_local(slurm, course_template, tmp_path):
    local = _class(course_template, tmp_path / "local", 30)
    on_slurm = _class(course_template, tmp_path / "slurm", 30)
    grade_class(local, "04_fusion", GradingPolicy(), workers=2)
    seen: list[tuple[str, int, int]] = []
    result = grade_on_slurm(on_slurm, "04_fusion", GradingPolicy(), SlurmSettings(shard_size=8, poll_s=0.2),
                            progress=lambda stage, done, total: seen.append((stage, done, total)))
    assert not result.failed and len(result.graded) == 30
    assert ("shards", 4, 4) in seen and any(s[0] == "merge + gradebook" for s in seen)  # progress while jobs run
    assert _records(on_slurm) == _records(local)
    assert _gradebook(on_slurm) == _gradebook(local)
    assert list((on_slurm.root / ".slurm").iterdir()), "submitit logs are kept with the course"


def test_missing_reference_is_measured_first_by_a_gpu_job(slurm, course_template, tmp_path):
    c = _class(course_template, tmp_path / "bench", 6)
    assert "cpu" not in ReferenceStore(c.references).devices("04_fusion")
    # this node's fake GPUs satisfy --gres=gpu:1; torch sees no CUDA there, so the job measures the CPU
    result = grade_on_slurm(c, "04_fusion", GradingPolicy(device_of_record="cpu", use_student_gpu=False),
                            SlurmSettings(shard_size=3, poll_s=0.2, bench_gres="gpu:1"))
    assert not result.failed
    ref = ReferenceStore(c.references).load("04_fusion", "cpu")
    assert ref.device.kind == "cpu" and set(ref.quantities) == {q.id for q in c.spec("04_fusion").quantities}
    assert all(r.device_of_record == "cpu" for r in result.records)
    sacct = subprocess.run(["sacct", "-n", "-X", "-o", "JobName%40,ReqTRES%60"], capture_output=True, text=True,
                           env=slurm)
    assert "gres/gpu=1" in sacct.stdout, sacct.stdout


def _flaky(marker: str) -> str:
    p = Path(marker)
    if not p.exists():
        p.write_text("failed once")
        raise RuntimeError("transient failure")
    return "ok"


def _always_fails(marker: str) -> str:
    raise RuntimeError(f"broken shard {Path(marker).name}")


def test_failed_shard_is_retried_once_then_reported(slurm, course_template, tmp_path):
    c = Course.at(course_template)
    ex = _executor(SlurmSettings(folder=str(tmp_path / "logs" / "%j")), c, None, None)
    results, failed = run_with_retry(ex, _flaky, [(str(tmp_path / "a"),), (str(tmp_path / "b"),)], poll_s=0.2)
    assert results == ["ok", "ok"] and failed == {}
    results, failed = run_with_retry(ex, _always_fails, [(str(tmp_path / "c"),)], poll_s=0.2)
    assert results == [None] and "failed twice" in failed[0] and "broken shard c" in failed[0]


def _dies_once(marker: str) -> str:
    if not os.path.exists(marker):
        Path(marker).touch()
        os._exit(1)  # no result written: what a job Slurm could not start or that died leaves
    return "merged"


def _raises(marker: str) -> str:
    Path(marker).open("a").write("x")
    raise RuntimeError("a real error of the merge")


def test_a_job_that_ended_without_finishing_is_submitted_once_more_one_that_raised_is_not(
    slurm, course_template, tmp_path
):
    """The merge job: in CI one never started ("slurmstepd: IO setup failed: Slurmd could not connect IO", no
    log, no result) and the whole grade failed; it is run once more. A merge that raised is not."""
    c = Course.at(course_template)
    ex = _executor(SlurmSettings(folder=str(tmp_path / "logs" / "%j")), c, None, None)
    seen: list[str] = []
    job = run_finished(ex, _dies_once, (str(tmp_path / "m"),), 0.2, "merge", lambda s, d, t: seen.append(s))
    assert job.result() == "merged" and "merge (again)" in seen
    job = run_finished(ex, _raises, (str(tmp_path / "r"),), 0.2, "merge", None)
    assert job.exception() is not None and (tmp_path / "r").read_text() == "x"  # ran once


def test_cli_slurm_executor(slurm, course_template, tmp_path):
    c = _class(course_template, tmp_path / "cli", 5)
    r = CliRunner().invoke(app, ["grade", "04_fusion", "--course", str(c.root), "--executor", "slurm"])
    assert r.exit_code == 0, r.output
    assert "graded 5" in r.output
