"""`autograder grade` and `autograder report`: grade a class fast, then summarize it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from ..batch.fast import LocalRunner, Runner, grade_class
from ..config import CourseSettings
from ..course import Course
from ..grading.policy import GradingPolicy
from ..records import SubmissionGrade
from ..reports.report import graded_against, plot_calibration, references_for, write_csv
from ..storage.records_store import RecordStore
from ..tables import print_table
from ._common import CourseOpt, console, course_at, friendly_errors
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
        typer.Option(help="Write autograded/STUDENT/ASSIGNMENT/*.ipynb for formgrader and generate_feedback."),
    ] = True,
    deadline: Annotated[
        float | None,
        typer.Option(
            help="Seconds per submission before its grading is stopped and recorded as grading_timeout "
            f"(default: c.LessonGrading.submission_deadline, {_DEADLINE:g}; 0: none)."
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

        runner = SlurmRunner(settings.slurm, c)
    else:
        runner = LocalRunner(workers)
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as bar:
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
    else:  # nothing changed: validating every record for the table would cost more than the whole run
        console.print(f"nothing changed; `autograder report {assignment}` summarizes the class")
    if result.failed:
        raise typer.Exit(1)


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
