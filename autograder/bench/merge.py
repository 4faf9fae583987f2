"""Merge reference runs of one device model (independent processes, several machines) into one reference.

Per-call wall timings are mostly host-side dispatch: they move between processes and hosts far more than
the quartiles inside one process say.  A merged quantity is centred on the median (in log space) of the
processes' own ratios, and its band is widened by the larger of the within-process spread and the range
between processes, so that a further process on the same model lands inside it (``fairness`` checks
exactly that, leaving each process out in turn).  Pure functions: no torch, no files.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from ..errors import BenchmarkError
from ..kinds import kind_of
from ..records import Measurement, Quantity, QuantityValue, ReferenceRun, summarize
from ..records.reference import RunSource
from ..spec import LessonSpec

__all__ = ["ProcessValues", "merge_quantity", "merge_runs", "process_values", "value_of"]


@dataclass(frozen=True)
class ProcessValues:
    """One independent process's own (ratio, within-process spread) per quantity id."""

    label: str
    quantities: dict[str, tuple[float, float]]


def value_of(q: Quantity, ratio: float, spread: float) -> float | str:
    """What a student would report for ``ratio``: its kind decides (a rounded factor, a direction, ...)."""
    return kind_of(q).value_of(q, ratio, spread)


def _sources_of(run: ReferenceRun, i: int, labels: Sequence[str] | None) -> list[RunSource]:
    """The processes behind one run, labelled '<label>' or '<label>/<its own label>' when it was merged."""
    name = labels[i] if labels else f"process {i + 1}"
    if not run.sources:
        return [RunSource(label=name, created_at=run.created_at, duration_s=run.duration_s, device=run.device)]
    if not labels:
        return list(run.sources)
    return [s.model_copy(update={"label": f"{name}/{s.label}"}) for s in run.sources]


def process_values(runs: Sequence[ReferenceRun], labels: Sequence[str] | None = None) -> list[ProcessValues]:
    """Every process behind ``runs``: a merged run contributes each of the processes it was built from."""
    out: list[ProcessValues] = []
    for i, run in enumerate(runs):
        names = [s.label for s in _sources_of(run, i, labels)]
        per: list[dict[str, tuple[float, float]]] = [{} for _ in names]
        for qid, qv in run.quantities.items():
            ratios = qv.process_ratios or [qv.ratio]
            spreads = qv.process_spreads or [qv.within_spread if qv.within_spread is not None else qv.log_spread]
            if len(ratios) != len(names) or len(spreads) != len(names):
                raise BenchmarkError(
                    f"{run.assignment} reference from {run.created_at:%Y-%m-%d %H:%M} is inconsistent: {qid} has "
                    f"{len(ratios)} process values for {len(names)} processes; re-measure it"
                )
            for j, (r, s) in enumerate(zip(ratios, spreads, strict=True)):
                per[j][qid] = (r, s)
        out.extend(ProcessValues(label=n, quantities=p) for n, p in zip(names, per, strict=True))
    return out


def merge_quantity(q: Quantity, procs: Sequence[ProcessValues], device: str) -> QuantityValue | None:
    """The merged value of ``q`` over the processes that measured it (None when none did)."""
    have = [p.quantities[q.id] for p in procs if q.id in p.quantities]
    if not have:
        return None
    logs = [math.log(r) for r, _ in have]
    centre = statistics.median(logs)
    within = statistics.median(s for _, s in have)
    between = max(logs) - min(logs)
    spread = max(within, between)
    ratio = math.exp(centre)
    return QuantityValue(
        quantity=q.id,
        value=value_of(q, ratio, spread),
        ratio=ratio,
        log_spread=spread,
        method=q.method,
        device=device,
        within_spread=within,
        between_spread=between,
        processes=len(have),
        process_ratios=[r for r, _ in have],
        process_spreads=[s for _, s in have],
    )


def _pool(ms: Sequence[Measurement], processes: int) -> Measurement:
    first = ms[0]
    if len(ms) == 1:
        return first
    samples = [x for m in ms for x in m.samples_ms]
    return first.model_copy(
        update={
            "samples_ms": samples,
            "stats": summarize(samples),
            "notes": "; ".join(filter(None, [first.notes, f"samples pooled from {len(ms)} of {processes} processes"])),
        }
    )


def merge_runs(
    runs: Sequence[ReferenceRun], spec: LessonSpec, labels: Sequence[str] | None = None
) -> ReferenceRun:
    """One reference from runs of one assignment on one device model; refuses to mix models."""
    if not runs:
        raise BenchmarkError("nothing to merge: give at least one reference run")
    first = runs[0]
    for r in runs[1:]:
        if r.assignment != first.assignment:
            raise BenchmarkError(f"cannot merge runs of {first.assignment} and {r.assignment}")
        if r.device.key != first.device.key:
            raise BenchmarkError(
                f"cannot merge a {first.device.name} run with a {r.device.name} run: "
                "a reference is for one device model; store them separately"
            )
    if first.assignment != spec.id:
        raise BenchmarkError(f"the runs are of {first.assignment}, not of {spec.id}")
    procs = process_values(runs, labels)
    sources = [s for i, r in enumerate(runs) for s in _sources_of(r, i, labels)]
    quantities = {}
    for q in spec.quantities:
        v = merge_quantity(q, procs, first.device.key)
        if v is not None:
            quantities[q.id] = v
    groups: dict[tuple[str, str], list[Measurement]] = {}
    for r in runs:
        for m in r.measurements:
            groups.setdefault((m.case.key, m.method), []).append(m)
    return ReferenceRun(
        assignment=first.assignment,
        device=max(runs, key=lambda r: r.created_at).device,  # the newest: older runs may record less
        created_at=datetime.now(timezone.utc),
        duration_s=round(sum(s.duration_s for s in sources), 2),
        measurements=[_pool(ms, len(procs)) for ms in groups.values()],
        quantities=quantities,
        sources=sources,
    )
