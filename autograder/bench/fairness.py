"""The fairness check: an honest student on the device of record always gets full credit.

Each process's own values stand in for a student who predicted exactly what they measured on the same
device model; they are graded, by the real scoring function, against the reference merged from the
*other* processes.  Anything short of full credit names the quantity, the process and the margin, and
keeps the reference from becoming the device of record's until the instructor accepts it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timezone

from ..grading.policy import GradingPolicy
from ..grading.scoring import grade_prediction
from ..records import Prediction
from ..records.reference import FairnessCheck, FairnessItem
from ..spec import LessonSpec
from .merge import ProcessValues, merge_quantity, value_of

__all__ = ["fairness_check", "fairness_lines"]


def _fmt(v: float | str) -> str:
    return f"{v:.3f}×" if isinstance(v, float) else v


def fairness_check(
    procs: Sequence[ProcessValues], spec: LessonSpec, device_key: str, device_name: str
) -> FairnessCheck:
    """Grade every process's own values against the reference merged from the others (leave-one-out)."""
    if len(procs) < 2:
        return FairnessCheck(
            passed=False,
            processes=len(procs),
            note=f"not checked: it needs at least 2 independent processes, this reference has {len(procs)}",
        )
    policy = GradingPolicy()
    now = datetime.now(timezone.utc)
    items: list[FairnessItem] = []
    failures: list[str] = []
    for i, held in enumerate(procs):
        others = [p for j, p in enumerate(procs) if j != i]
        for q in spec.quantities:
            if q.id not in held.quantities:
                continue
            ref = merge_quantity(q, others, device_key)
            if ref is None:
                continue
            ratio, spread = held.quantities[q.id]
            own = value_of(q, ratio, spread)
            pred = Prediction(quantity=q.id, value=own, because="fairness check: own measurement", at=now, seq=0)
            frac = grade_prediction(q, spec.grade_ids[q.id], pred, ref, device_name, policy).fraction
            margin = None
            if isinstance(own, float):
                margin = q.tolerance.full_log + ref.log_spread - abs(math.log(own / ref.ratio))
            items.append(
                FairnessItem(
                    quantity=q.id, held_out=held.label, predicted=own, reference=ref.value, fraction=frac, margin=margin
                )
            )
            if frac < 1.0:
                why = (
                    f"outside the full-credit band ({math.exp(q.tolerance.full_log + ref.log_spread):.2f}×) "
                    f"by {math.exp(-margin):.3f}×"
                    if margin is not None
                    else f"the others measured a ratio of {ref.ratio:.3f}"
                )
                failures.append(
                    f"{q.id}: {held.label}'s own {_fmt(own)} against the others' {_fmt(ref.value)} earns "
                    f"{100 * frac:.0f}%, {why}"
                )
    return FairnessCheck(passed=not failures, processes=len(procs), items=items, failures=failures)


def fairness_lines(check: FairnessCheck) -> list[str]:
    """What `autograder bench` prints: one line per quantity (worst held-out process), then the verdict."""
    lines: list[str] = []
    worst: dict[str, FairnessItem] = {}
    for it in check.items:
        w = worst.get(it.quantity)
        key = (it.fraction, it.margin if it.margin is not None else math.inf)
        if w is None or key < (w.fraction, w.margin if w.margin is not None else math.inf):
            worst[it.quantity] = it
    for qid, it in worst.items():
        room = f", margin {math.exp(it.margin):.3f}×" if it.margin is not None and it.margin >= 0 else ""
        short = f", short by {math.exp(-it.margin):.3f}×" if it.margin is not None and it.margin < 0 else ""
        lines.append(
            f"  {qid}: worst is {it.held_out} ({_fmt(it.predicted)} vs the others' {_fmt(it.reference)}): "
            f"{100 * it.fraction:.0f}% credit{room}{short}"
        )
    if check.note:
        lines.append(f"  {check.note}")
    verdict = "PASSED" if check.passed else "FAILED"
    if check.accepted_by_instructor and not check.passed:
        verdict += " (accepted by the instructor)"
    lines.insert(0, f"fairness check ({check.processes} processes, each graded against the others): {verdict}")
    return lines
