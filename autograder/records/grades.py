"""Grade records. A submission that cannot be graded still gets a record that says why."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from ._base import Record
from .ledger import ChainVerdict

__all__ = ["ExplanationGrade", "FoundNumber", "PredictionGrade", "SubmissionGrade"]


class PredictionGrade(Record):
    quantity: str
    grade_id: str = Field(description="nbgrader grade_id of the test cell that carries these points")
    predicted: float | str | None
    reference: float | str | None
    ratio: float | None = Field(default=None, description="predicted / reference for ratio quantities")
    fraction: float = Field(ge=0.0, le=1.0)
    points: float = Field(ge=0.0)
    max_points: float = Field(gt=0.0)
    reason: str
    device: str | None = None
    method: str | None = None
    flags: list[str] = Field(default_factory=list)


class FoundNumber(Record):
    """A number found in an explanation, what the sentence says it is about, and what the work model and
    the reference say of it."""

    text: str
    value: float
    unit: str
    kind: str
    matches: str | None = Field(default=None, description="the model fact it agrees with, if any")
    verdict: Literal["match", "given", "misattributed", "unmatched", "unchecked"] = "unmatched"
    about: str | None = Field(default=None, description="the variant and case the sentence says it is about")
    actually: str | None = Field(default=None, description="for a misattributed number: whose figure it is")
    of: str | None = Field(default=None, description="the variant the matched fact is about (None: no one variant)")
    span: tuple[int, int] | None = Field(default=None, description="where it is in the answer (characters)")


class ExplanationGrade(Record):
    grade_id: str
    found: list[FoundNumber]
    matched: int
    suggested_fraction: float = Field(ge=0.0, le=1.0)
    max_points: float
    comment: str
    flags: list[str] = Field(default_factory=list)


class SubmissionGrade(Record):
    student: str
    assignment: str
    notebook: str
    notebook_sha256: str | None
    device_of_record: str | None
    chain: ChainVerdict
    predictions: list[PredictionGrade] = Field(default_factory=list)
    explanations: list[ExplanationGrade] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    unanswered: list[str] = Field(default_factory=list, description="manual cells left as released (score 0)")
    total: float = 0.0
    max_total: float = 0.0
    graded_at: datetime

    def cell_scores(self) -> dict[str, float]:
        """grade_id -> auto score, as written into nbgrader's gradebook."""
        return {p.grade_id: p.points for p in self.predictions}
