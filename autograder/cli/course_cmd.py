"""`autograder quickstart COURSE`: a new course folder outside this repository, like `nbgrader quickstart`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._common import console, friendly_errors


@friendly_errors
def quickstart(
    course: Annotated[Path, typer.Argument(help="Folder of the new course (created).")],
    force: Annotated[bool, typer.Option(help="Add the starter course to a folder that is not empty.")] = False,
) -> None:
    """Make a new course: nbgrader_config.py, the starter lessons under source/ and their references.

    Then, in that folder: `nbgrader generate_assignment LESSON`, `autograder new NAME` for a lesson of
    your own (docs/authoring.md)."""
    # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
    from ..course import quickstart as make_course

    c = make_course(course, force)
    lessons = c.lessons()
    console.print(f"course created in {c.root}: nbgrader_config.py, source/ ({', '.join(lessons)}), references/",
                  highlight=False, soft_wrap=True)
    console.print(f"next: cd {course} && nbgrader generate_assignment {lessons[0] if lessons else 'LESSON'}   "
                  "then   autograder new NAME   for a lesson of your own", highlight=False, soft_wrap=True)
