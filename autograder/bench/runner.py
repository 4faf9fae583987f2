"""Run an assignment's full reference benchmark on one device and return a ReferenceRun."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timezone
from itertools import groupby
from typing import Literal

import torch

from ..records import ReferenceRun
from ..spec import LessonSpec
from .derive import quantity_value
from .fingerprint import fingerprint, pick_device
from .harness import Harness
from .timing import TimingPolicy

__all__ = ["Progress", "run_reference"]

Progress = Callable[[int, int, str], None]


def _no_progress(done: int, total: int, what: str) -> None:
    return None


def run_reference(
    spec: LessonSpec,
    device: str | torch.device | None = None,
    policy: TimingPolicy | None = None,
    progress: Progress = _no_progress,
    sizes: list[int] | None = None,
) -> ReferenceRun:
    """Fingerprint, roofline, then every (dtype, size) pair; sizes that don't fit are skipped and said."""
    t0 = time.perf_counter()
    dev = device if isinstance(device, torch.device) else pick_device(device)
    kind: Literal["cuda", "cpu"] = "cuda" if dev.type == "cuda" else "cpu"
    if policy is None:
        policy = TimingPolicy() if kind == "cuda" else TimingPolicy.quick()
    progress(0, 1, "fingerprint + copy roofline")
    fp = fingerprint(dev)
    harness = Harness(device=dev, l2_bytes=fp.l2_bytes, policy=policy)
    cases = spec.cases(kind)
    if sizes is not None:
        keep = set(sizes) | {q.log2_n for q in spec.quantities}
        cases = [c for c in cases if c.log2_n in keep]
    pairs = [k for k, _ in groupby(cases, key=lambda c: (c.dtype, c.log2_n))]
    measurements = []
    swept: dict[str, list[int]] = {}
    for i, (dtype, log2_n) in enumerate(pairs):
        progress(i, len(pairs), f"{dtype} 2^{log2_n}")
        if not harness.fits(dtype, log2_n, len(spec.chain)):
            continue
        measurements.extend(harness.measure_pair(spec.chain, dtype, log2_n))
        swept.setdefault(dtype, []).append(log2_n)
    progress(len(pairs), len(pairs), "done")
    values = {}
    for q in spec.quantities:
        v = quantity_value(q, measurements, fp.key)
        if v is not None:
            values[q.id] = v
    return ReferenceRun(
        assignment=spec.id,
        device=fp,
        created_at=datetime.now(timezone.utc),
        duration_s=round(time.perf_counter() - t0, 2),
        measurements=measurements,
        quantities=values,
        sizes=swept,
    )
