"""Run an assignment's full reference benchmark on one device and return a ReferenceRun."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Literal

import torch

from ..errors import BenchmarkError
from ..kinds import kind_of
from ..notebook_calls import measure_order
from ..records import Case, ParamValue, ReferenceRun
from ..spec import LessonSpec
from .derive import quantity_values
from .fingerprint import fingerprint, pick_device
from .harness import Harness
from .timing import TimingPolicy

__all__ = ["Progress", "group_cases", "in_notebook_order", "run_reference"]

Progress = Callable[[int, int, str], None]


def _no_progress(done: int, total: int, what: str) -> None:
    return None


def group_cases(cases: list[Case]) -> list[tuple[dict[str, ParamValue], list[str]]]:
    """Cases grouped by their parameters, in order: each group is measured with one set of inputs."""
    groups: dict[str, tuple[dict[str, ParamValue], list[str]]] = {}
    for c in cases:
        key = repr(sorted(c.params.items()))
        groups.setdefault(key, (c.params, []))[1].append(c.variant)
    return list(groups.values())


def in_notebook_order(
    groups: list[tuple[dict[str, ParamValue], list[str]]], first: list[dict[str, ParamValue]]
) -> list[tuple[dict[str, ParamValue], list[str]]]:
    """``groups`` with those the notebook measures (``first``, in its order) ahead, the rest after in theirs."""
    rank = {repr(sorted(p.items())): i for i, p in enumerate(first)}
    return sorted(groups, key=lambda g: rank.get(repr(sorted(g[0].items())), len(rank)))


def run_reference(
    spec: LessonSpec,
    device: str | torch.device | None = None,
    policy: TimingPolicy | None = None,
    progress: Progress = _no_progress,
    sizes: list[int] | None = None,
) -> ReferenceRun:
    """Fingerprint, rooflines, then every point of the sweep; points that don't fit are skipped and said.

    The points are measured in the order the lesson's notebook measures them (Run All), then the rest: what
    the GPU ran just before a case moves its time, so the reference has the history a student's run has.

    ``sizes`` restricts the sweep to those values of the workload's size parameter (the quantities'
    own cases are always measured)."""
    t0 = time.perf_counter()
    dev = device if isinstance(device, torch.device) else pick_device(device)
    kind: Literal["cuda", "cpu"] = "cuda" if dev.type == "cuda" else "cpu"
    if policy is None:
        policy = TimingPolicy() if kind == "cuda" else TimingPolicy.quick()
    wl = spec.workload
    problems = spec.problems()
    if problems:
        raise BenchmarkError(f"lesson {spec.id} is inconsistent: {problems[0]} (run `autograder lint {spec.id}`)")
    progress(0, 1, "fingerprint + peaks")
    fp = fingerprint(dev)
    harness = Harness(device=dev, l2_bytes=fp.l2_bytes, policy=policy)
    cases = spec.cases(kind)
    on_device = spec.for_device(kind)
    if sizes is not None:
        needed = {c.key for q in on_device.quantities for c in kind_of(q).cases(q)}
        cases = [c for c in cases if c.key in needed or c.params.get(wl.size_param) in set(sizes)]
    groups = in_notebook_order(group_cases(cases), measure_order(spec, kind))
    measurements = []
    for i, (params, variants) in enumerate(groups):
        progress(i, len(groups), wl.describe(params))
        if not harness.fits(wl, params, variants):
            continue
        # the variants of a case in the workload's order, as a notebook's `L.measure` times them (one
        # measurement, two callers: on the H200 the order changed what the GPU had just run before a case)
        order = {v: i for i, v in enumerate(wl.variants)}
        in_order = sorted(variants, key=lambda v: order.get(v, len(order)))
        measurements.extend(harness.measure(wl, params, in_order))
    progress(len(groups), len(groups), "done")
    return ReferenceRun(
        assignment=spec.id,
        device=fp,
        created_at=datetime.now(timezone.utc),
        duration_s=round(time.perf_counter() - t0, 2),
        measurements=measurements,
        quantities=quantity_values(on_device.quantities, measurements, fp.key, fp),
    )
