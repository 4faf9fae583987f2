"""What a student sees before submitting: each prediction committed, valid, or missing.

Shared by ``Lesson.status()`` in the notebook and ``autograder check NOTEBOOK`` on the command line.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..kinds import kind_of
from ..ledger import committed_predictions, measured_values, restart_entries, set_aside_predictions
from ..spec import LessonSpec
from .reader import SubmissionReading
from .values import check_value

__all__ = ["MARKS", "CheckRow", "checklist", "render_checklist", "restart_notes", "summary_line"]

MARKS = {"committed": "✔", "revised": "⚠", "restarted": "⚠", "invalid": "✘", "missing": "✘"}


@dataclass(frozen=True)
class CheckRow:
    quantity: str
    state: str  # committed | revised | restarted | invalid | missing
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
    set_aside = set_aside_predictions(reading.entries)
    rows: list[CheckRow] = []
    for q in spec.quantities:
        p = preds.get(q.id)
        if p is None:
            note = (
                "not committed since you started over: run its prediction cell again"
                if q.id in set_aside
                else "no prediction committed: fill in the value and run the cell"
            )
            rows.append(CheckRow(q.id, "missing", "—", note))
            continue
        _, problem = check_value(q, p.value)
        kind = kind_of(q)
        shown = kind.show_committed(p.value) if isinstance(p.value, float) else str(p.value)[:20]
        if problem:
            rows.append(CheckRow(q.id, "invalid", shown, problem))
        elif not p.because.strip():
            rows.append(CheckRow(q.id, "invalid", shown, "no because= reason given"))
        elif p.revised_after_measurement or p.started_over_after_measurement:
            why = []
            if p.started_over_after_measurement:
                why.append("committed after starting over; you had measured this before")
            if p.revised_after_measurement:
                why.append(
                    "committed only after you measured it"
                    if p.first_committed_after_measurement
                    else "changed after you measured it"
                )
            state = "revised" if p.revised_after_measurement else "restarted"
            rows.append(CheckRow(q.id, state, shown, " and ".join(why) + ": the course policy applies"))
        else:
            m = measured.get(q.id)
            note = (
                "measured: not yet"
                if m is None
                else "you have seen part of it"
                if m.value is None
                else f"you measured {m.value if isinstance(m.value, str) else kind.show(float(m.value))}"
            )
            rows.append(CheckRow(q.id, "committed", shown, note))
    return rows, problems


def restart_notes(reading: SubmissionReading) -> list[str]:
    """What starting over changed, for the student: not a problem, but graded (docs/reliability.md)."""
    restarts = restart_entries(reading.entries)
    if not restarts:
        return []
    times = "once" if len(restarts) == 1 else f"{len(restarts)} times"
    return [
        f"you started over {times} (last at entry #{restarts[-1].seq}): predictions committed before it no "
        "longer count, and a quantity you had measured before it is graded as committed after starting over "
        "unless you commit the value you had committed before measuring it"
    ]


def render_checklist(rows: list[CheckRow], problems: list[str], notes: list[str] | None = None) -> str:
    width = max(len(r.quantity) for r in rows) if rows else 10
    lines = [f"{MARKS[r.state]} {r.quantity:<{width}}  {r.state:<9} {r.value:<8} {r.note}" for r in rows]
    lines += [f"! {p}" for p in problems]
    lines += [f"↺ {n}" for n in notes or []]
    lines.append(summary_line(rows, problems))
    return "\n".join(lines)


def summary_line(rows: list[CheckRow], problems: list[str]) -> str:
    done = sum(r.ok for r in rows)
    return f"{done}/{len(rows)} predictions committed and valid" + ("" if problems else "; notebook OK")
