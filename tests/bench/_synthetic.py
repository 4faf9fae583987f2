"""Synthetic ReferenceRuns with chosen quantity ratios: the merge and fairness logic without a bench."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from autograder.kinds import kind_of
from autograder.records import DeviceFingerprint, QuantityValue, ReferenceRun

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


def device(key: str = "nvidia-h200", name: str = "NVIDIA H200", **extra: object) -> DeviceFingerprint:
    return DeviceFingerprint(
        kind="cpu" if key == "cpu" else "cuda",
        key=key,
        name=name,
        torch="2.11.0+cu130",
        python="3.12.3",
        copy_gbps=4000.0,
        copy_bytes=1 << 30,
        **extra,  # type: ignore[arg-type]
    )


def run(spec, ratios: dict[str, float], spread: float = 0.01, minute: int = 0, dev=None) -> ReferenceRun:
    """One process's run: each quantity at ``ratios[id]`` (default 1.0 or 3.9) with ``spread``."""
    dev = dev or device()
    values = {}
    for q in spec.quantities:
        r = ratios.get(q.id, 3.9 if q.kind == "speedup" else 1.0)
        value = kind_of(q).value_of(q, r, spread)
        values[q.id] = QuantityValue(
            quantity=q.id, value=value, ratio=r, log_spread=spread, method=q.method, device=dev.key
        )
    return ReferenceRun(
        assignment=spec.id,
        device=dev,
        created_at=T0 + timedelta(minutes=minute),
        duration_s=20.0,
        measurements=[],
        quantities=values,
        sizes={"float16": [12, 24]},
    )
