"""The student-facing lesson API: :class:`Lesson`, a facade over one object per mode the notebook runs in
(the student's kernel, ``nbgrader validate``, ``nbgrader autograde``), what its cells print rendered apart
(:mod:`.tables`)."""

from .session import Lesson

__all__ = ["Lesson"]
