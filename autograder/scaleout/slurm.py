"""`autograder grade --executor slurm`: the class as a Slurm job array of shards, through submitit.

Order of work: (1) if no reference exists for the device of record, `autograder bench` as a GPU job;
(2) the grading shards as one job array; a failed shard is resubmitted once, then reported for each of
its students, never dropped; (3) one merge job that writes the gradebook. Records land on the course's
shared storage exactly as with the local executor, so the results are identical.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import Field

from ..bench.store import ReferenceStore
from ..course import Course
from ..errors import AutograderError
from ..grading.batch import BatchResult, collect, find_submissions
from ..grading.policy import GradingPolicy
from ..grading.records_store import RecordStore
from ..records._base import Record
from . import jobs

__all__ = ["SlurmSettings", "grade_on_slurm", "run_with_retry"]

Progress = Callable[[str, int, int], None]


class SlurmSettings(Record):
    partition: str | None = None
    account: str | None = None
    bench_gres: str = Field(default="gpu:1", description="--gres of the reference job")
    bench_partition: str | None = Field(default=None, description="partition of the reference job (GPU nodes)")
    grade_gres: str | None = Field(default=None, description="--gres of grading shards (none: CPU only)")
    shard_size: int = Field(default=50, ge=1, description="submissions per array task")
    cpus_per_task: int = Field(default=1, ge=1)
    mem_gb: float = Field(default=4, gt=0)
    timeout_min: int = Field(default=60, ge=1)
    folder: str = Field(default="", description="submitit logs; default COURSE/.slurm")
    poll_s: float = Field(default=0.5, gt=0)
    extra: dict[str, str] = Field(default_factory=dict, description="more sbatch options, e.g. qos")


def _executor(settings: SlurmSettings, course: Course, gres: str | None, partition: str | None) -> Any:
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


def _why(job: Any) -> str:
    try:
        exc = job.exception()
    except Exception as err:
        exc = err
    if exc is None:
        return "unknown failure"
    lines = [ln.strip() for ln in f"{type(exc).__name__}: {exc}".splitlines() if ln.strip()]
    errors = [ln for ln in lines if re.match(r"^[\w.]*(Error|Exception|Interrupt)\b", ln)]
    return (errors[-1] if errors else lines[0])[:300]


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


def _succeeded(job: Any) -> bool:
    try:
        return job.exception() is None
    except Exception:
        return False


def grade_on_slurm(
    course: Course,
    assignment: str,
    policy: GradingPolicy,
    settings: SlurmSettings,
    force: bool = False,
    students: list[str] | None = None,
    progress: Progress | None = None,
    gradebook: bool = True,
) -> BatchResult:
    spec = course.spec(assignment)
    store = ReferenceStore(course.references)
    root = str(course.root)
    if policy.device_of_record not in store.devices(assignment):
        ex = _executor(settings, course, settings.bench_gres, settings.bench_partition)
        job = ex.submit(jobs.bench_job, root, assignment)
        _wait([job], settings.poll_s, "reference (GPU job)", progress)
        if not _succeeded(job):
            raise AutograderError(f"the reference job {job.job_id} failed: {_why(job)} (log: {job.paths.stderr})")
        key = job.result()
        if key != policy.device_of_record:
            raise AutograderError(
                f"the reference job ran on device {key!r}, but the course grades on {policy.device_of_record!r}: "
                "point SlurmGrading.bench_partition/bench_gres at that GPU model, or change "
                "LessonGrading.device_of_record"
            )
    store.load(assignment, policy.device_of_record)  # raises clearly if still missing
    subs = find_submissions(course, spec, students)
    n_shards = max(1, math.ceil(len(subs) / settings.shard_size))
    shards = [subs[i::n_shards] for i in range(n_shards)] if subs else []
    ex = _executor(settings, course, settings.grade_gres, None)
    args = [
        (root, assignment, policy.model_dump_json(), [(s.student, str(s.path)) for s in shard], force)
        for shard in shards
    ]
    outcomes, failed = run_with_retry(ex, jobs.grade_shard, args, settings.poll_s, "shards", progress)
    result = BatchResult()
    for i, shard_out in enumerate(outcomes):
        if shard_out is None:
            for s in shards[i]:
                result.failed[s.student] = f"shard {i}: {failed[i]}"
            continue
        for outcome in shard_out:
            collect(result, outcome)
    merge = _executor(settings, course, None, None).submit(jobs.merge_job, root, assignment, students, gradebook)
    _wait([merge], settings.poll_s, "merge + gradebook", progress)
    if not _succeeded(merge):
        raise AutograderError(f"the merge job {merge.job_id} failed: {_why(merge)} (log: {merge.paths.stderr})")
    by = {s.student for s in subs}
    result.records = [r for r in RecordStore(course.records).all(assignment) if r.student in by]
    return result
