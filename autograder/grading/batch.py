"""The fast batch: grade a whole class from the submitted notebooks, no kernel per notebook.

One driver, :func:`grade_class`, whatever runs the work: the class is cut into shards, a :class:`Runner`
grades them (in this process, in a local process pool, or as a Slurm job array: autograder.scaleout.slurm)
and then merges: cross-class checks on the records, then the gradebook in one bulk transaction.
Each submission's record is written atomically as soon as it is graded, so a killed batch resumes where it
stopped (a record whose notebook hash still matches is not regraded). The gradebook write is idempotent
and serialized between writers: two graders at once, or a rerun, leave the same rows.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..bench.store import ReferenceStore
from ..course import Course
from ..records import ChainVerdict, SubmissionGrade
from ..scaleout.settings import plan_shards
from ..spec import LessonSpec
from .cohort import flag_shared_chains
from .grade import grade_submission
from .policy import GradingPolicy
from .reader import read_notebook_bytes
from .records_store import RecordStore
from .references import ReferenceSet

if TYPE_CHECKING:
    from ..config import CourseSettings

__all__ = [
    "BatchResult",
    "LocalRunner",
    "Runner",
    "ShardWork",
    "Submission",
    "collect",
    "finalize",
    "find_submissions",
    "grade_class",
    "grade_shard",
]

Progress = Callable[[str, int, int], None]
Outcome = tuple[str, str, str | None]  # (student, 'graded'|'skipped', error)


@dataclass(frozen=True)
class Submission:
    student: str
    path: Path
    timestamp: datetime | None


@dataclass
class BatchResult:
    graded: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    records: list[SubmissionGrade] = field(default_factory=list)


def _timestamp(folder: Path) -> datetime | None:
    p = folder / "timestamp.txt"
    if not p.exists():
        return None
    try:
        from nbgrader.utils import parse_utc

        return parse_utc(p.read_text(encoding="utf-8").strip())
    except (ValueError, OSError, TypeError):
        return None


def find_submissions(course: Course, spec: LessonSpec, students: list[str] | None = None) -> list[Submission]:
    out: list[Submission] = []
    if not course.submitted.is_dir():
        return out
    wanted = set(students or ())
    for d in sorted(course.submitted.iterdir(), key=lambda p: p.name):
        if wanted and d.name not in wanted:
            continue
        folder = d / spec.id
        if folder.is_dir():
            out.append(Submission(d.name, folder / spec.notebook, _timestamp(folder)))
    return out


# --- worker side -------------------------------------------------------------------------------------
_STATE: dict[str, object] = {}


def _init_worker(root: str, assignment: str, policy_json: str) -> None:
    course = Course.at(root)
    policy = GradingPolicy.model_validate_json(policy_json)
    spec = course.spec(assignment)
    _STATE.update(
        course=course,
        spec=spec,
        policy=policy,
        refs=ReferenceSet(ReferenceStore(course.references), assignment, policy),
        store=RecordStore(course.records),
    )


def _grade_one(student: str, path: str, force: bool) -> tuple[Outcome, SubmissionGrade | None]:
    """Always leaves a record, even for an unreadable file."""
    spec: LessonSpec = _STATE["spec"]  # type: ignore[assignment]
    store: RecordStore = _STATE["store"]  # type: ignore[assignment]
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        data = b""
        read_error: str | None = f"cannot read the notebook file: {exc.strerror}"
    else:
        read_error = None
    sha = hashlib.sha256(data).hexdigest()
    if not force:
        old = store.load(spec.id, student)
        if old is not None and old.notebook_sha256 == sha and read_error is None:
            return (student, "skipped", None), old
    if read_error is not None:
        record = SubmissionGrade(
            student=student,
            assignment=spec.id,
            notebook=spec.notebook,
            notebook_sha256=None,
            device_of_record=None,
            chain=ChainVerdict(status="missing"),
            errors=[read_error],
            flags=["unreadable"],
            max_total=spec.max_points,
            graded_at=datetime.now(timezone.utc),
        )
    else:
        reading = read_notebook_bytes(data, spec)
        record = grade_submission(reading, spec, _STATE["refs"], _STATE["policy"], student)  # type: ignore[arg-type]
    store.save(record)
    return (student, "graded", None), record


def _grade_items(items: Sequence[tuple[str, str]], force: bool) -> tuple[list[Outcome], list[SubmissionGrade]]:
    outcomes, records = [], []
    for student, path in items:
        try:
            outcome, record = _grade_one(student, path, force)
        except Exception as exc:  # one bad submission never costs the shard
            outcome, record = (student, "graded", f"{type(exc).__name__}: {exc}"), None
        outcomes.append(outcome)
        if record is not None:
            records.append(record)
    return outcomes, records


def grade_shard(
    root: str, assignment: str, policy_json: str, items: list[tuple[str, str]], force: bool = False
) -> list[Outcome]:
    """Grade a list of (student, notebook path) in this process: the unit of work of a Slurm array task."""
    _init_worker(root, assignment, policy_json)
    return _grade_items(items, force)[0]


def _grade_shard_local(items: list[tuple[str, str]], force: bool) -> tuple[list[Outcome], list[SubmissionGrade]]:
    """A pool worker's shard (the worker was initialized once): outcomes and the records themselves, so
    the merge need not read them back from disk."""
    return _grade_items(items, force)


# --- runners -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ShardWork:
    """What every shard of one class shares, and each shard's (student, notebook path) items."""

    root: str
    assignment: str
    policy_json: str
    force: bool
    shards: list[list[tuple[str, str]]]


ShardResult = tuple[list[Outcome], list[SubmissionGrade] | None] | None  # None: the shard failed (see why)


class Runner(Protocol):
    """Where shards run. ``grade`` returns one result per shard and {shard index: why} for failed ones."""

    def shard_count(self, n: int) -> int: ...

    def prepare(self, course: Course, assignment: str, policy: GradingPolicy, progress: Progress | None) -> None: ...

    def grade(self, work: ShardWork, progress: Progress | None) -> tuple[list[ShardResult], dict[int, str]]: ...

    def merge(
        self,
        settings: CourseSettings,
        spec: LessonSpec,
        subs: list[Submission],
        gradebook: bool,
        records: dict[str, SubmissionGrade] | None,
        progress: Progress | None,
    ) -> list[SubmissionGrade]: ...


@dataclass(frozen=True)
class LocalRunner:
    """Shards on this machine: in this process (workers=1) or a process pool, a few shards per worker
    so that progress moves and a slow shard does not idle the others."""

    workers: int = 0
    shards_per_worker: int = 8
    min_shard: int = 16

    @property
    def n_workers(self) -> int:
        return max(1, self.workers or os.cpu_count() or 1)

    def shard_count(self, n: int) -> int:
        return plan_shards(n, self.n_workers * self.shards_per_worker, self.min_shard)

    def prepare(self, course: Course, assignment: str, policy: GradingPolicy, progress: Progress | None) -> None:
        ReferenceSet(ReferenceStore(course.references), assignment, policy).course_reference()  # fail early

    def grade(self, work: ShardWork, progress: Progress | None) -> tuple[list[ShardResult], dict[int, str]]:
        total = sum(len(s) for s in work.shards)
        results: list[ShardResult] = [None] * len(work.shards)
        failed: dict[int, str] = {}
        done = 0
        if progress:
            progress("grading", 0, total)
        if self.n_workers == 1 or len(work.shards) <= 1:
            _init_worker(work.root, work.assignment, work.policy_json)
            for i, items in enumerate(work.shards):
                results[i] = _grade_items(items, work.force)
                done += len(items)
                if progress:
                    progress("grading", done, total)
            return results, failed
        init = (work.root, work.assignment, work.policy_json)
        workers = min(self.n_workers, len(work.shards))
        with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=init) as pool:
            futures = {pool.submit(_grade_shard_local, items, work.force): i for i, items in enumerate(work.shards)}
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    results[i] = fut.result()
                except Exception as exc:  # a worker died: its shard's students are reported, never dropped
                    failed[i] = f"{type(exc).__name__}: {exc}"
                done += len(work.shards[i])
                if progress:
                    progress("grading", done, total)
        return results, failed

    def merge(
        self,
        settings: CourseSettings,
        spec: LessonSpec,
        subs: list[Submission],
        gradebook: bool,
        records: dict[str, SubmissionGrade] | None,
        progress: Progress | None,
    ) -> list[SubmissionGrade]:
        return finalize(settings, spec, subs, gradebook, progress, records)


# --- merge -------------------------------------------------------------------------------------------
def finalize(
    settings: CourseSettings,
    spec: LessonSpec,
    subs: list[Submission],
    gradebook: bool,
    progress: Progress | None = None,
    records: dict[str, SubmissionGrade] | None = None,
) -> list[SubmissionGrade]:
    """The merge step: cross-class checks on the records, then the gradebook. Idempotent.

    ``records``: those already in memory (the local runner's); the others are read from the store."""
    from .gradebook_sync import write_gradebook

    store = RecordStore(settings.course.records)
    have = dict(records or {})
    for s in subs:
        if s.student not in have:
            r = store.load(spec.id, s.student)
            if r is not None:
                have[s.student] = r
    ordered = [have[s.student] for s in subs if s.student in have]
    by_student = {r.student: r for r in ordered}
    for changed in flag_shared_chains(ordered):
        store.save(changed)
        by_student[changed.student] = changed
    final = [by_student[r.student] for r in ordered]
    if gradebook:
        write_gradebook(
            settings.db_url,
            settings.course_id,
            spec.id,
            Path(spec.notebook).stem,
            final,
            {s.student: s.timestamp for s in subs},
            progress,
        )
    return final


# --- the driver --------------------------------------------------------------------------------------
def grade_class(
    course: Course,
    assignment: str,
    policy: GradingPolicy | None = None,
    workers: int | None = None,
    force: bool = False,
    students: list[str] | None = None,
    progress: Progress | None = None,
    gradebook: bool = True,
    *,
    runner: Runner | None = None,
    settings: CourseSettings | None = None,
) -> BatchResult:
    """Grade the class (or ``students``) of ``assignment``: shards through ``runner`` (default: a local
    process pool of ``workers``), then the merge. ``settings`` (the course's nbgrader_config.py, read
    here when not given) names the gradebook; ``policy`` overrides its grading rules."""
    if settings is None:
        from ..config import CourseSettings

        settings = CourseSettings.load(course.root)
    policy = settings.policy if policy is None else policy
    runner = runner or LocalRunner(workers or 0)
    spec = course.spec(assignment)
    runner.prepare(course, assignment, policy, progress)
    subs = find_submissions(course, spec, students)
    n_shards = runner.shard_count(len(subs))
    shards = [subs[i::n_shards] for i in range(n_shards)] if subs else []
    work = ShardWork(
        str(course.root),
        assignment,
        policy.model_dump_json(),
        force,
        [[(s.student, str(s.path)) for s in shard] for shard in shards],
    )
    outcomes, failed = runner.grade(work, progress)
    result = BatchResult()
    in_memory: dict[str, SubmissionGrade] | None = {}
    for i, shard_out in enumerate(outcomes):
        if shard_out is None:
            for s in shards[i]:
                result.failed[s.student] = f"shard {i}: {failed.get(i, 'failed')}"
            continue
        shard_outcomes, shard_records = shard_out
        for outcome in shard_outcomes:
            collect(result, outcome)
        if shard_records is None:
            in_memory = None
        elif in_memory is not None:
            in_memory.update((r.student, r) for r in shard_records)
    merged = runner.merge(settings, spec, subs, gradebook, in_memory, progress)
    result.records = merged
    return result


def collect(result: BatchResult, outcome: Outcome | Sequence[Any]) -> None:
    student, state, error = outcome
    if error:
        result.failed[student] = error
    elif state == "skipped":
        result.skipped.append(student)
    else:
        result.graded.append(student)
