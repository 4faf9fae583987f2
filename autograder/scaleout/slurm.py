"""`autograder grade --executor slurm`: the class as a Slurm job array of shards, through submitit.

Order of work: (1) if no reference exists for the device of record, `autograder bench` as a GPU job;
(2) the grading shards as one job array, at most ``max_array_tasks`` of at least ``shard_size``
submissions (unchanged submissions are skipped before any job starts); a failed shard is resubmitted once,
then reported for each of its students, never dropped; (3) one merge job that writes the gradebook in
bulk. It is :func:`~autograder.batch.fast.grade_class` with a :class:`SlurmRunner`: records land on the
course's shared storage exactly as with the local runner, so the results are identical.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..batch.fast import BatchResult, ShardResult, ShardWork, Submission, Summaries, grade_class
from ..batch.shards import plan_shards
from ..bench.store import ReferenceStore
from ..config import CourseSettings
from ..config.slurm import SlurmSettings
from ..course import Course
from ..errors import AutograderError
from ..grading.policy import GradingPolicy
from ..spec import LessonSpec
from . import jobs

__all__ = ["SlurmRunner", "SlurmSettings", "grade_on_slurm", "plan_shards", "run_finished", "run_with_retry"]

Progress = Callable[[str, int, int], None]


def _executor(settings: SlurmSettings, course: Course, gres: str | None, partition: str | None) -> Any:
    # an optional dependency (the "slurm" extra): only when a Slurm executor is made
    import submitit

    folder = settings.folder or str(course.root / ".slurm" / "%j")
    ex = submitit.AutoExecutor(folder=folder, cluster="slurm")
    extra: dict[str, Any] = dict(settings.extra)
    if gres:
        extra["gres"] = gres
    if settings.account:
        extra["account"] = settings.account
    params: dict[str, Any] = dict(
        timeout_min=settings.timeout_min,
        cpus_per_task=settings.cpus_per_task,
        mem_gb=settings.mem_gb,
        slurm_additional_parameters=extra,
    )
    if partition or settings.partition:
        params["slurm_partition"] = partition or settings.partition
    ex.update_parameters(**params)
    return ex


def _failure(job: Any) -> BaseException | None:
    """What a finished job failed with (None: it succeeded); submitit raises when the job left no result."""
    try:
        exc: BaseException | None = job.exception()
    except Exception as err:
        exc = err
    return exc


def _why(job: Any) -> str:
    exc = _failure(job)
    if exc is None:
        return "unknown failure"
    lines = [ln.strip() for ln in f"{type(exc).__name__}: {exc}".splitlines() if ln.strip()]
    errors = [ln for ln in lines if re.match(r"^[\w.]*(Error|Exception|Interrupt)\b", ln)]
    why = (errors[-1] if errors else lines[0])[:300]
    if type(exc).__name__ == "UncompletedJobError" and not _exists(getattr(job.paths, "stderr", None)):
        why += (
            "; the job wrote no log: is the course folder (and SlurmGrading.folder) on storage every node mounts at "
            "the same path? `sacct -j " + str(job.job_id) + "` shows what Slurm saw (docs/slurm.md, Shared storage)"
        )
    return why


def _exists(path: Any) -> bool:
    try:
        return path is not None and Path(path).exists()
    except OSError:
        return False


def _wait(job_list: Sequence[Any], poll_s: float, label: str, progress: Progress | None) -> None:
    while True:
        done = sum(j.done() for j in job_list)
        if progress:
            progress(label, done, len(job_list))
        if done == len(job_list):
            return
        time.sleep(poll_s)


def run_with_retry(
    executor: Any,
    fn: Callable[..., Any],
    arg_lists: list[tuple[Any, ...]],
    poll_s: float = 0.5,
    label: str = "shards",
    progress: Progress | None = None,
) -> tuple[list[Any], dict[int, str]]:
    """Submit ``fn(*args)`` for every args tuple as one job array; resubmit each failed task once.

    Returns (results by index, None where it failed twice; {index: why} for those).
    """
    if not arg_lists:
        return [], {}
    columns = [list(c) for c in zip(*arg_lists, strict=True)]
    first = executor.map_array(fn, *columns)
    _wait(first, poll_s, label, progress)
    results: list[Any] = [None] * len(arg_lists)
    retry: dict[int, Any] = {}
    for i, job in enumerate(first):
        if _succeeded(job):
            results[i] = job.result()
        else:
            retry[i] = executor.submit(fn, *arg_lists[i])
    failed: dict[int, str] = {}
    if retry:
        _wait(list(retry.values()), poll_s, f"{label} (retry)", progress)
        for i, job in retry.items():
            if _succeeded(job):
                results[i] = job.result()
            else:
                failed[i] = f"failed twice; last: {_why(job)} (logs: {job.paths.stderr})"
    return results, failed


def run_finished(
    executor: Any, fn: Callable[..., Any], args: tuple[Any, ...], poll_s: float, label: str,
    progress: Progress | None,
) -> Any:
    """Submit ``fn(*args)`` as one job and wait; submit it once more when the job ended without finishing (no
    result: Slurm could not start it or it died, e.g. "slurmstepd: IO setup failed"), never when it raised.
    Returns the last job: for a ``fn`` that can run twice (the merge: it writes the same records and rows)."""
    job = executor.submit(fn, *args)
    _wait([job], poll_s, label, progress)
    if type(_failure(job)).__name__ == "UncompletedJobError":  # submitit's: the job left no result
        job = executor.submit(fn, *args)
        _wait([job], poll_s, f"{label} (again)", progress)
    return job


def _succeeded(job: Any) -> bool:
    return _failure(job) is None


@dataclass(frozen=True)
class SlurmRunner:
    """Shards as one Slurm job array (a failed task resubmitted once), the reference as a GPU job when it is
    missing, and the merge as one more job: the runner :func:`~autograder.batch.fast.grade_class` takes."""

    settings: SlurmSettings
    course: Course

    def shard_count(self, n: int) -> int:
        return plan_shards(n, self.settings.max_array_tasks, self.settings.shard_size)

    def prepare(self, course: Course, assignment: str, policy: GradingPolicy, progress: Progress | None) -> None:
        settings, store = self.settings, ReferenceStore(course.references)
        if policy.device_of_record not in store.devices(assignment):
            ex = _executor(settings, course, settings.bench_gres, settings.bench_partition)
            job = ex.submit(jobs.bench_job, str(course.root), assignment)
            _wait([job], settings.poll_s, "reference (GPU job)", progress)
            if not _succeeded(job):
                raise AutograderError(
                    f"the reference job {job.job_id} failed: {_why(job)} (log: {job.paths.stderr})"
                )
            key = job.result()
            if key != policy.device_of_record:
                raise AutograderError(
                    f"the reference job ran on device {key!r}, but the course grades on "
                    f"{policy.device_of_record!r}: point SlurmGrading.bench_partition/bench_gres at that GPU "
                    "model, or change LessonGrading.device_of_record"
                )
        store.load(assignment, policy.device_of_record)  # raises clearly if still missing

    def grade(self, work: ShardWork, progress: Progress | None) -> tuple[list[ShardResult], dict[int, str]]:
        ex = _executor(self.settings, self.course, self.settings.grade_gres, None)
        args = [(work.root, work.assignment, work.policy_json, items, work.force, work.autograded)
                for items in work.shards]
        outcomes, failed = run_with_retry(ex, jobs.grade_shard, args, self.settings.poll_s, "shards", progress)
        return [None if o is None else (o, None) for o in outcomes], failed

    def merge(
        self,
        settings: CourseSettings,
        spec: LessonSpec,
        subs: list[Submission],
        gradebook: bool,
        summaries: Summaries | None,
        progress: Progress | None,
    ) -> None:
        root = str(settings.course.root)
        students = [s.student for s in subs]
        merge = run_finished(_executor(self.settings, settings.course, None, None), jobs.merge_job,
                             (root, spec.id, students, gradebook), self.settings.poll_s, "merge + gradebook", progress)
        if not _succeeded(merge):
            raise AutograderError(f"the merge job {merge.job_id} failed: {_why(merge)} (log: {merge.paths.stderr})")


def grade_on_slurm(
    course: Course,
    assignment: str,
    policy: GradingPolicy | None,
    settings: SlurmSettings | None = None,
    force: bool = False,
    students: list[str] | None = None,
    progress: Progress | None = None,
    gradebook: bool = True,
    course_settings: CourseSettings | None = None,
) -> BatchResult:
    """:func:`grade_class` with a :class:`SlurmRunner` (Slurm settings from nbgrader_config.py unless given)."""
    course_settings = course_settings or CourseSettings.load(course.root)
    runner = SlurmRunner(settings or course_settings.slurm, course)
    return grade_class(
        course, assignment, policy, None, force, students, progress, gradebook, runner=runner,
        settings=course_settings,
    )
