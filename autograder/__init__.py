"""Autograded GPU performance lessons: committed predictions graded against measured references.

The public API, imported lazily so that ``import autograder`` stays cheap (torch is loaded only by what
measures)::

    from autograder import Lesson                      # in a lesson notebook
    from autograder import run_reference, ReferenceStore
    from autograder import read_notebook_bytes, grade_submission, grade_class, GradingPolicy
    from autograder import CourseSettings              # a course's nbgrader_config.py, read once

Records are in :mod:`autograder.records`, errors in :mod:`autograder.errors`.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Lesson": "autograder.lesson",
    "LessonSpec": "autograder.spec",
    "load_spec": "autograder.spec",
    "Course": "autograder.course",
    "CourseSettings": "autograder.config",
    "Workload": "autograder.workload",
    "Work": "autograder.workload",
    "Fact": "autograder.workload",
    "register_kind": "autograder.kinds",
    "run_reference": "autograder.bench.runner",
    "ReferenceStore": "autograder.bench.store",
    "TimingPolicy": "autograder.bench.timing",
    "GradingPolicy": "autograder.grading.policy",
    "read_notebook_bytes": "autograder.grading.reader",
    "grade_submission": "autograder.grading.grade",
    "grade_class": "autograder.batch.fast",
    "RecordStore": "autograder.storage.records_store",
    "AutograderError": "autograder.errors",
}

__all__ = [
    "AutograderError",
    "Course",
    "CourseSettings",
    "Fact",
    "GradingPolicy",
    "Lesson",
    "LessonSpec",
    "RecordStore",
    "ReferenceStore",
    "TimingPolicy",
    "Work",
    "Workload",
    "grade_class",
    "grade_submission",
    "load_spec",
    "read_notebook_bytes",
    "register_kind",
    "run_reference",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'autograder' has no attribute {name!r}")


def __dir__() -> list[str]:
    return [*__all__, "__version__"]
