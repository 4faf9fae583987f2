"""`autograder demo`: the main job on built-in defaults, in a scratch copy of the course.

For every lesson of the course: measure its reference on whatever device is present, release it into a
gradebook, generate the same sample class's submissions, grade them with the fast batch; then report the
course (per-student totals across lessons) — what an instructor's first hour looks like.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Annotated

import typer

from ._common import CourseOpt, console, course_at, friendly_errors


def _step(n: int, text: str) -> None:
    """A section heading: in the rule when it fits, else a plain rule over the whole heading (never cut)."""
    heading = f"{n}. {text}"
    if len(heading) + 6 <= console.width:
        console.rule(f"[bold]{heading}")
    else:
        console.rule()
        console.print(f"[bold]{heading}", highlight=False)


def best_reference(stored: list[str], device_of_record: str, measured_here: str) -> str:
    """The reference a lesson is graded against: the device of record's when it is stored, else the one
    just measured on this machine (a course's own lesson before it is measured on the course GPU)."""
    return device_of_record if device_of_record in stored else measured_here


@friendly_errors
def demo(
    course: CourseOpt = Path("."),
    out: Annotated[Path, typer.Option(help="Scratch course folder to create (replaced if present).")] = Path("demo"),
    assignment: Annotated[
        list[str] | None, typer.Option(help="Only these lessons (repeatable; default: every lesson in source/).")
    ] = None,
    students: Annotated[int, typer.Option(help="Size of the sample class.")] = 40,
    device: Annotated[str | None, typer.Option(help="Device to measure on (default: CUDA if present).")] = None,
) -> None:
    """Measure every lesson's reference here, grade a sample class in each, print the course report."""
    # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
    from ..batch.fast import grade_class
    from ..bench.report import plot_sweep, quantity_table
    from ..bench.runner import run_reference  # torch: imported only when measuring
    from ..bench.store import ReferenceStore
    from ..config import CourseSettings
    from ..course import Course
    from ..errors import AutograderError
    from ..reports.course_report import read_course_scores, write_course_csv
    from ..reports.report import plot_calibration, references_for
    from ..sample.generate import generate_class
    from ..storage.records_store import RecordStore
    from ..tables import print_table
    from ._views import course_table, print_student, summary_table

    src = course_at(course)
    if not (src.root / "nbgrader_config.py").exists():
        raise AutograderError(f"{src.root} is not a course (no nbgrader_config.py); run from the repository root")
    lessons = assignment or sorted(p.parent.name for p in (src.root / "source").glob("*/lesson.toml"))
    if not lessons:
        raise AutograderError(f"no lessons under {src.root / 'source'} (folders with a lesson.toml)")
    dst = out.resolve()
    t0 = time.perf_counter()
    if dst.exists():
        shutil.rmtree(dst)
    c = Course.copy(src.root, dst)
    settings = CourseSettings.load(dst)
    policy = settings.policy
    names = [f"student{i:03d}" for i in range(students)]

    _step(1, f"measure the references of {', '.join(lessons)} on this machine")
    graded_on: dict[str, str] = {}
    for name in lessons:
        run = run_reference(c.spec(name), device)
        ReferenceStore(c.references).save(run)
        graded_on[name] = best_reference(
            ReferenceStore(c.references).devices(name), policy.device_of_record, run.device.key
        )
        console.print(f"  {name}: {run.device.name}, {len(run.measurements)} measurements in {run.duration_s:.0f} s")
        print_table(console, quantity_table(run))
        plot_sweep(run, dst / "reports" / name / f"sweep-{run.device.key}.png", c.spec(name).workload.size_param)

    _step(2, "release the lessons (nbgrader generate_assignment)")
    for name in lessons:
        c.generate_assignment(name)
    console.print(f"  release/ and the gradebook are ready for {len(lessons)} lessons")

    _step(3, f"a sample class of {students} students submits every lesson")
    for i, name in enumerate(lessons):
        spec = c.spec(name)
        ref = ReferenceStore(c.references).load(name, graded_on[name])
        generate_class(dst, spec, ref, dst / "release" / name / spec.notebook, students, seed=i, names=names)

    _step(4, f"grade them (fast batch; device of record: {policy.device_of_record})")
    for name in lessons:
        t = time.perf_counter()
        key = graded_on[name]
        result = grade_class(c, name, policy.model_copy(update={"device_of_record": key}))
        why = "" if key == policy.device_of_record else (
            f" (no {policy.device_of_record} reference yet: `autograder bench {name}` on that device adds it)"
        )
        console.print(
            f"  {name}: graded {len(result.graded)} against the {key} reference{why} in "
            f"{time.perf_counter() - t:.1f} s (records + gradebook), {len(result.failed)} failed",
            highlight=False,
        )

    _step(5, "report")
    for name in lessons:
        records = RecordStore(c.records).all(name)
        console.print(f"  [bold]{name}[/]")
        summary = summary_table(records)
        summary.rows = summary.rows[:6]
        summary.title = None
        print_table(console, summary)
        refs = references_for(records, ReferenceStore(c.references), name)
        plot = plot_calibration(records, dst / "reports" / name / "calibration.png", c.spec(name), refs)
        console.print(f"    calibration plot: {plot}")
    example = RecordStore(c.records).load(lessons[0], names[0])
    if example is not None:
        console.print(f"\n  what {example.student} reads for {lessons[0]}:")
        print_student(console, example)
    scores = read_course_scores(settings.db_url, lessons)
    top = sorted(scores.students, key=scores.course_total, reverse=True)
    shown = [*top[:3], *top[-2:]] if len(top) > 5 else top
    more = f": the top 3 and the last 2 of {len(top)}, all in course.csv" if len(top) > 5 else ""
    title = f"course totals from the gradebook (explanations await manual grading){more}"
    print_table(console, course_table(scores, shown, title))
    console.print(f"  course CSV: {write_course_csv(scores, dst / 'reports' / 'course.csv')}")
    console.print(f"\ndemo finished in {time.perf_counter() - t0:.0f} s; everything is under {dst}")
