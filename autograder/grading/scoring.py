"""Scoring one prediction against a reference: pure, and every score carries a readable sentence.

Ratios score on |log(predicted/measured)|: full credit inside ``full_factor``, none beyond
``zero_factor``, linear in log space between; both bands widened by the reference's measured spread so
that noise never costs a student a point.
"""

from __future__ import annotations

import math
from typing import Any

from ..records import Prediction, PredictionGrade, Quantity, QuantityValue
from .policy import GradingPolicy
from .values import check_value

__all__ = ["direction_fraction", "grade_prediction", "ratio_fraction"]


def ratio_fraction(
    predicted: float, measured: float, full_log: float, zero_log: float, spread: float
) -> tuple[float, float, float, float]:
    """(fraction, error factor, full band factor, zero band factor)."""
    err = abs(math.log(predicted / measured))
    full, zero = full_log + spread, zero_log + spread
    if err <= full:
        frac = 1.0
    elif err >= zero:
        frac = 0.0
    else:
        frac = (zero - err) / (zero - full)
    return frac, math.exp(err), math.exp(full), math.exp(zero)


def direction_fraction(predicted: str, reference: str, ratio: float) -> float:
    """Exact direction: full. Said higher/lower where the change was inside the dead band but leaned
    that way: half. Anything else: none."""
    if predicted == reference:
        return 1.0
    if reference == "same" and (predicted == "higher") == (ratio > 1.0):
        return 0.5
    return 0.0


def _fmt(v: float | str) -> str:
    return f"{v:.2f}×" if isinstance(v, float) else str(v)


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
    what = f"{q.describe()}"
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
    where = f"the {device_name} reference measured {_fmt(ref.value)} ({q.method}, {q.dtype}, 2^{q.log2_n})"
    ratio: float | None = None
    if q.kind == "speedup":
        assert isinstance(value, float) and isinstance(ref.value, float)
        frac, err, full, zero = ratio_fraction(
            value, ref.ratio, q.tolerance.full_log, q.tolerance.zero_log, ref.log_spread
        )
        ratio = value / ref.ratio
        if frac == 1.0:
            verdict = f"within {full:.2f}× → full credit"
        elif frac == 0.0:
            verdict = f"off by {err:.2f}×, beyond {zero:.2f}× → no credit"
        else:
            verdict = f"off by {err:.2f}× (full credit within {full:.2f}×, none beyond {zero:.2f}×) → {100 * frac:.0f}%"
    else:
        assert isinstance(value, str) and isinstance(ref.value, str)
        frac = direction_fraction(value, ref.value, ref.ratio)
        verdict = {
            1.0: "right direction → full credit",
            0.5: f"the change ({ref.ratio:.3f}×) leaned that way but stayed inside the dead band → half credit",
            0.0: "wrong direction → no credit",
        }[frac]
    reason = f"you predicted {_fmt(value)}; {where}; {verdict}"
    if prediction.revised_after_measurement:
        flags.append("revised_after_measurement")
        if policy.revised_after_measurement == "zero":
            frac = 0.0
            reason += "; revised after you measured it → no credit"
        elif policy.revised_after_measurement == "penalty":
            frac *= policy.revised_penalty
            reason += f"; revised after you measured it → {100 * policy.revised_penalty:.0f}% of that kept"
        else:
            reason += "; revised after you measured it (flagged for your instructor)"
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
