"""The student-facing lesson API."""

from .session import Lesson

__all__ = ["Lesson"]
