"""In a student's notebook, a mistake the student can fix (a prediction written the wrong way, a quantity
misspelled, a lesson.toml that does not load) is one line saying what to do, not a traceback through the
package: :func:`one_line_errors` registers IPython's handler for the package's own errors.

The cell still fails (an ``error`` output, an ``error`` reply: Run All stops there, as it would at any
error); only what is shown changes. Outside IPython (a script, a test) nothing is registered and the error
is raised as usual."""

from __future__ import annotations

from typing import Any

from ..errors import AutograderError

__all__ = ["one_line", "one_line_errors"]

RED, RESET = "\x1b[31m", "\x1b[0m"


def one_line(exc: BaseException) -> str:
    """What the student reads for one of the package's errors: its message, marked as not done."""
    return f"✘ {exc}"


def _show(shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: int | None = None) -> list[str]:
    stb = [f"{RED}{one_line(value)}{RESET}"]
    shell._showtraceback(etype, value, stb)
    return stb


def one_line_errors() -> bool:
    """Show the package's errors as one line in the running IPython kernel; False when there is none."""
    try:
        from IPython import get_ipython
    except ImportError:  # not in a notebook: nothing to register
        return False
    shell = get_ipython()
    if shell is None or not hasattr(shell, "set_custom_exc"):
        return False
    known = tuple(getattr(shell, "custom_exceptions", ()) or ())
    if known and known != (AutograderError,):  # someone else's handler: leave it as it is
        return False
    shell.set_custom_exc((AutograderError,), _show)
    return True
