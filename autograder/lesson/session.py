"""The API students call inside a lesson notebook.

    from autograder.lesson import Lesson
    L = Lesson.load()                       # reads lesson.toml beside the notebook
    L.predict("speedup@fp32,2^20", 2.0, because="...")
    L.measure("float32", 20)                # every variant at one point of the workload, both timing methods
    L.grade("speedup@fp32,2^20")            # test cell: a preview now, the real grade under nbgrader
    L.status()                              # committed / valid / missing, before submitting
    L.start_over()                          # a fresh start, recorded in the chain (docs/reliability.md)

:class:`Lesson` is a facade: it parses each call and hands it to the object of the mode the kernel runs in,
chosen once by :meth:`Lesson.load` from ``NBGRADER_EXECUTION`` — :class:`~.student_mode.StudentMode` (the
student's kernel: commit and measure), :class:`~.validate_mode.ValidateMode` (``nbgrader validate``: read
the ledger, change nothing) or :class:`~.grading_mode.GradingMode` (``nbgrader autograde``: nothing is
measured or re-committed; the ledger read from the *submitted* outputs is graded against the stored
reference). What the cells print is rendered in :mod:`.tables`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..records import LedgerEntry, ParamValue
from ..spec import LessonSpec, load_spec
from ._mode import Mode, kernel_credit
from ._one_line import one_line_errors
from ._output import show_text
from .grading_mode import GradingMode
from .validate_mode import ValidateMode

__all__ = ["Lesson"]


def _mode_for(execution: str | None) -> type[Mode]:
    if execution == "autograde":
        return GradingMode
    if execution == "validate":
        # `nbgrader validate` / the Validate button re-runs the saved notebook in a new kernel: it must
        # never commit, measure or change the student's ledger, only read it
        return ValidateMode
    from .student_mode import StudentMode  # here: it measures (torch); grading and validating never do

    return StudentMode


class Lesson:
    """One lesson session in one kernel; its ledger lives in the notebook outputs and a sidecar file."""

    def __init__(self, mode: Mode) -> None:
        self.mode = mode

    @classmethod
    def load(cls, folder: str | Path = ".") -> Lesson:
        f = Path(folder).resolve()
        mode = _mode_for(os.environ.get("NBGRADER_EXECUTION"))
        if mode not in (GradingMode, ValidateMode):
            one_line_errors()  # a mistake the student can fix: one line in the notebook, not a traceback
        spec = load_spec(f)
        return cls(mode(spec, f))

    @property
    def spec(self) -> LessonSpec:
        return self.mode.spec

    @property
    def folder(self) -> Path:
        return self.mode.folder

    @property
    def chain(self) -> list[LedgerEntry]:
        return self.mode.chain

    # ------------------------------------------------------------------ predictions
    def predict(self, quantity: str, value: float | str | None, because: str = "") -> None:
        """Commit a prediction (before measuring it). Refuses values that could not be graded."""
        self.mode.predict(self.spec.quantity(quantity), value, because)

    def start_over(self, because: str = "") -> None:
        """Start over before submitting: predictions committed so far no longer count; commit each again.

        Nothing is deleted: a restart entry joins the chain, so grading sees it. A quantity measured before
        the restart is graded as *committed after starting over* (its own policy, costed like a revision by
        default) unless the value committed again is the one committed before it was first measured."""
        self.mode.start_over(because)

    # ------------------------------------------------------------------ measuring
    def device(self) -> None:
        """This device and its measured ceilings: copy roofline, matrix-multiply peaks, ridge points."""
        self.mode.device()

    def measure(self, *args: ParamValue, **params: ParamValue) -> None:
        """Time every variant at one point of the lesson's parameters, both ways, and state the work model.

        Parameters are given in the workload's order (e.g. ``L.measure("float16", 24)``) or by name."""
        asked = self.spec.workload.case_params(args, params)
        self.mode.measure(asked, self.spec.substitute(self.mode.kind, asked))

    def sweep(self, *args: ParamValue, **fixed: ParamValue) -> None:
        """The size sweep of this device (to the memory-bound regime on a GPU), both timing methods, at
        the fixed parameters given (e.g. ``L.sweep("float16")``)."""
        self.mode.sweep(self.spec.workload.case_params(args, fixed))

    def measure_student(self, fn: Any) -> None:
        """Check and time the student's own kernel ``fn`` (the lesson's ``[student_variant]``) on this
        device with the grader's timing code (``autograder.kernels.measure_function``), next to the
        lesson's first variant at the same case; seal what it shows, as :meth:`measure` does."""
        if self.spec.student_variant is None:
            show_text(f"✘ lesson {self.spec.id} declares no [student_variant]: there is no kernel of yours to measure.")
            return
        self.mode.measure_student(fn)

    # ------------------------------------------------------------------ grading and checking
    def grade_kernel(self, part: str) -> float | None:
        """Test cell of the student's own kernel: ``"correctness"`` or ``"performance"``. Under nbgrader
        the points the grader gave (it ran the kernel on the device of record); for the student a note."""
        return self.mode.grade_kernel(part, kernel_credit(self.spec, part))

    def grade(self, quantity: str) -> float | None:
        """Test cell: under nbgrader the points (partial credit); for the student a preview."""
        return self.mode.grade(self.spec.quantity(quantity))

    def status(self) -> None:
        """Before submitting: every prediction committed, valid, or missing (like `autograder check`)."""
        self.mode.status()
