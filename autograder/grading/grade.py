"""Grade one submission from its reading: the single function every grading path calls."""

from __future__ import annotations

import ast
import textwrap
import unicodedata
from collections.abc import Mapping
from datetime import datetime, timezone

from ..kinds import kind_of
from ..ledger import committed_predictions, set_aside_predictions
from ..preread import grade_explanation
from ..records import ExplanationGrade, PredictionGrade, ReferenceRun, SubmissionGrade
from ..spec import ExplanationSpec, LessonSpec
from .policy import GradingPolicy
from .reader import SubmissionReading
from .references import ReferenceSet
from .scoring import grade_prediction
from .student_kernel import grade_student_kernel, kernel_results

__all__ = ["capped_explanation", "grade_cell_text", "grade_quantity", "grade_submission", "lookalike_ids"]

#: letters of other scripts (and punctuation) that look like the ASCII ones a quantity id is made of
_CONFUSABLE = str.maketrans({
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y",
    "х": "x", "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ɡ": "g", "һ": "h", "ո": "n", "ս": "u", "ԛ": "q", "ԝ": "w",
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
    "ı": "i", "ℓ": "l", "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "−": "-", "ˆ": "^", "‚": ",",
    "٫": ",", "＠": "@", "ɑ": "a",
})


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
    committed = committed_predictions(reading.entries)
    p = committed.get(qid)
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
    if p is None:
        near = lookalike_ids(qid, [k for k in committed if k not in spec.grade_ids])
        if near:
            found = near[0]
            value = committed[found].value
            shown = kind_of(q).show_committed(value) if isinstance(value, float) else repr(value)
            g = g.model_copy(
                update={
                    "flags": [*g.flags, "quantity_id_lookalike"],
                    "reason": g.reason.rstrip(".") + f" under its id {qid!r}: your ledger holds a prediction of "
                    f"{shown} under {found!a}, which differs from it ({_difference(found, qid)}), so it was "
                    "not graded (a prediction counts only under the id the lesson's cell commits).",
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
    choice = refs.choose(reading.student_device, reading.student_device_name, reading.student_meta)
    ref, note = choice.reference, choice.note
    if ref.device.kind in ("cpu", "cuda"):  # the cases this kind of device measured (lesson.toml [devices])
        spec = spec.for_device(ref.device.kind)
    predictions = [grade_quantity(q.id, reading, spec, ref, note, policy) for q in spec.quantities]
    if spec.student_variant is not None:  # a kernel the student wrote: run, gated, measured (student_kernel.py)
        predictions = grade_student_kernel(
            reading, spec, ref, note, policy, predictions, kernel_results(refs), grade_quantity
        )
    others = refs.of_other_lessons(ref.device.key) if spec.explanations else {}
    explanations = [
        capped_explanation(reading.explanations.get(e.grade_id, ""), spec, e, ref, policy.explanation_max_chars,
                           others)
        for e in spec.explanations
    ]
    flags: list[str] = [*reading.flags, *choice.flags]
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


def capped_explanation(
    text: str, spec: LessonSpec, ex: ExplanationSpec, ref: ReferenceRun | None, max_chars: int,
    others: Mapping[str, ReferenceRun] | None = None,
) -> ExplanationGrade:
    """The pre-read of an explanation, of at most its first ``max_chars`` characters (cut at a space where
    one is near, so that no number is cut in two): a longer text is flagged ``truncated`` and its comment
    says how much of it was read."""
    if len(text) <= max_chars:
        return grade_explanation(text, spec, ex, ref, others=others)
    cut = text[:max_chars]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    if space >= max_chars - 200 and not text[max_chars].isspace():
        cut = cut[:space]
    g = grade_explanation(cut, spec, ex, ref, others=others)
    return g.model_copy(
        update={
            "flags": [*g.flags, "truncated"],
            "comment": g.comment + f" Only the first {len(cut):,} of this answer's {len(text):,} characters were "
            f"read (the course reads at most {max_chars:,} per explanation).",
        }
    )


def _skeleton(text: str) -> str:
    """What an id looks like: compatibility forms folded, invisible characters and spaces dropped, case
    folded, letters of other scripts that look like Latin ones mapped to them."""
    norm = unicodedata.normalize("NFKC", text)
    kept = "".join(c for c in norm if not c.isspace() and unicodedata.category(c) not in ("Cf", "Cc", "Zs"))
    return kept.casefold().translate(_CONFUSABLE)


def lookalike_ids(qid: str, others: list[str]) -> list[str]:
    """The ids among ``others`` that look like ``qid`` without being it (case, spaces, invisible or
    look-alike characters)."""
    want = _skeleton(qid)
    return sorted(o for o in others if isinstance(o, str) and o != qid and _skeleton(o) == want)


def _difference(found: str, qid: str) -> str:
    parts: list[str] = []
    if found.strip() != found:
        parts.append("spaces before or after it")
    odd = [c for c in dict.fromkeys(found) if ord(c) > 127 or not c.isprintable()]
    if odd:
        parts.append("the character(s) " + ", ".join(
            f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed').lower()}" for c in odd[:4]
        ))
    if found.strip().casefold() == qid.casefold() and found.strip() != qid:
        parts.append("upper/lower case")
    return "; ".join(parts) or "a look-alike spelling"
