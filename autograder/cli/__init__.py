"""The ``autograder`` command. Each subcommand lives in its own module; this file only wires them."""

from __future__ import annotations

import typer

from . import bench_cmd

app = typer.Typer(
    name="autograder",
    help="Autograded GPU performance lessons: measure references, check and grade committed predictions.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("bench")(bench_cmd.bench)
app.command("plot")(bench_cmd.plot)


def main() -> None:
    app()
