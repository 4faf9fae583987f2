"""What a student sees before submitting: each prediction committed, valid, or missing.

Shared by ``Lesson.status()`` in the notebook and ``autograder check NOTEBOOK`` on the command line.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..kinds import kind_of
from ..ledger import committed_predictions, measured_values
from ..spec import LessonSpec
from .reader import SubmissionReading
from .values import check_value

__all__ = ["CheckRow", "checklist", "render_checklist"]


@dataclass(frozen=True)
class CheckRow:
    quantity: str
    state: str  # committed | revised | invalid | missing
    value: str
    note: str

    @property
    def ok(self) -> bool:
        return self.state == "committed"


def checklist(reading: SubmissionReading, spec: LessonSpec) -> tuple[list[CheckRow], list[str]]:
    """(one row per quantity, notebook-level problems)."""
    problems = list(reading.errors)
    if reading.verdict.status not in ("ok", "missing"):
        problems.append(f"commitment chain {reading.verdict.status}: {'; '.join(reading.verdict.reasons)}")
    problems += [f"locked cell {c} was edited (it will be restored when graded)" for c in reading.tampered_cells]
    problems += [f"graded cell {c} is missing from the notebook" for c in reading.missing_cells]
    preds = committed_predictions(reading.entries)
    measured = measured_values(reading.entries)
    rows: list[CheckRow] = []
    for q in spec.quantities:
        p = preds.get(q.id)
        if p is None:
            rows.append(CheckRow(q.id, "missing", "—", "no prediction committed: fill in the value and run the cell"))
            continue
        _, problem = check_value(q, p.value)
        kind = kind_of(q)
        shown = kind.show_committed(p.value) if isinstance(p.value, float) else str(p.value)[:20]
        if problem:
            rows.append(CheckRow(q.id, "invalid", shown, problem))
        elif not p.because.strip():
            rows.append(CheckRow(q.id, "invalid", shown, "no because= reason given"))
        elif p.revised_after_measurement:
            note = (
                "committed only after you measured it: the course policy applies"
                if p.first_committed_after_measurement
                else "changed after you measured it: the course policy applies"
            )
            rows.append(CheckRow(q.id, "revised", shown, note))
        else:
            m = measured.get(q.id)
            note = (
                "measured: not yet"
                if m is None
                else f"you measured {m.value if isinstance(m.value, str) else kind.show(float(m.value or 0))}"
            )
            rows.append(CheckRow(q.id, "committed", shown, note))
    return rows, problems


def render_checklist(rows: list[CheckRow], problems: list[str]) -> str:
    mark = {"committed": "✔", "revised": "⚠", "invalid": "✘", "missing": "✘"}
    width = max(len(r.quantity) for r in rows) if rows else 10
    lines = [f"{mark[r.state]} {r.quantity:<{width}}  {r.state:<9} {r.value:<8} {r.note}" for r in rows]
    lines += [f"! {p}" for p in problems]
    done = sum(r.ok for r in rows)
    lines.append(f"{done}/{len(rows)} predictions committed and valid" + ("" if problems else "; notebook OK"))
    return "\n".join(lines)
