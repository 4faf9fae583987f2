"""Scoring one prediction against a reference: pure, and every score carries a readable sentence.

How close counts as close is each quantity kind's business (:mod:`autograder.kinds`: ratios score on
|log(predicted/measured)| with bands widened by the reference's measured spread, so that noise never costs
a student a point); this module applies the course policy around it: missing, invalid, unreasoned,
untrusted and revised predictions.
"""

from __future__ import annotations

from typing import Any

from ..kinds import kind_of
from ..records import Prediction, PredictionGrade, Quantity, QuantityValue
from .policy import GradingPolicy
from .values import check_value

__all__ = ["grade_prediction"]


def grade_prediction(
    q: Quantity,
    grade_id: str,
    prediction: Prediction | None,
    ref: QuantityValue | None,
    device_name: str,
    policy: GradingPolicy,
    chain_ok: bool = True,
    chain_reason: str = "",
    device_note: str = "",
) -> PredictionGrade:
    """Grade one quantity. Never raises: missing or invalid input is a zero with its reason."""
    base: dict[str, Any] = dict(
        quantity=q.id, grade_id=grade_id, max_points=q.points, device=device_name, method=q.method
    )
    kind = kind_of(q)
    what = kind.describe(q)
    if prediction is None:
        return PredictionGrade(
            predicted=None,
            reference=ref.value if ref else None,
            fraction=0.0,
            points=0.0,
            reason=f"no committed prediction for the {what}.",
            flags=["missing"],
            **base,
        )
    flags: list[str] = []
    if not chain_ok:
        flags.append("untrusted_chain")
        if policy.untrusted_chain == "zero":
            return PredictionGrade(
                predicted=prediction.value,
                reference=ref.value if ref else None,
                fraction=0.0,
                points=0.0,
                flags=flags,
                **base,
                reason=f"your commitment chain cannot be trusted ({chain_reason}); predictions in it earn no credit.",
            )
    value, problem = check_value(q, prediction.value)
    if problem is not None:
        return PredictionGrade(
            predicted=prediction.value,
            reference=ref.value if ref else None,
            fraction=0.0,
            points=0.0,
            reason=f"your prediction cannot be graded: {problem}.",
            flags=[*flags, "invalid_value"],
            **base,
        )
    if not prediction.because.strip():
        return PredictionGrade(
            predicted=value,
            reference=ref.value if ref else None,
            fraction=0.0,
            points=0.0,
            reason="your prediction has no reason: commit it with a one-sentence because=.",
            flags=[*flags, "no_reason"],
            **base,
        )
    if len(prediction.because) > 2000:
        flags.append("reason_too_long")
    if ref is None:
        return PredictionGrade(
            predicted=value,
            reference=None,
            fraction=0.0,
            points=0.0,
            flags=[*flags, "no_reference"],
            reason=f"the {device_name} reference has no value for the {what}; ask your instructor.",
            **base,
        )
    assert value is not None
    where = f"the {device_name} reference measured {kind.show(ref.value)} {kind.where(q)}"
    score = kind.score(q, value, ref)
    frac, ratio = score.fraction, score.ratio
    reason = f"you predicted {kind.show(value)}; {where}; {score.verdict}"
    # (flag, what the student reads, policy, fraction kept under "penalty"); when both apply, the harsher counts
    costs: list[tuple[str, str, str, float]] = []
    if prediction.started_over_after_measurement:
        costs.append(
            (
                "started_over_after_measurement",
                "committed after starting over; you had measured this before",
                policy.started_over_after_measurement,
                policy.started_over_penalty,
            )
        )
    if prediction.revised_after_measurement:
        when = (
            "first committed after you had measured it"
            if prediction.first_committed_after_measurement
            else "revised after you measured it"
        )
        costs.append(("revised_after_measurement", when, policy.revised_after_measurement, policy.revised_penalty))
    if costs:
        flags += [flag for flag, _, _, _ in costs]
        when = " and ".join(w for _, w, _, _ in costs)
        modes = {mode for _, _, mode, _ in costs}
        if "zero" in modes:
            frac = 0.0
            reason += f"; {when} → no credit"
        elif "penalty" in modes:
            kept = min(pen for _, _, mode, pen in costs if mode == "penalty")
            frac *= kept
            reason += f"; {when} → {100 * kept:.0f}% of that kept"
        else:
            reason += f"; {when} (flagged for your instructor)"
    if device_note:
        reason += f" ({device_note})"
    points = round(frac * q.points, 4)
    return PredictionGrade(
        predicted=value,
        reference=ref.value,
        ratio=ratio,
        fraction=round(frac, 6),
        points=points,
        reason=reason + ".",
        flags=flags,
        **base,
    )
