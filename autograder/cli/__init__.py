"""The ``autograder`` command. Each subcommand lives in its own module; this file only wires them."""

from __future__ import annotations

import typer

from . import author_cmd, bench_cmd, check_cmd, demo_cmd, grade_cmd, sample_cmd

app = typer.Typer(
    name="autograder",
    help="Autograded GPU performance lessons: measure references, check and grade committed predictions.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("bench")(bench_cmd.bench)
app.command("plot")(bench_cmd.plot)
app.command("check")(check_cmd.check)
app.command("grade")(grade_cmd.grade)
app.command("report")(grade_cmd.report)
app.command("sample")(sample_cmd.sample)
app.command("demo")(demo_cmd.demo)
app.command("new")(author_cmd.new)
app.command("lint")(author_cmd.lint)


def main() -> None:
    app()
