"""`autograder grade` and `autograder report`: grade a class fast, then summarize it."""

from __future__ import annotations

import contextlib
import inspect
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from ..batch.fast import BatchResult, LocalRunner, Runner, grade_class
from ..config import CourseSettings
from ..course import Course
from ..errors import AutograderError
from ..grading.policy import GradingPolicy
from ..records import SubmissionGrade
from ..reports.report import graded_against, plot_calibration, references_for, write_csv
from ..storage.records_store import RecordStore
from ..tables import print_table
from ._common import CourseOpt, console, course_at, err_console, friendly_errors
from ._views import course_table, print_student, summary_table

#: the model's one default, shown in --help
_DEADLINE = GradingPolicy.model_fields["submission_deadline_s"].default

Executor = Literal["local", "slurm"]


@friendly_errors
def grade(
    assignment: Annotated[str, typer.Argument(help="Assignment id: a folder under source/ with a lesson.toml.")],
    course: CourseOpt = Path("."),
    workers: Annotated[int, typer.Option(help="Processes (default: all cores).")] = 0,
    force: Annotated[bool, typer.Option(help="Regrade even when a record matches the notebook's hash.")] = False,
    student: Annotated[list[str] | None, typer.Option(help="Only these students (repeatable).")] = None,
    gradebook: Annotated[bool, typer.Option(help="Write scores and comments into nbgrader's gradebook.")] = True,
    autograded: Annotated[
        bool,
        typer.Option(help="Write each submission's autograded notebook, which formgrader and generate_feedback open."),
    ] = True,
    deadline: Annotated[
        float | None,
        typer.Option(
            help="Seconds per submission before its grading is stopped and recorded as grading_timeout "
            f"(default: the course's submission_deadline in nbgrader_config.py, {_DEADLINE:g}; 0: none)."
        ),
    ] = None,
    executor: Annotated[
        Executor,
        typer.Option(
            help="local: processes on this machine; slurm: a job array (SlurmGrading in "
            "nbgrader_config.py, see docs/slurm.md)."
        ),
    ] = "local",
    device: Annotated[
        str | None,
        typer.Option(
            help="Grade against this device's stored reference (e.g. cpu, to try a lesson on a laptop) instead "
            "of the device of record in nbgrader_config.py."
        ),
    ] = None,
) -> None:
    """Grade every submission from its submitted notebook, without starting a kernel per notebook.

    Uses the stored reference of the device of record (nbgrader_config.py: LessonGrading), writes one
    record per student under COURSE/records/ (atomically; a rerun skips what is already graded) and the
    same rows as `nbgrader autograde` into the gradebook nbgrader is configured with
    (CourseDirectory.db_url: SQLite or PostgreSQL), in bulk, and each submission's autograded notebook
    (formgrader's manual grading and `nbgrader generate_feedback` open it; no kernel runs: test cells show
    the stored points and reason).
    """
    c = course_at(course)
    settings = CourseSettings.load(c.root)
    if device is not None:
        # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
        from ._device import override_device

        settings, force = override_device(settings, c, assignment, device, force)
    else:
        # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
        from ._device import regrade_if_moved

        force = regrade_if_moved(settings, c, assignment, force)
    policy = settings.policy  # after --device: the settings it chose
    if deadline is not None:
        if deadline < 0:
            raise typer.BadParameter("--deadline is in seconds, 0 or more")
        policy = policy.model_copy(update={"submission_deadline_s": deadline})
    runner: Runner
    if executor == "slurm":
        # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
        from ..scaleout.slurm import SlurmRunner

        _require_slurm()
        runner = SlurmRunner(settings.slurm, c)
    else:
        runner = LocalRunner(workers)
    _require_submissions(c, assignment, student, settings.db_url if gradebook else None)
    _require_writable(c.records / assignment)
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as bar, _operator_errors(assignment, executor):
        tasks: dict[str, TaskID] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        result = grade_class(
            c, assignment, policy, None, force, student or None, progress, gradebook,
            runner=runner, settings=settings, autograded=autograded,
        )
    console.print(
        f"graded {len(result.graded)}, unchanged {len(result.skipped)}, failed {len(result.failed)}; "
        f"records in {c.records / assignment}"
    )
    for s, why in result.failed.items():
        console.print(f"[red]failed[/] {s}: {why}")
    _print_unread(c, assignment, result)
    if autograded and result.graded:
        console.print(
            f"autograded/ now holds these submissions: `nbgrader autograde {assignment}` skips them (it logs "
            "only 'Skipping existing assignment') unless you pass --force",
            highlight=False,
        )
    if result.graded or result.failed:
        _print_summary(result.records)
    elif not result.skipped:  # no submission at all: nothing was graded because nothing was collected
        console.print(
            f"no submissions of {assignment} under {c.submitted}: collect them first (formgrader's Collect, "
            f"`nbgrader collect {assignment}` or `nbgrader zip_collect {assignment}`)",
            highlight=False, soft_wrap=True,
        )
    elif result.recovered:  # the records a stopped run wrote, merged only now
        console.print(
            f"nothing to grade: the {len(result.recovered)} records an interrupted run had written are merged now"
            f"{' into the gradebook' if gradebook else ''}; `autograder report {assignment}` summarizes the class",
            highlight=False,
        )
    else:  # nothing changed: validating every record for the table would cost more than the whole run
        console.print(f"nothing changed; `autograder report {assignment}` summarizes the class")
    if result.failed:
        raise typer.Exit(1)


def _paragraphs(doc: str | None) -> str:
    """A docstring as --help shows it: each paragraph one line, for the terminal to wrap at its own width
    (typer keeps the source's line breaks, and a line longer than the terminal leaves a ragged stub)."""
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(doc or "").split("\n\n"))


grade.__doc__ = _paragraphs(grade.__doc__)


def _require_slurm() -> None:
    """``--executor slurm`` on a machine without Slurm's commands: one line, not submitit's traceback."""
    missing = [cmd for cmd in ("sbatch", "srun", "sacct") if shutil.which(cmd) is None]
    if missing:
        raise AutograderError(
            f"--executor slurm needs Slurm's commands on PATH, and {', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not there: run it on the cluster's login node (or `module "
            "load slurm`), or grade on this machine with --executor local"
        )


def _require_submissions(c: Course, assignment: str, students: list[str] | None, db_url: str | None) -> None:
    """No submission to grade is a mistake an operator makes (the wrong course folder, nothing collected
    yet), not a run that "changed nothing". A lesson that is not in the course is said first, then a missing
    gradebook: both come before any submission."""
    notebook = c.spec(assignment).notebook  # raises "no lesson.toml for assignment ..." from a wrong folder
    folder = c.submitted
    if students:
        absent = [s for s in students if not (folder / s / assignment).is_dir()]
        if absent:
            raise AutograderError(
                f"no submission of {assignment} for {', '.join(absent)} under {folder} (--student names a folder "
                f"submitted/STUDENT/{assignment}/)"
            )
    elif not folder.is_dir() or not any((p / assignment).is_dir() for p in folder.iterdir()):
        if db_url is not None:
            # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
            from ..storage.gradebook_sync import require_assignment

            require_assignment(db_url, assignment)
        raise AutograderError(
            f"no submissions of {assignment} under {folder} (submitted/STUDENT/{assignment}/"
            f"{notebook}): collect them first (`nbgrader collect {assignment}` or `nbgrader "
            f"zip_collect {assignment}`), or write a synthetic class with `autograder sample {assignment}`"
        )


def _require_writable(folder: Path) -> None:
    """Records are written one by one as submissions are graded: a folder the grader cannot write fails
    every submission with the same OSError, so it is one line before any grading starts."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise AutograderError(
            f"cannot write the records under {folder} ({exc.strerror or exc}): the grader writes one file per "
            "student there; fix the folder's permissions (or mount) for this user and run again"
        ) from None


@contextlib.contextmanager
def _operator_errors(assignment: str, executor: str) -> Iterator[None]:
    """An interrupted run says what it kept and how to resume; sbatch refusing a job is one line."""
    here = os.getpid()

    def _term(signum: int, frame: object) -> None:
        if os.getpid() != here:  # a forked grading worker keeps the default behaviour
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, _term)
    try:
        yield
    except KeyboardInterrupt:
        jobs = (
            "; jobs it submitted may still be running in Slurm (`squeue --me`): let them finish, or `scancel` "
            "them" if executor == "slurm" else ""
        )
        err_console.print(
            f"interrupted: every record written so far is kept{jobs}. Run the same command again to resume: "
            f"what is already graded is skipped (`autograder grade {assignment}` prints what it graded)",
            highlight=False, soft_wrap=True,
        )
        raise typer.Exit(130) from None
    except Exception as exc:
        if type(exc).__name__ not in ("FailedJobError", "FailedSubmissionError"):  # submitit's: sbatch said no
            raise
        said = " ".join(ln.strip() for ln in str(exc).splitlines() if ln.strip())
        raise AutograderError(
            f"Slurm refused the job: {said} (c.SlurmGrading.partition, account and extra in nbgrader_config.py; "
            "`sinfo -s` lists the partitions, docs/slurm.md)"
        ) from None
    finally:
        signal.signal(signal.SIGTERM, before)


def _print_unread(c: Course, assignment: str, result: BatchResult) -> None:
    """One line per submission graded just now that could not be read: what its record says, and the other
    notebooks in its folder when the one nbgrader expects is not there (a renamed copy)."""
    graded = set(result.graded)
    if not graded:
        return
    notebook = c.spec(assignment).notebook
    for r in result.records:
        if r.student not in graded or "unreadable" not in r.flags:
            continue
        folder = c.submitted / r.student / assignment
        others = sorted(p.name for p in folder.glob("*.ipynb") if p.name != notebook) if folder.is_dir() else []
        hint = f"; the folder holds {', '.join(others)}: rename the one to grade to {notebook}" if others else ""
        console.print(f"not read: {r.student}: {'; '.join(r.errors) or 'unreadable'}{hint}",
                      highlight=False, markup=False, soft_wrap=True)


def _print_summary(records: list) -> None:  # type: ignore[type-arg]
    print_table(console, summary_table(records))


@friendly_errors
def report(
    assignment: Annotated[
        str | None, typer.Argument(help="Assignment id; none: the whole course (every lesson with records).")
    ] = None,
    course: CourseOpt = Path("."),
    csv: Annotated[Path | None, typer.Option(help="CSV path (default COURSE/reports/ASSIGNMENT/grades.csv).")] = None,
    plot: Annotated[Path | None, typer.Option(help="Calibration plot (default .../calibration.png).")] = None,
    student: Annotated[str | None, typer.Option(help="Show one student's reasons instead.")] = None,
    canvas: Annotated[
        Path | None, typer.Option(help="Course report only: also write Canvas's gradebook-import CSV here.")
    ] = None,
    device: Annotated[
        str | None,
        typer.Option(help="Only the records graded against this device's reference (e.g. cpu), plotted against it."),
    ] = None,
) -> None:
    """Summarize graded records: a class table, a CSV for the LMS, a calibration plot (predicted vs reference).

    Without an assignment: the course — each student's auto, manual and total score per lesson and the
    course total, read from the gradebook (manual scores included), written to COURSE/reports/course.csv."""
    c = course_at(course)
    if assignment is None:
        _course_report(c, csv, canvas)
        return
    records = RecordStore(c.records).all(assignment)
    if device is not None:
        # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
        from ._device import require_reference

        require_reference(c, assignment, device)
        records, others = graded_against(records, device)
        if not records:
            console.print(
                f"no records of {assignment} graded against {device} (they were graded against "
                f"{', '.join(others) or 'nothing yet'}); run `autograder grade {assignment} --device {device}`",
                highlight=False,
            )
            raise typer.Exit(1)
    if not records:
        console.print(f"no records for {assignment} under {c.records}; run `autograder grade {assignment}` first")
        raise typer.Exit(1)
    if student:
        r = next((r for r in records if r.student == student), None)
        if r is None:
            names = sorted(x.student for x in records)
            shown = ", ".join(names[:5]) + (f", … ({len(names)} in all)" if len(names) > 5 else "")
            console.print(f"error: no record of {assignment} for {student!r}; students with records: {shown}",
                          markup=False, highlight=False, soft_wrap=True)
            raise typer.Exit(2)
        print_student(console, r, _manual_marks(c, r))
        return
    _print_summary(records)
    out = c.root / "reports" / assignment
    console.print(f"CSV: {write_csv(records, csv or out / 'grades.csv')}")
    # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
    from ..bench.store import ReferenceStore

    refs = references_for(records, ReferenceStore(c.references), assignment)
    drawn = plot_calibration(records, plot or out / "calibration.png", c.spec(assignment), refs)
    console.print(f"calibration plot: {drawn}")


report.__doc__ = _paragraphs(report.__doc__)


def _manual_marks(c: Course, r: SubmissionGrade) -> dict[str, tuple[float | None, str | None]]:
    # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
    from ..storage.gradebook_sync import manual_marks

    return manual_marks(CourseSettings.load(c.root).db_url, r)


def _course_report(c: Course, csv: Path | None, canvas: Path | None) -> None:
    # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
    from ..config import CourseSettings
    from ..reports.course_report import read_course_scores, write_canvas_csv, write_course_csv

    lessons = sorted(p.name for p in c.records.iterdir() if p.is_dir()) if c.records.is_dir() else []
    if not lessons:
        console.print(f"no records under {c.records}; run `autograder grade ASSIGNMENT` first")
        raise typer.Exit(1)
    scores = read_course_scores(CourseSettings.load(c.root).db_url, lessons)
    title = f"course: {len(scores.students)} students, {len(lessons)} lessons (gradebook scores)"
    print_table(console, course_table(scores, scores.students, title))
    console.print(f"course CSV: {write_course_csv(scores, csv or c.root / 'reports' / 'course.csv')}")
    if canvas is not None:
        console.print(f"Canvas gradebook import: {write_canvas_csv(scores, canvas)}")
