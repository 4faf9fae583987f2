"""The fast batch: grade a whole class from the submitted notebooks, no kernel per notebook.

One driver, :func:`grade_class`, whatever runs the work: the class is cut into shards, a :class:`Runner`
grades them (in this process, in a local process pool, or as a Slurm job array: autograder.scaleout.slurm)
and then merges: cross-class checks on the records, then the gradebook in one bulk transaction.
Each submission is graded under the course's deadline (``c.LessonGrading.submission_deadline``): in worker
processes that are killed and replaced when one submission overruns (autograder.batch.supervise), whose
record then says so (``grading_timeout``) while the batch goes on.
Each submission's record is written atomically as soon as it is graded, so a killed batch resumes where it
stopped (a record whose notebook hash still matches is not regraded), and so is its autograded notebook
(autograder.storage.autograded: what formgrader and `nbgrader generate_feedback` open), rewritten only
when it changes or is missing. The gradebook write is idempotent
and serialized between writers: two graders at once, or a rerun, leave the same rows.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from ..bench.store import ReferenceStore
from ..config import CourseSettings
from ..course import Course
from ..files.atomic import atomic_write
from ..files.safe_read import open_submission
from ..grading.policy import GradingPolicy
from ..grading.reader import SubmissionReading
from ..grading.references import ReferenceSet
from ..grading.state import grade_reading, load_release, read_opened_notebook
from ..grading.student_kernel import set_pool_size
from ..records import ChainVerdict, SubmissionGrade
from ..spec import LessonSpec
from ..storage.autograded import autograded_path, parsed, write_autograded, write_timestamp
from ..storage.gradebook_sync import GradebookEntry, require_assignment, targets, write_gradebook
from ..storage.records_store import RecordStore
from .cohort import FLAG as SHARED_FLAG
from .cohort import flag_shared_chains
from .shards import plan_shards
from .supervise import Overrun, Result, pause_deadline, run_supervised

__all__ = [
    "BatchResult",
    "LocalRunner",
    "Runner",
    "ShardWork",
    "Submission",
    "Summaries",
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
    students: list[str] = field(default_factory=list)
    #: of ``skipped``: records an interrupted run wrote (its index line never written), merged by this run
    recovered: list[str] = field(default_factory=list)
    store: RecordStore | None = None
    assignment: str = ""
    _records: list[SubmissionGrade] | None = field(default=None, repr=False)

    @property
    def records(self) -> list[SubmissionGrade]:
        """Every record of the class, read from the store on first use (a rerun that needs none of them
        does not pay for validating ten thousand)."""
        if self._records is None:
            loaded = (self.store.load(self.assignment, s) for s in self.students) if self.store else iter(())
            self._records = [r for r in loaded if r is not None]
        return self._records


def _parse_utc(text: str) -> datetime | None:
    """nbgrader's ``parse_utc`` (naive UTC; a trailing zone name or offset honoured), without importing
    nbgrader, whose import alone costs a second; nbgrader's own "YYYY-MM-DD HH:MM:SS.ffffff UTC" is
    parsed directly (dateutil's parser costs more than the rest of a rerun's bookkeeping)."""
    if text.endswith(" UTC") and text.count(" ") == 2:
        try:
            return datetime.fromisoformat(text[:-4])
        except ValueError:
            pass
    # start-up speed: dateutil only for a timestamp ISO parsing refused
    import dateutil.parser
    import dateutil.tz

    parts = text.split(" ")
    if len(parts) == 3:
        try:
            tz: object = int(parts[2])
        except ValueError:
            tz = dateutil.tz.gettz(parts[2])
        ts = dateutil.parser.parse(" ".join([*parts[:2], "TZ"]), tzinfos={"TZ": tz})  # type: ignore[dict-item]
    else:
        ts = dateutil.parser.parse(text)
    if ts.tzinfo is not None:
        offset = ts.utcoffset()
        ts = (ts - offset if offset is not None else ts).replace(tzinfo=None)
    return ts


def _timestamp(course_root: Path, student: str, assignment: str) -> datetime | None:
    # read like the notebook: no link followed, a FIFO never opened, at most 4 KiB
    got = open_submission(course_root, student, assignment, "timestamp.txt", limit=4096)
    if got.data is None:
        return None
    try:
        return _parse_utc(got.data.decode("utf-8").strip())
    except (ValueError, TypeError, OverflowError, UnicodeDecodeError):
        return None


def find_submissions(course: Course, spec: LessonSpec, students: list[str] | None = None) -> list[Submission]:
    """submitted/STUDENT/ASSIGNMENT/ folders, by student (os.scandir: a class of 10,000 is read in a
    blink, where pathlib spends a second on path objects)."""
    out: list[Submission] = []
    root = str(course.submitted)
    if not os.path.isdir(root):
        return out
    wanted = set(students or ())
    with os.scandir(root) as it:
        names = sorted(e.name for e in it if not wanted or e.name in wanted)
    for name in names:
        student_dir = os.path.join(root, name)
        folder = os.path.join(student_dir, spec.id)
        if (os.path.islink(student_dir) or os.path.islink(folder)) and os.path.lexists(folder):
            # as nbgrader's glob sees it: listed so that its record says why it was not read
            out.append(Submission(name, Path(folder, spec.notebook), None))
        elif os.path.isdir(folder):
            out.append(Submission(name, Path(folder, spec.notebook), _timestamp(course.root, name, spec.id)))
    return out


# --- worker side -------------------------------------------------------------------------------------
_STATE: dict[str, object] = {}


def _init_worker(root: str, assignment: str, policy_json: str, autograded: bool = True, pool_size: int = 0) -> None:
    set_pool_size(pool_size)  # how many children of students' kernels this worker may start ahead
    course = Course.at(root)
    policy = GradingPolicy.model_validate_json(policy_json)
    spec = course.spec(assignment)
    if spec.student_variant is not None:  # only a student's kernel is run (autograder.kernels imports torch)
        from ..kernels import on_turn_wait

        # a submission waiting for its GPU turn (students' kernels, one at a time on a device) is not running
        # out of its own time: its deadline stops meanwhile (a no-op outside a supervised worker)
        on_turn_wait(pause_deadline)
    _STATE.update(
        course=course,
        spec=spec,
        policy=policy,
        refs=ReferenceSet(ReferenceStore(course.references), assignment, policy),
        store=RecordStore(course.records),
        autograded=autograded,
    )


def _stat(path: str | Path) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def summarize(record: SubmissionGrade, path: Path, notebook: list[int] | None = None) -> dict[str, Any]:
    """A record's line in the batch index: the stat of the record file it was made from, the stat of the
    notebook graded (taken before reading it) and its hash, and what the merge needs (chain genesis,
    flags, the gradebook values)."""
    grades, comments = targets(record)
    return {
        "record": _stat(path),
        "nb": notebook,
        "sha": record.notebook_sha256,
        "genesis": record.chain.genesis,
        "flags": list(record.flags),
        "grades": {k: list(v) for k, v in grades.items()},
        "comments": comments,
        "unanswered": sorted(record.unanswered),
    }


def _entry(student: str, line: Mapping[str, Any]) -> GradebookEntry:
    grades = {k: (v[0], v[1]) for k, v in line["grades"].items()}
    return GradebookEntry(student, grades, dict(line["comments"]), frozenset(line["unanswered"]))


INDEX = ".batch-index"  # no .json suffix: not a record to anything globbing *.json


_INDEX_CACHE: dict[str, tuple[tuple[int, int], dict[str, dict[str, Any]]]] = {}


def _load_index(store: RecordStore, assignment: str) -> dict[str, dict[str, Any]]:
    """The batch index (read once per process while the file is unchanged; callers must not mutate it)."""
    p = store.root / assignment / INDEX
    try:
        st = p.stat()
        cached = _INDEX_CACHE.get(str(p))
        if cached and cached[0] == (st.st_mtime_ns, st.st_size):
            return cached[1]
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    _INDEX_CACHE[str(p)] = ((st.st_mtime_ns, st.st_size), data)
    return data


def _indexed(index: Mapping[str, Mapping[str, Any]], store: RecordStore, assignment: str, student: str) -> Any:
    """The index line of a record file unchanged since the index was written, else None."""
    line = index.get(student)
    if not line:
        return None
    try:
        st = os.stat(os.path.join(store.root, assignment, f"{student}.json"))
    except OSError:
        return None
    return line if line.get("record") == [st.st_mtime_ns, st.st_size] else None


def _grade_one(
    student: str, path: str, force: bool, known_sha: str | None = None
) -> tuple[Outcome, dict[str, Any] | None]:
    """Always leaves a record, even for an unreadable file. ``known_sha``: the notebook hash of the
    student's record as the batch index has it (no need to read and validate the record to skip it)."""
    spec: LessonSpec = _STATE["spec"]  # type: ignore[assignment]
    store: RecordStore = _STATE["store"]  # type: ignore[assignment]
    course: Course = _STATE["course"]  # type: ignore[assignment]
    nb_stat = _stat(path)  # before reading: a change while it is read shows next time
    opened = open_submission(course.root, student, spec.id, spec.notebook)
    release = load_release(course.root, spec)
    if not force and opened.data is not None:
        sha = hashlib.sha256(opened.data).hexdigest()
        if known_sha is not None and known_sha == sha:
            if _STATE.get("autograded") and release is not None and not _has_autograded(course, spec, student):
                old = store.load(spec.id, student)
                if old is not None:
                    _write_autograded(course, parsed(opened.data), old, release)
            return (student, "skipped", None), {"nb": nb_stat}
        old = store.load(spec.id, student)
        if old is not None and old.notebook_sha256 == sha:
            if _STATE.get("autograded") and release is not None and not _has_autograded(course, spec, student):
                _write_autograded(course, parsed(opened.data), old, release)
            return (student, "skipped", None), summarize(old, store.path(spec.id, student), nb_stat)
    reading, nb = read_opened_notebook(opened, spec, release)
    record = grade_reading(reading, spec, _STATE["refs"], _STATE["policy"], student, release)  # type: ignore[arg-type]
    saved = store.save(record, sync=False)
    if _STATE.get("autograded") and release is not None:
        _write_autograded(course, nb, record, release)
    return (student, "graded", None), summarize(record, saved, nb_stat)


def _write_autograded(course: Course, nb: Any, record: SubmissionGrade, release: dict[str, Any]) -> None:
    """The autograded notebook, and the submission's timestamp.txt beside it where it parses (nbgrader
    autograde regrades a submission only if its timestamp is newer than the autograded one)."""
    write_autograded(course.root, nb, record, release)
    got = open_submission(course.root, record.student, record.assignment, "timestamp.txt", limit=4096)
    if got.data is not None:
        try:
            ok = _parse_utc(got.data.decode("utf-8").strip()) is not None
        except (ValueError, TypeError, OverflowError, UnicodeDecodeError):
            ok = False
        if ok:
            write_timestamp(course.root, record.student, record.assignment, got.data)


def _has_autograded(course: Course, spec: LessonSpec, student: str) -> bool:
    return os.path.isfile(autograded_path(course.root, student, spec.id, spec.notebook))


Item = tuple[str, str] | tuple[str, str, str | None]  # (student, notebook path[, known notebook hash])
Summaries = dict[str, dict[str, Any]]


def _grade_items(items: Sequence[Item], force: bool) -> tuple[list[Outcome], Summaries]:
    outcomes, summaries = [], {}
    for item in items:
        student, path = item[0], item[1]
        known = item[2] if len(item) > 2 else None  # type: ignore[misc]
        try:
            outcome, summary = _grade_one(student, path, force, known)
        except Exception as exc:  # one bad submission never costs the shard
            outcome, summary = (student, "graded", f"{type(exc).__name__}: {exc}"), None
        outcomes.append(outcome)
        if summary is not None:
            summaries[student] = summary
    return outcomes, summaries


def grade_shard(
    root: str, assignment: str, policy_json: str, items: list[Item], force: bool = False, autograded: bool = True
) -> list[Outcome]:
    """Grade a list of (student, notebook path): the unit of work of a Slurm array task. Under the course's
    deadline each submission is graded in a worker process of this task (killed and replaced if it overruns)."""
    work = ShardWork(root, assignment, policy_json, force, [items], autograded)
    deadline = GradingPolicy.model_validate_json(policy_json).submission_deadline_s
    if deadline > 0:
        results, failed = _grade_supervised(work, 1, deadline, None)
        if results[0] is None:
            raise RuntimeError(failed.get(0, "the shard failed"))
        return results[0][0]
    _init_worker(root, assignment, policy_json, autograded)
    return _grade_items(items, force)[0]


def _grade_item(arg: tuple[Item, bool]) -> tuple[list[Outcome], Summaries]:
    return _grade_items([arg[0]], arg[1])


def _overrun(item: Item, overrun: Overrun, deadline: float) -> tuple[Outcome, dict[str, Any] | None]:
    """The record of a submission whose grading was stopped: graded as the released notebook handed in
    untouched (every test 0, every answer "No response."), flagged, and saying why in every reason."""
    student, path = item[0], item[1]
    spec: LessonSpec = _STATE["spec"]  # type: ignore[assignment]
    store: RecordStore = _STATE["store"]  # type: ignore[assignment]
    course: Course = _STATE["course"]  # type: ignore[assignment]
    if overrun.kind == "timeout":
        flag = "grading_timeout"
        why = (
            f"grading this notebook took longer than the course's {deadline:g} s per submission, so it was "
            f"stopped; `autograder grade {spec.id} --force --student {student}` tries again "
            "(c.LessonGrading.submission_deadline sets the limit)"
        )
    else:
        code = overrun.exitcode
        flag = "grading_failed"
        why = (
            f"the process grading this notebook stopped after {overrun.seconds:.1f} s (exit code {code}"
            + ("; killed by a signal, e.g. for memory" if code is not None and code < 0 else "")
            + f"); `autograder grade {spec.id} --force --student {student}` tries again"
        )
    release = load_release(course.root, spec)
    reading = SubmissionReading(problem=flag, errors=[why])
    record = grade_reading(reading, spec, _STATE["refs"], _STATE["policy"], student, release)  # type: ignore[arg-type]
    record = record.model_copy(
        update={
            "flags": [flag, *(f for f in record.flags if f not in ("unreadable", f"unreadable_{flag}"))],
            "explanations": [e.model_copy(update={"comment": f"Not graded: {why}."}) for e in record.explanations],
            "predictions": [p.model_copy(update={"reason": f"{why}; 0 points."}) for p in record.predictions],
        }
    )
    saved = store.save(record, sync=False)
    if _STATE.get("autograded") and release is not None:
        _write_autograded(course, None, record, release)
    return (student, "graded", None), summarize(record, saved, _stat(path))


def _grade_supervised(
    work: ShardWork, workers: int, deadline: float, progress: Progress | None
) -> tuple[list[ShardResult], dict[int, str]]:
    """Every item of every shard in ``workers`` processes, each submission under ``deadline`` seconds."""
    flat = [(i, item) for i, shard in enumerate(work.shards) for item in shard]
    outcomes: list[list[Outcome]] = [[] for _ in work.shards]
    summaries: list[Summaries] = [{} for _ in work.shards]
    init = (work.root, work.assignment, work.policy_json, work.autograded, min(workers, max(1, len(flat))))
    _init_worker(*init)  # here too: a submission that overran gets its record from this process
    total, step = len(flat), max(1, len(flat) // 200)
    done = 0

    def on_result(k: int, result: Result | Overrun) -> None:
        nonlocal done
        shard, item = flat[k]
        student = item[0]
        summary: dict[str, Any] | None = None
        if isinstance(result, Overrun):
            try:
                outcome, summary = _overrun(item, result, deadline)
            except Exception as exc:  # even the stand-in record failed: reported, never dropped
                why = f"{result.kind} after {result.seconds:.0f} s; {type(exc).__name__}: {exc}"
                outcome = (student, "graded", why)
        elif result[0] == "error":
            outcome = (student, "graded", result[1])
        else:
            got, sums = result[1]
            outcome, summary = got[0], sums.get(student)
        outcomes[shard].append(outcome)
        if summary is not None:
            summaries[shard][student] = summary
        done += 1
        if progress and (done % step == 0 or done == total):
            progress("grading", done, total)

    if progress:
        progress("grading", 0, total)
    try:
        run_supervised(
            [(item, work.force) for _, item in flat], _grade_item, on_result,
            init=_init_worker, init_args=init, workers=workers, deadline=deadline,
        )
    except RuntimeError as exc:
        return [None] * len(work.shards), dict.fromkeys(range(len(work.shards)), str(exc))
    return [(o, s) for o, s in zip(outcomes, summaries, strict=True)], {}


def _grade_shard_local(items: list[Item], force: bool) -> tuple[list[Outcome], Summaries]:
    """A pool worker's shard (the worker was initialized once): outcomes and the index lines of what it
    graded, so the merge need not read those records back."""
    return _grade_items(items, force)


# --- runners -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ShardWork:
    """What every shard of one class shares, and each shard's (student, notebook path) items."""

    root: str
    assignment: str
    policy_json: str
    force: bool
    shards: list[list[Item]]
    autograded: bool = True  # write autograded/STUDENT/ASSIGNMENT/NOTEBOOK.ipynb (formgrader, feedback)


ShardResult = tuple[list[Outcome], Summaries | None] | None  # None: the shard failed (see why)


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
        summaries: Summaries | None,
        progress: Progress | None,
    ) -> None: ...


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
        if not work.shards:
            return results, failed
        deadline = GradingPolicy.model_validate_json(work.policy_json).submission_deadline_s
        if deadline > 0:
            return _grade_supervised(work, self.n_workers, deadline, progress)
        if self.n_workers == 1 or len(work.shards) <= 1:
            _init_worker(work.root, work.assignment, work.policy_json, work.autograded)
            for i, items in enumerate(work.shards):
                results[i] = _grade_items(items, work.force)
                done += len(items)
                if progress:
                    progress("grading", done, total)
            return results, failed
        workers = min(self.n_workers, len(work.shards))
        init = (work.root, work.assignment, work.policy_json, work.autograded, workers)
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
        summaries: Summaries | None,
        progress: Progress | None,
    ) -> None:
        finalize(settings, spec, subs, gradebook, progress, summaries)


# --- merge -------------------------------------------------------------------------------------------
def _stand_in(spec: LessonSpec, student: str, line: Mapping[str, Any]) -> SubmissionGrade:
    """An unvalidated record carrying a student's chain genesis and flags (every field given: pydantic's
    default factories are slow to call in bulk)."""
    chain = ChainVerdict.model_construct(status="ok", entries=0, genesis=line["genesis"], reasons=[])
    return SubmissionGrade.model_construct(
        student=student, assignment=spec.id, notebook=spec.notebook, notebook_sha256=line["sha"],
        device_of_record=None, chain=chain, predictions=[], explanations=[], flags=list(line["flags"]),
        errors=[], unanswered=[], total=0.0, max_total=0.0, graded_at=datetime.now(timezone.utc),
    )


def finalize(
    settings: CourseSettings,
    spec: LessonSpec,
    subs: list[Submission],
    gradebook: bool,
    progress: Progress | None = None,
    summaries: Summaries | None = None,
) -> int:
    """The merge step: cross-class checks on the records, then the gradebook in one bulk write, then the
    batch index (records/ASSIGNMENT/.batch-index, JSON). Idempotent; returns the number of records.

    ``summaries``: index lines of records graded just now (the local runner's); the others come from the
    index when their record file is unchanged since it was written, else from the record itself."""
    store = RecordStore(settings.course.records)
    index = _load_index(store, spec.id)
    lines: Summaries = {}
    for s in subs:
        line = (summaries or {}).get(s.student)
        if line is not None and "record" not in line:  # skipped by hash: the index line, with the new stat
            old = _indexed(index, store, spec.id, s.student)
            line = {**old, "nb": line["nb"]} if old else None
        line = line or _indexed(index, store, spec.id, s.student)
        if line is None:
            record = store.load(spec.id, s.student)
            if record is None:
                continue
            line = summarize(record, store.path(spec.id, s.student), _stat_if_graded(settings.course, spec, record))
        lines[s.student] = line
    # the cross-class check, on stand-ins of the only records it can change: those sharing a chain genesis
    # with another, and those flagged so before
    by_genesis: dict[str, int] = {}
    for line in lines.values():
        if line["genesis"]:
            by_genesis[line["genesis"]] = by_genesis.get(line["genesis"], 0) + 1
    stand_ins = [
        _stand_in(spec, student, line)
        for student, line in lines.items()
        if by_genesis.get(line["genesis"] or "", 0) > 1 or any(f.startswith(SHARED_FLAG) for f in line["flags"])
    ]
    for changed in flag_shared_chains(stand_ins):
        record = store.load(spec.id, changed.student)
        if record is not None:
            record = record.model_copy(update={"flags": changed.flags})
            lines[changed.student] = summarize(record, store.save(record), lines[changed.student].get("nb"))
    if gradebook:
        write_gradebook(
            settings.db_url,
            settings.course_id,
            spec.id,
            Path(spec.notebook).stem,
            [_entry(student, line) for student, line in lines.items()],
            {s.student: s.timestamp for s in subs},
            progress,
        )
    updated = {**index, **lines}
    if updated != index:
        atomic_write(store.root / spec.id / INDEX, json.dumps(updated, separators=(",", ":"), ensure_ascii=False))
    return len(lines)


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
    autograded: bool = True,
) -> BatchResult:
    """Grade the class (or ``students``) of ``assignment``: shards through ``runner`` (default: a local
    process pool of ``workers``), then the merge. ``settings`` (the course's nbgrader_config.py, read
    here when not given) names the gradebook; ``policy`` overrides its grading rules. ``autograded``:
    also write each submission's autograded notebook (formgrader's and generate_feedback's input), and
    the missing ones of submissions graded before."""
    if settings is None:
        settings = CourseSettings.load(course.root)
    policy = settings.policy if policy is None else policy
    runner = runner or LocalRunner(workers or 0)
    spec = course.spec(assignment)
    if gradebook:
        require_assignment(settings.db_url, assignment)
    runner.prepare(course, assignment, policy, progress)
    subs = find_submissions(course, spec, students)
    store = RecordStore(course.records)
    index = {} if force else _load_index(store, assignment)

    result = BatchResult(students=[s.student for s in subs], store=store, assignment=assignment)
    items: list[Item] = []
    checked: Summaries = {}  # index lines verified just now: the merge need not stat those records again
    by_index = 0  # of them, skipped by their index line alone

    def has_autograded(student: str) -> bool:
        return not autograded or os.path.isfile(autograded_path(course.root, student, assignment, spec.notebook))

    for s in subs:
        line = _indexed(index, store, assignment, s.student)
        if line is None:
            nb_stat = _stat(s.path)  # before reading: a change while it is read shows next time
            old = None if force else _recorded(course, spec, store, s.student)
            if old is None:
                items.append((s.student, str(s.path)))
            elif has_autograded(s.student):  # graded by a run stopped before its merge: not sent out again
                result.skipped.append(s.student)
                result.recovered.append(s.student)
                checked[s.student] = summarize(old, store.path(assignment, s.student), nb_stat)
            else:
                items.append((s.student, str(s.path), old.notebook_sha256))
        elif _unchanged(line, _stat(s.path)) and has_autograded(s.student):
            result.skipped.append(s.student)  # notebook and record untouched since indexed: nothing to read
            checked[s.student] = line
            by_index += 1
        else:
            items.append((s.student, str(s.path), line["sha"]))
    n_shards = runner.shard_count(len(items))
    shards = [items[i::n_shards] for i in range(n_shards)]
    work = ShardWork(str(course.root), assignment, policy.model_dump_json(), force, shards, autograded)
    outcomes, failed = runner.grade(work, progress)
    summaries: Summaries = checked
    for i, shard_out in enumerate(outcomes):
        if shard_out is None:
            for it in shards[i]:
                result.failed[it[0]] = f"shard {i}: {failed.get(i, 'failed')}"
            continue
        shard_outcomes, shard_summaries = shard_out
        for outcome in shard_outcomes:
            collect(result, outcome)
        summaries.update(shard_summaries or {})
    if not items and by_index == len(subs):
        # nothing changed: the merge only compares the index with the gradebook (milliseconds), so it runs
        # here, whatever the runner: a Slurm rerun submits no job
        finalize(settings, spec, subs, gradebook, progress, summaries)
    else:
        runner.merge(settings, spec, subs, gradebook, summaries, progress)
    return result


def _stat_if_graded(course: Course, spec: LessonSpec, record: SubmissionGrade) -> list[int] | None:
    """The notebook's stat when the record was made from it as it is now (its hash, read after the stat), else
    None: the merge of shards that ran elsewhere (Slurm) indexes what it did not grade itself, and the next run
    skips those submissions by their stat instead of sending them out again."""
    nb_stat = _stat(course.submitted / record.student / spec.id / spec.notebook)
    opened = open_submission(course.root, record.student, spec.id, spec.notebook)
    if nb_stat is None or opened.data is None or record.notebook_sha256 != hashlib.sha256(opened.data).hexdigest():
        return None
    return nb_stat


def _recorded(course: Course, spec: LessonSpec, store: RecordStore, student: str) -> SubmissionGrade | None:
    """The student's record when it was made from the notebook as it is now (its hash), though the batch
    index has no line for it: what a run stopped before its merge leaves (Ctrl-C, or a Slurm run whose
    shards finished after it). One stat when there is no record, the usual first run."""
    if not os.path.isfile(store.path(spec.id, student)):
        return None
    opened = open_submission(course.root, student, spec.id, spec.notebook)  # as a shard reads it
    if opened.data is None:
        return None
    record = store.load(spec.id, student)
    sha = hashlib.sha256(opened.data).hexdigest()
    return record if record is not None and record.notebook_sha256 == sha else None


def _unchanged(line: Mapping[str, Any], nb_stat: list[int] | None) -> bool:
    """The notebook is as it was when its indexed record was made: the same stat, or still absent where the
    record was made from no notebook at all (a folder without ASSIGNMENT.ipynb is not regraded every run)."""
    if line.get("nb") is not None:
        return bool(line["nb"] == nb_stat)
    return nb_stat is None and "nb" in line and line.get("sha") is None and "unreadable" in line.get("flags", ())


def collect(result: BatchResult, outcome: Outcome | Sequence[Any]) -> None:
    student, state, error = outcome
    if error:
        result.failed[student] = error
    elif state == "skipped":
        result.skipped.append(student)
    else:
        result.graded.append(student)
