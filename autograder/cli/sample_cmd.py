"""`autograder sample`: a synthetic class of realistic submissions, for demos, tests and benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..bench.store import ReferenceStore
from ..errors import AutograderError
from ..sample.generate import generate_class
from ._common import CourseOpt, console, course_at, friendly_errors


@friendly_errors
def sample(
    assignment: Annotated[str, typer.Argument(help="Assignment id.")],
    course: CourseOpt = Path("."),
    students: Annotated[int, typer.Option(help="How many students.")] = 40,
    seed: Annotated[int, typer.Option(help="Random seed (same seed, same class).")] = 0,
    device: Annotated[
        str | None, typer.Option(help="Reference the predictions scatter around (default: the device of record).")
    ] = None,
) -> None:
    """Write COURSE/submitted/<student>/ASSIGNMENT/ for N synthetic students (careful, typical, misconceived,
    adjectives-only, revising, late, blank and forging ones)."""
    c = course_at(course)
    spec = c.spec(assignment)
    if device is None:
        # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
        from ..config import CourseSettings  # reads nbgrader_config.py, which imports nbgrader

        device = CourseSettings.load(c.root).policy.device_of_record
    key = device
    ref = ReferenceStore(c.references).load(assignment, key)
    release = c.root / "release" / assignment / spec.notebook
    if not release.is_file():
        raise AutograderError(
            f"no released notebook at {release}: run `nbgrader generate_assignment {assignment}` in the course "
            "first (the sample class fills in the released notebook, as students do)"
        )
    ids = generate_class(c.root, spec, ref, release, students, seed)
    console.print(f"{len(ids)} submissions written under {c.submitted} (around the {ref.device.name} reference)")
