"""Entries of the commitment chain that a notebook carries in its own outputs."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from ._base import Record

__all__ = ["LEDGER_MIME", "ChainVerdict", "LedgerEntry", "Prediction"]

#: MIME type of the cell outputs that carry the ledger; nbgrader and Jupyter keep unknown MIME types.
LEDGER_MIME = "application/vnd.gpu-lessons.ledger+json"


class LedgerEntry(Record):
    """One link of the chain. ``hash`` = sha256 over the canonical JSON of every other field.

    ``restart``: the student started over (``Lesson.start_over``). Predictions before it no longer count;
    nothing is removed, so what was measured before it stays in the chain for grading to see."""

    seq: int = Field(ge=0)
    kind: Literal["genesis", "prediction", "measurement", "restart"]
    quantity: str | None = None
    value: float | str | None = None
    because: str | None = None
    at: datetime
    meta: dict[str, str] = Field(default_factory=dict)
    prev: str
    hash: str


class Prediction(Record):
    """The prediction that counts for one quantity: the last one committed in the chain."""

    quantity: str
    value: float | str | None = Field(description="None only when a chain was edited to hold null")
    because: str
    at: datetime
    seq: int
    revisions: int = Field(default=0, ge=0, description="earlier predictions for the same quantity")
    revised_after_measurement: bool = False
    first_committed_after_measurement: bool = Field(
        default=False, description="no prediction existed before the measurement (not a change of mind)"
    )
    started_over_after_measurement: bool = Field(
        default=False,
        description="committed after the student started over, for a quantity measured before that, with a "
        "value other than the one committed before its first measurement",
    )


class ChainVerdict(Record):
    """What the chain verifier concluded about one submitted notebook."""

    status: Literal["ok", "missing", "broken", "forged", "inconsistent"]
    entries: int = 0
    genesis: str | None = Field(default=None, description="hash of the genesis entry (detects copied chains)")
    restarts: int = Field(default=0, ge=0, description="times the student started over (restart entries)")
    reasons: list[str] = Field(default_factory=list)

    @property
    def trusted(self) -> bool:
        return self.status == "ok"
