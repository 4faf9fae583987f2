"""`autograder new` and `autograder lint`: writing a lesson."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._common import CourseOpt, console, course_at, friendly_errors


@friendly_errors
def new(
    name: Annotated[str, typer.Argument(help="Lesson (assignment) name, e.g. 06_attention.")],
    course: CourseOpt = Path("."),
) -> None:
    """Scaffold source/NAME/ (lesson.toml, workload.py, NAME.ipynb): a small working lesson to edit.

    Next: `autograder lint NAME`, `autograder bench NAME`, `nbgrader generate_assignment NAME`
    (docs/authoring.md walks through it)."""
    # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
    from ..authoring import scaffold_lesson

    folder = scaffold_lesson(course_at(course).root / "source", name)
    console.print(f"created {folder}: lesson.toml, workload.py, {name}.ipynb", highlight=False, soft_wrap=True)
    console.print(f"next: autograder lint {name}   then   autograder bench {name}   (see docs/authoring.md)",
                  highlight=False, soft_wrap=True)


@friendly_errors
def lint(
    name: Annotated[str, typer.Argument(help="Lesson (assignment) name: a folder under source/.")],
    course: CourseOpt = Path("."),
    strict: Annotated[bool, typer.Option(help="Treat warnings (e.g. no reference yet) as errors.")] = False,
    execute: Annotated[
        bool,
        typer.Option(
            help="Also run the blank release top to bottom (Run All) in a Jupyter kernel here and check that "
            "nothing unpredicted is shown or sealed (about half a minute)."
        ),
    ] = False,
    device: Annotated[
        str | None,
        typer.Option(help="Check the reference of this device (e.g. cpu) instead of the device of record."),
    ] = None,
) -> None:
    """Check that lesson.toml, workload.py and the notebook agree: one line per problem.

    Every quantity needs a prediction cell and a graded cell, grade ids must be unique and present,
    tolerances sane, peak names known, every measure/sweep cell after the predictions of what it reveals,
    and a reference must exist for the device of record (or --device). Exit 1 on errors."""
    from ..errors import LessonSpecError

    c = course_at(course)
    folder = c.root / "source" / name
    if not folder.is_dir():  # said before the linter (and torch) is imported: a typo answers at once
        raise LessonSpecError(_no_lesson(c.root, name))
    # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
    from ..authoring import lint_lesson
    from ..config import CourseSettings
    device = device or CourseSettings.load(c.root).policy.device_of_record
    findings = lint_lesson(folder, c.references, device, execute=execute)
    for f in findings:
        console.print(f"{name}: {f}", highlight=False, soft_wrap=True)
    errors = [f for f in findings if f.level == "error" or strict]
    if not findings:
        ran = "; Run All on the blank release shows nothing unpredicted" if execute else ""
        console.print(f"{name}: OK (spec, workload, notebook and the {device} reference agree{ran})")
    if errors:
        raise typer.Exit(1)


def _no_lesson(root: Path, name: str) -> str:
    """Why `lint NAME` has nothing to check, and what to do: not a course here, or a name close to one."""
    if not (root / "nbgrader_config.py").exists():
        return (f"no lesson {name!r}: {root} is not a course (no nbgrader_config.py); run from the course folder "
                "or pass -C COURSE")
    lessons = sorted(p.parent.name for p in (root / "source").glob("*/lesson.toml"))
    # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
    import difflib

    close = difflib.get_close_matches(name, lessons, n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    return f"no lesson {name!r} under {root / 'source'} (lessons there: {', '.join(lessons) or 'none'}){hint}"
