"""Grade one submission from its reading: the single function every grading path calls."""

from __future__ import annotations

import ast
import textwrap
from datetime import datetime, timezone

from ..kinds import kind_of
from ..ledger import committed_predictions, set_aside_predictions
from ..preread import grade_explanation
from ..records import PredictionGrade, ReferenceRun, SubmissionGrade
from ..spec import LessonSpec
from .policy import GradingPolicy
from .reader import SubmissionReading
from .references import ReferenceSet
from .scoring import grade_prediction

__all__ = ["grade_cell_text", "grade_quantity", "grade_submission"]


def grade_cell_text(g: PredictionGrade) -> str:
    """What a graded test cell prints under nbgrader (``L.grade``), and what the fast batch's autograded
    notebook shows in its place: the points and the reason, wrapped (feedback HTML and formgrader show
    outputs in a box that scrolls sideways, not wraps)."""
    return textwrap.fill(
        f"{g.points:.2f}/{g.max_points:g} points — {g.reason}", width=96, subsequent_indent="    ",
        break_long_words=False, break_on_hyphens=False,
    )


def grade_quantity(
    qid: str, reading: SubmissionReading, spec: LessonSpec, ref: ReferenceRun, note: str, policy: GradingPolicy
) -> PredictionGrade:
    """One quantity's grade: what the nbgrader test cell prints and returns, and what the batch stores."""
    q = spec.quantity(qid)
    p = committed_predictions(reading.entries).get(qid)
    chain_ok = reading.verdict.status in ("ok", "missing")
    g = grade_prediction(
        q,
        spec.grade_ids[qid],
        p,
        ref.quantities.get(qid),
        ref.device.name,
        policy,
        chain_ok=chain_ok,
        chain_reason="; ".join(reading.verdict.reasons),
        device_note=note,
    )
    if p is None and reading.verdict.restarts:
        earlier = set_aside_predictions(reading.entries).get(qid)
        if earlier is not None:
            value = earlier.value
            shown = kind_of(q).show_committed(value) if isinstance(value, float) else repr(value)
            g = g.model_copy(
                update={
                    "reason": g.reason.rstrip(".") + f" since you started over (the {shown} you had committed "
                    "before starting over no longer counts: run its prediction cell again to commit it)."
                }
            )
    if spec.grade_ids[qid] in reading.missing_cells:
        return g.model_copy(
            update={
                "points": 0.0,
                "fraction": 0.0,
                "flags": [*g.flags, "test_cell_missing"],
                "reason": f"the test cell {spec.grade_ids[qid]} was deleted or renamed in your notebook, so it "
                f"earns nothing (nbgrader scores a missing test cell 0). What it would have said: {g.reason}",
            }
        )
    literal = reading.source_values.get(qid)
    if p is not None and literal is not None and _differs(literal, p.value):
        g = g.model_copy(
            update={
                "flags": [*g.flags, "source_not_run"],
                "reason": g.reason + f" Note: the cell now says {literal}, but that was never run; the committed "
                f"{p.value!r} is what counts.",
            }
        )
    return g


def grade_submission(
    reading: SubmissionReading,
    spec: LessonSpec,
    refs: ReferenceSet,
    policy: GradingPolicy,
    student: str,
    now: datetime | None = None,
) -> SubmissionGrade:
    graded_at = now or datetime.now(timezone.utc)
    if reading.errors and reading.verdict.status == "missing" and not reading.explanations:
        return SubmissionGrade(
            student=student,
            assignment=spec.id,
            notebook=spec.notebook,
            notebook_sha256=reading.sha256,
            device_of_record=None,
            chain=reading.verdict,
            errors=reading.errors,
            max_total=spec.max_points,
            flags=["unreadable"],
            graded_at=graded_at,
        )
    ref, note = refs.for_student(reading.student_device, reading.student_device_name, reading.student_meta)
    if ref.device.kind in ("cpu", "cuda"):  # the cases this kind of device measured (lesson.toml [devices])
        spec = spec.for_device(ref.device.kind)
    predictions = [grade_quantity(q.id, reading, spec, ref, note, policy) for q in spec.quantities]
    explanations = [
        grade_explanation(reading.explanations.get(e.grade_id, ""), spec, e, ref) for e in spec.explanations
    ]
    flags: list[str] = []
    if reading.verdict.status not in ("ok", "missing"):
        flags.append(f"chain_{reading.verdict.status}")
    if reading.verdict.restarts:
        flags.append(f"started_over:{reading.verdict.restarts}")
    flags += [f"{f}:{p.quantity}" for p in predictions for f in p.flags if f not in ("missing",)]
    flags += [f"tampered:{c}" for c in reading.tampered_cells]
    flags += [f"cell_deleted:{c}" for c in reading.missing_cells]
    flags += [f"cell_duplicated:{c}" for c in reading.duplicate_cells]
    flags += [f"explanation_{f}:{e.grade_id}" for e in explanations for f in e.flags]
    return SubmissionGrade(
        student=student,
        assignment=spec.id,
        notebook=spec.notebook,
        notebook_sha256=reading.sha256,
        device_of_record=ref.device.key,
        chain=reading.verdict,
        predictions=predictions,
        explanations=explanations,
        flags=flags,
        errors=reading.errors,
        unanswered=reading.unanswered_cells,
        total=round(sum(p.points for p in predictions), 4),
        max_total=spec.max_points,
        graded_at=graded_at,
    )


def _differs(source_literal: str, committed: float | str | None) -> bool:
    try:
        value = ast.literal_eval(source_literal)
    except (ValueError, SyntaxError):
        return True
    if value is None:
        return False  # the template placeholder: nothing was typed there
    if isinstance(value, (int, float)) and isinstance(committed, (int, float)):
        return float(value) != float(committed)
    return value != committed
