"""`autograder check NOTEBOOK`: the student's pre-submission check, like `nbgrader validate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import NotebookReadError
from ..grading.checklist import checklist, restart_notes, summary_line
from ..grading.reader import read_notebook_bytes
from ..spec import load_spec
from ..tables import print_table
from ._common import console, friendly_errors
from ._views import checklist_table, print_lines


@friendly_errors
def check(
    notebook: Annotated[Path, typer.Argument(help="The lesson notebook you are about to submit.")],
    lesson: Annotated[Path | None, typer.Option(help="lesson.toml (default: beside the notebook).")] = None,
) -> None:
    """List every prediction as committed, revised, restarted, invalid or missing, and any notebook problem.

    Exit code 0 when every prediction is committed and valid, 1 otherwise.
    """
    if not notebook.is_file():
        raise NotebookReadError(f"{notebook}: no such file")
    spec = load_spec(lesson or notebook.parent)
    reading = read_notebook_bytes(notebook.read_bytes(), spec)
    rows, problems = checklist(reading, spec)
    unsaved = _unsaved(notebook.parent / f".{spec.id}.ledger.json", len(reading.entries))
    if unsaved:
        problems.insert(0, unsaved)
    print_table(console, checklist_table(rows))
    notes = [f"! {p}" for p in problems] + [f"↺ {n}" for n in restart_notes(reading)]
    print_lines(console, [*notes, summary_line(rows, problems)])
    if problems or not all(r.ok for r in rows):
        raise typer.Exit(1)


def _unsaved(sidecar: Path, in_file: int) -> str | None:
    """The lesson keeps its ledger beside the notebook too: more entries there than in the file means the
    notebook was not saved since the last commitment, and the file (what is submitted) lacks them."""
    # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
    import json

    try:
        beside = len(json.loads(sidecar.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None
    if beside <= in_file:
        return None
    return (
        f"the notebook file is not saved: its ledger has {in_file} entries, the lesson's ledger beside it "
        f"{beside}; save the notebook (File → Save, or Ctrl+S) and check again before you submit"
    )
