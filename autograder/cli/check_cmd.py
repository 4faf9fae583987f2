"""`autograder check NOTEBOOK`: the student's pre-submission check, like `nbgrader validate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import NotebookReadError
from ..grading.checklist import checklist, render_checklist
from ..grading.reader import read_notebook_bytes
from ..spec import load_spec
from ._common import console, friendly_errors


@friendly_errors
def check(
    notebook: Annotated[Path, typer.Argument(help="The lesson notebook you are about to submit.")],
    lesson: Annotated[Path | None, typer.Option(help="lesson.toml (default: beside the notebook).")] = None,
) -> None:
    """List every prediction as committed, revised, invalid or missing, and any notebook problem.

    Exit code 0 when every prediction is committed and valid, 1 otherwise.
    """
    if not notebook.is_file():
        raise NotebookReadError(f"{notebook}: no such file")
    spec = load_spec(lesson or notebook.parent)
    rows, problems = checklist(read_notebook_bytes(notebook.read_bytes(), spec), spec)
    console.print(render_checklist(rows, problems), highlight=False)
    if problems or not all(r.ok for r in rows):
        raise typer.Exit(1)
