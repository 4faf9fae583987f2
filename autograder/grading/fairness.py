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

from ..bench.merge import ProcessValues, merge_quantity, value_of
from ..records import Prediction, Quantity, QuantityValue
from ..records.reference import FairnessCheck, FairnessItem, ReferenceRun
from ..spec import LessonSpec
from .policy import GradingPolicy
from .scoring import grade_prediction

__all__ = ["MAX_BAND", "band_factor", "fairness_check", "fairness_lines"]

#: no graded quantity's full-credit band may be wider than this either way: a band that wide gives full
#: marks to predictions that disagree about the lesson's point, so the question must change instead
MAX_BAND = 1.5


def band_factor(q: Quantity, spread: float) -> float:
    """How far either way of the reference a prediction still earns full credit (a direction: how large a
    change still reads as "same"), the reference's spread included."""
    if q.kind == "direction":
        return math.exp(math.log1p(q.tolerance.dead_band) + spread)
    if q.kind == "count":
        return 1.0
    return math.exp(q.tolerance.full_log + spread)


def _fmt(v: float | str) -> str:
    return f"{v:.3f}×" if isinstance(v, float) else v


def fairness_check(
    procs: Sequence[ProcessValues],
    spec: LessonSpec,
    device_key: str,
    device_name: str,
    previous: ReferenceRun | None = None,
) -> FairnessCheck:
    """Grade every process's own values against the reference merged from the others (leave-one-out);
    refuse a quantity whose full-credit band is wider than :data:`MAX_BAND`; and, given the reference
    stored before for this device (``previous``), grade each side's values against the other: two runs
    minutes apart must agree too, or the machine is not measuring steadily enough to be graded on."""
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
    for q in spec.quantities:
        ref = merge_quantity(q, procs, device_key)
        if ref is None:
            continue
        wide = band_factor(q, ref.log_spread)
        # a direction's band is its "same" zone: wider than MAX_BAND it still means something while the
        # measured change clears it (the answer is a direction no process got wrong, checked above); only a
        # "same" inside so wide a zone cannot be told from a change
        if wide > MAX_BAND and (q.kind != "direction" or ref.value == "same"):
            failures.append(
                f"{q.id}: its full-credit band would be {wide:.2f}× either way (wider than {MAX_BAND}×): the "
                "processes disagree too much for the answer to mean something; ask it at another size, "
                "statistic or as a direction rather than widen the band"
            )
        if previous is not None and q.id in previous.quantities:
            failures += _drift(q, spec, previous, ref, device_name, policy, now)
    return FairnessCheck(passed=not failures, processes=len(procs), items=items, failures=failures)


def _drift(
    q: Quantity,
    spec: LessonSpec,
    previous: ReferenceRun,
    now_ref: QuantityValue,
    device_name: str,
    policy: GradingPolicy,
    at: datetime,
) -> list[str]:
    """The stored reference's value graded against this run's, and this run's against the stored one."""
    old = previous.quantities[q.id]
    out: list[str] = []
    for mine, theirs, what in ((old, now_ref, "the stored reference's"), (now_ref, old, "this run's")):
        pred = Prediction(quantity=q.id, value=mine.value, because="drift check", at=at, seq=0)
        frac = grade_prediction(q, spec.grade_ids[q.id], pred, theirs, device_name, policy).fraction
        if frac < 1.0:
            out.append(
                f"{q.id}: {what} {_fmt(mine.value)} earns {100 * frac:.0f}% against {_fmt(theirs.value)} "
                f"(stored {previous.created_at:%Y-%m-%d %H:%M} UTC vs measured now): two runs apart disagree, so "
                "this machine is not measuring steadily; re-measure when it is quiet (or --accept-unfair)"
            )
            break
    return out


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
