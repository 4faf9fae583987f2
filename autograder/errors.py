"""The package's error hierarchy.

Every error a user can meet derives from :class:`AutograderError`, so the CLI can turn any of them into
one readable line instead of a traceback.  Grading never raises these for a *bad submission*: a bad
submission is a verdict in its record, not an exception.  These errors are for misuse of the tool itself
(missing reference, broken lesson spec, bad configuration).
"""

from __future__ import annotations

__all__ = [
    "AutograderError",
    "BenchmarkError",
    "ConfigError",
    "GradebookError",
    "LessonSpecError",
    "NotebookReadError",
    "PredictionError",
    "ReferenceNotFoundError",
]


class AutograderError(Exception):
    """Base class: the message is meant for a person, one sentence, no traceback needed."""


class LessonSpecError(AutograderError):
    """An assignment's ``lesson.toml`` is missing or inconsistent (instructor error)."""


class ReferenceNotFoundError(AutograderError):
    """No ReferenceRun is stored for the requested assignment and device: run ``autograder bench``."""


class PredictionError(AutograderError, ValueError):
    """A student called ``predict`` with something that cannot be a prediction (shown in the notebook)."""


class NotebookReadError(AutograderError):
    """A file could not be read as a notebook; grading turns this into a verdict, never a crash."""


class GradebookError(AutograderError):
    """The nbgrader gradebook lacks what grading needs (assignment not generated, notebook missing)."""


class BenchmarkError(AutograderError):
    """The benchmark could not produce a trustworthy number (compiled output wrong, device too small)."""


class ConfigError(AutograderError):
    """``nbgrader_config.py`` sets a value this project cannot use, or a setting name it does not know."""
