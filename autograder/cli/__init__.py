"""The ``autograder`` command. Each subcommand lives in its own module; this file only wires them.

A subcommand's module is imported only when that subcommand runs: ``autograder check`` must answer a
student in well under a second, so it must not pay for matplotlib, nbgrader or rich's progress bars that
``bench`` or ``grade`` need. ``--help`` lists the commands from the one-line summaries below. For the
same reason the command modules import heavy parts (torch, nbgrader, matplotlib, the batch) inside the
command's function: those imports are for start-up speed only, each commented so, and the import-linter
contracts in pyproject.toml see them like any other.
"""

from __future__ import annotations

import importlib
from typing import Any

import typer
from typer.core import DEFAULT_MARKUP_MODE, TyperGroup
from typer.models import CommandInfo

# name -> (module in autograder.cli, function, one-line help)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "bench": ("bench_cmd", "bench", "Measure the reference benchmark on this device and store it."),
    "plot": ("bench_cmd", "plot", "Render a stored reference's size sweep as a PNG."),
    "check": ("check_cmd", "check", "List every prediction as committed, revised, invalid or missing."),
    "grade": ("grade_cmd", "grade", "Grade every submission from its submitted notebook, fast."),
    "report": ("grade_cmd", "report", "Summarize graded records: class table, CSV, calibration plot."),
    "sample": ("sample_cmd", "sample", "Write a synthetic class of realistic submissions."),
    "demo": ("demo_cmd", "demo", "The whole pipeline on a scratch copy of the course, every lesson."),
    "new": ("author_cmd", "new", "Scaffold a new lesson folder under source/ that passes its own checks."),
    "lint": ("author_cmd", "lint", "Check that a lesson's toml, workload, notebook and reference agree."),
    "quickstart": ("course_cmd", "quickstart", "Make a new course folder: nbgrader_config.py and the starter lessons."),
}


class _LazyGroup(TyperGroup):
    """Builds a subcommand from its module on first use; lists them without importing any."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in COMMANDS:
            return None
        module, attr, _ = COMMANDS[cmd_name]
        fn = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
        return typer.main.get_command_from_info(
            CommandInfo(name=cmd_name, callback=fn), pretty_exceptions_short=True, rich_markup_mode=DEFAULT_MARKUP_MODE
        )

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, line) for name, (_, _, line) in COMMANDS.items()])


app = typer.Typer(
    name="autograder",
    help="Autograded GPU performance lessons: measure references, check and grade committed predictions.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=_LazyGroup,
)


@app.callback()
def _root() -> None:
    """Autograded GPU performance lessons: measure references, check and grade committed predictions."""


def main() -> None:
    import sys

    # jsonschema (under nbformat and nbgrader) imports rfc3987_syntax, when installed, to check the "iri"
    # string format; that import compiles a grammar and costs seconds on every start. Nothing here
    # validates that format, so the CLI process (and the graders it forks) go without it.
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    app()
