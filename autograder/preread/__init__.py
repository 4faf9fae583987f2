"""The pre-reader of explanations: find the numbers a student's explanation states, judge each one against
the lesson's work model and the reference *in the context its sentence gives it*, and suggest a score.

Other packages use it only through what this module exports (:func:`grade_explanation`,
:func:`extract_numbers`, :data:`PREREAD`, :func:`check_work_model`); the modules inside are its own. It sits
above records, workload, kinds and spec and below grading: nothing here imports ``grading``.
"""

from __future__ import annotations

from .explanations import MAX_READ, PREREAD, extract_numbers, grade_explanation
from .factbook import WorkModelError, check_work_model, work_model_problems

__all__ = [
    "MAX_READ",
    "PREREAD",
    "WorkModelError",
    "check_work_model",
    "extract_numbers",
    "grade_explanation",
    "work_model_problems",
]
