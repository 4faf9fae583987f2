"""Course-level grading rules, one pydantic model shared by every grading path: the ``c.LessonGrading``
section of nbgrader_config.py (read by :class:`autograder.config.CourseSettings`), each rule's one default here."""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, Field

from ..records._base import Record

__all__ = ["GradingPolicy"]


class GradingPolicy(Record):
    device_of_record: str = Field(default="nvidia-h200", description="reference device key the course grades on")
    use_student_gpu: bool = Field(
        default=True, description="grade against the student's own GPU model when a reference for it exists"
    )
    revised_after_measurement: Literal["flag", "penalty", "zero"] = "penalty"
    revised_penalty: float = Field(default=0.5, ge=0.0, le=1.0, description="fraction of credit kept")
    started_over_after_measurement: Literal["flag", "penalty", "zero"] = Field(
        default="penalty",
        description="what a prediction committed after starting over costs when its quantity had been measured "
        "before the restart (and the value differs from the one committed before measuring)",
    )
    started_over_penalty: float = Field(
        default=0.5, ge=0.0, le=1.0, description="fraction of credit kept under the 'penalty' policy"
    )
    untrusted_chain: Literal["zero", "flag"] = Field(
        default="zero", description="what a broken/forged/inconsistent chain costs its predictions"
    )
    explanation_max_chars: int = Field(
        default=20_000, ge=100, description="characters of one explanation the pre-reader reads; the rest is "
        "not read, and the record says so (explanation_truncated)",
    )
    submission_deadline_s: float = Field(
        default=60.0,
        ge=0.0,
        # nbgrader_config.py spells it c.LessonGrading.submission_deadline
        validation_alias=AliasChoices("submission_deadline_s", "submission_deadline"),
        description="seconds the fast batch gives one submission before it stops grading it and records why "
        "(grading_timeout); 0: no deadline (`autograder grade --deadline` overrides it)",
    )
    preread_in_feedback: bool = Field(
        default=True,
        description="show students the explanation pre-read in their feedback (below the instructor's comment, "
        "if any); False: only the instructor's comment. Formgrader always shows it to the instructor",
    )
