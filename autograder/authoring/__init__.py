"""For instructors writing lessons: ``autograder new`` (a scaffold that passes its own checks) and
``autograder lint`` (does the spec agree with the notebook and the stored references?)."""

from .lint import Finding, lint_lesson
from .scaffold import scaffold_lesson

__all__ = ["Finding", "lint_lesson", "scaffold_lesson"]
