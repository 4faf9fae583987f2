"""CLI plumbing shared by the subcommands: one console, errors as one red line, course resolution."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from ..course import Course
from ..errors import AutograderError

console = Console(stderr=False)
err_console = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])

CourseOpt = Annotated[Path, typer.Option("--course", "-C", help="Course root (folder of nbgrader_config.py).")]


def friendly_errors(fn: F) -> F:
    """Turn the package's own errors into one readable line and exit code 2 instead of a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AutograderError as exc:
            err_console.print(f"[bold red]error:[/] {exc}", soft_wrap=True, highlight=False)
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


def course_at(path: Path) -> Course:
    return Course.at(path)
