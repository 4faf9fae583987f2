"""`autograder demo`: the main job on built-in defaults, in a scratch copy of the course.

Measure the reference on whatever device is present, release the assignment into a gradebook, generate
a sample class, grade it with the fast batch, and report — what an instructor's first hour looks like.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Annotated

import typer

from ..bench.report import plot_sweep, quantity_table
from ..bench.store import ReferenceStore
from ..config import LessonGrading, load_course_config
from ..course import Course
from ..errors import AutograderError
from ..grading.batch import grade_class
from ..grading.records_store import RecordStore
from ..grading.report import plot_calibration, summary_rows, write_csv
from ..sample.generate import generate_class
from ._common import CourseOpt, console, course_at, friendly_errors


def _step(n: int, text: str) -> None:
    console.rule(f"[bold]{n}. {text}")


@friendly_errors
def demo(
    course: CourseOpt = Path("."),
    out: Annotated[Path, typer.Option(help="Scratch course folder to create (replaced if present).")] = Path("demo"),
    assignment: Annotated[str, typer.Option(help="Assignment to demonstrate.")] = "04_fusion",
    students: Annotated[int, typer.Option(help="Size of the sample class.")] = 40,
    device: Annotated[str | None, typer.Option(help="Device to measure on (default: CUDA if present).")] = None,
) -> None:
    """Measure the reference here, generate and grade a sample class, print the class report."""
    from ..bench.runner import run_reference  # torch: imported only when measuring

    src = course_at(course)
    if not (src.root / "nbgrader_config.py").exists():
        raise AutograderError(f"{src.root} is not a course (no nbgrader_config.py); run from the repository root")
    dst = out.resolve()
    t0 = time.perf_counter()
    if dst.exists():
        shutil.rmtree(dst)
    c = Course.copy(src.root, dst)
    spec = c.spec(assignment)

    _step(1, f"measure the {assignment} reference on this machine")
    run = run_reference(spec, device, progress=lambda d, t, w: console.print(f"  [{d}/{t}] {w}", highlight=False))
    ReferenceStore(c.references).save(run)
    console.print(f"  {run.device.name}: copy roofline {run.device.copy_gbps:,.0f} GB/s, {run.duration_s:.0f} s")
    console.print(quantity_table(run))
    console.print(f"  sweep plot: {plot_sweep(run, dst / 'reports' / assignment / f'sweep-{run.device.key}.png')}")

    _step(2, "release the assignment (nbgrader generate_assignment)")
    c.generate_assignment(assignment)
    console.print(f"  release/{assignment}/{spec.notebook} and the gradebook are ready")

    settings = LessonGrading(config=load_course_config(dst))
    settings.course_root = str(dst)
    policy = settings.policy()
    ref = ReferenceStore(c.references).load(assignment, policy.device_of_record)
    _step(3, f"a sample class of {students} submissions (around the {ref.device.name} reference)")
    generate_class(dst, spec, ref, dst / "release" / assignment / spec.notebook, students, seed=0)

    _step(4, f"grade them (fast batch; device of record: {policy.device_of_record})")
    t = time.perf_counter()
    result = grade_class(c, assignment, policy)
    console.print(
        f"  graded {len(result.graded)} submissions in {time.perf_counter() - t:.1f} s "
        f"(records + gradebook), {len(result.failed)} failed"
    )

    _step(5, "report")
    records = RecordStore(c.records).all(assignment)
    for k, v in summary_rows(records):
        console.print(f"  {k:<40} {v}", highlight=False)
    example = next((r for r in records if "typical" in r.student), records[0])
    console.print(f"\n  what student {example.student} reads:")
    for g in example.predictions:
        console.print(f"    {g.points:g}/{g.max_points:g}  {g.reason}", highlight=False)
    console.print(f"    {example.explanations[0].comment}", highlight=False)
    console.print(f"\n  CSV: {write_csv(records, dst / 'reports' / assignment / 'grades.csv')}")
    console.print(f"  calibration plot: {plot_calibration(records, dst / 'reports' / assignment / 'calibration.png')}")
    console.print(f"\ndemo finished in {time.perf_counter() - t0:.0f} s; everything is under {dst}")
