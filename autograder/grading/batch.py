"""The fast batch: grade a whole class from the submitted notebooks, no kernel per notebook.

Parallel across processes; each submission's record is written atomically as soon as it is graded, so a
killed batch resumes where it stopped (a record whose notebook hash still matches is not regraded).
The gradebook is written last, under a file lock, idempotently: two graders at once, or a rerun, leave
the same rows.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from filelock import FileLock

from ..bench.store import ReferenceStore
from ..course import Course
from ..records import SubmissionGrade
from ..spec import LessonSpec
from .cohort import flag_shared_chains
from .policy import GradingPolicy
from .records_store import RecordStore
from .references import ReferenceSet
from .safe_read import open_submission
from .state import grade_opened, load_release

__all__ = [
    "BatchResult",
    "Submission",
    "collect",
    "finalize",
    "find_submissions",
    "grade_class",
    "grade_shard",
    "write_gradebook",
]

Progress = Callable[[str, int, int], None]


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
    # read like the notebook: no link followed, a FIFO never opened, at most 4 KiB
    got = open_submission(folder.parents[2], folder.parent.name, folder.name, "timestamp.txt", limit=4096)
    if got.data is None:
        return None
    try:
        from nbgrader.utils import parse_utc

        return parse_utc(got.data.decode("utf-8").strip())
    except (ValueError, OSError, TypeError, UnicodeDecodeError):
        return None


def find_submissions(course: Course, spec: LessonSpec, students: list[str] | None = None) -> list[Submission]:
    out: list[Submission] = []
    if not course.submitted.is_dir():
        return out
    for d in sorted(course.submitted.iterdir()):
        if students and d.name not in students:
            continue
        folder = d / spec.id
        if (d.is_symlink() or folder.is_symlink()) and os.path.lexists(folder):  # as nbgrader's glob sees it:
            # listed so that its record says why it was not read
            out.append(Submission(d.name, folder / spec.notebook, None))
        elif d.is_dir() and folder.is_dir():
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


def _grade_one(student: str, path: str, force: bool) -> tuple[str, str, str | None]:
    """(student, 'graded'|'skipped', error). Always leaves a record, even for an unreadable file."""
    spec: LessonSpec = _STATE["spec"]  # type: ignore[assignment]
    store: RecordStore = _STATE["store"]  # type: ignore[assignment]
    course: Course = _STATE["course"]  # type: ignore[assignment]
    opened = open_submission(course.root, student, spec.id, spec.notebook)
    if not force and opened.data is not None:
        old = store.load(spec.id, student)
        if old is not None and old.notebook_sha256 == hashlib.sha256(opened.data).hexdigest():
            return student, "skipped", None
    release = load_release(course.root, spec)
    record = grade_opened(opened, spec, _STATE["refs"], _STATE["policy"], student, release)  # type: ignore[arg-type]
    store.save(record)
    return student, "graded", None


def grade_shard(
    root: str, assignment: str, policy_json: str, items: list[tuple[str, str]], force: bool = False
) -> list[tuple[str, str, str | None]]:
    """Grade a list of (student, notebook path) in this process: the unit of work of a Slurm array task."""
    _init_worker(root, assignment, policy_json)
    return [_grade_one(student, path, force) for student, path in items]


def finalize(
    course: Course, spec: LessonSpec, subs: list[Submission], gradebook: bool, progress: Progress | None = None
) -> list[SubmissionGrade]:
    """The merge step: cross-class checks on the records, then the gradebook. Idempotent."""
    store = RecordStore(course.records)
    records = {r.student: r for r in (store.load(spec.id, s.student) for s in subs) if r is not None}
    for changed in flag_shared_chains(list(records.values())):
        store.save(changed)
        records[changed.student] = changed
    if gradebook:
        write_gradebook(course, spec, list(records.values()), {s.student: s for s in subs}, progress)
    return list(records.values())


# --- driver ------------------------------------------------------------------------------------------
def grade_class(
    course: Course,
    assignment: str,
    policy: GradingPolicy,
    workers: int | None = None,
    force: bool = False,
    students: list[str] | None = None,
    progress: Progress | None = None,
    gradebook: bool = True,
) -> BatchResult:
    spec = course.spec(assignment)
    ReferenceSet(ReferenceStore(course.references), assignment, policy).course_reference()  # fail early, clearly
    subs = find_submissions(course, spec, students)
    result = BatchResult()
    workers = max(1, workers or os.cpu_count() or 1)
    args = (str(course.root), assignment, policy.model_dump_json())
    done = 0
    if progress:
        progress("grading", 0, len(subs))
    if workers == 1:
        _init_worker(*args)
        for s in subs:
            collect(result, _grade_one(s.student, str(s.path), force))
            done += 1
            if progress:
                progress("grading", done, len(subs))
    else:
        with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=args) as pool:
            futures = {pool.submit(_grade_one, s.student, str(s.path), force): s.student for s in subs}
            for fut in as_completed(futures):
                done += 1
                try:
                    collect(result, fut.result())
                except Exception as exc:
                    result.failed[futures[fut]] = f"{type(exc).__name__}: {exc}"
                if progress:
                    progress("grading", done, len(subs))
    result.records = finalize(course, spec, subs, gradebook, progress)
    return result


def collect(result: BatchResult, outcome: tuple[str, str, str | None]) -> None:
    student, state, error = outcome
    if error:
        result.failed[student] = error
    elif state == "skipped":
        result.skipped.append(student)
    else:
        result.graded.append(student)


def write_gradebook(
    course: Course,
    spec: LessonSpec,
    records: list[SubmissionGrade],
    submissions: dict[str, Submission],
    progress: Progress | None = None,
) -> None:
    """Write every record into nbgrader's gradebook, one transaction per student, under a file lock."""
    from nbgrader.api import Gradebook

    from .gradebook_sync import write_submission

    notebook = Path(spec.notebook).stem
    with warnings.catch_warnings():
        # nbgrader's add_submission trips SQLAlchemy autoflush warnings; the rows are saved regardless
        warnings.simplefilter("ignore")
        with FileLock(str(course.root / ".gradebook.lock")), Gradebook(course.gradebook_url) as gb:
            for i, r in enumerate(records, 1):
                s = submissions.get(r.student)
                write_submission(gb, r, notebook, s.timestamp if s else None)
                if progress:
                    progress("gradebook", i, len(records))
