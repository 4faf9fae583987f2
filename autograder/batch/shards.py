"""How a class is cut into shards, for local worker processes and Slurm array tasks alike."""

from __future__ import annotations

import math

__all__ = ["plan_shards"]


def plan_shards(n: int, max_shards: int, min_size: int) -> int:
    """How many shards to cut ``n`` submissions into: as many as allowed, but none smaller than ``min_size``
    (a shard pays a process or job start), so a class of any size takes at most ``max_shards`` tasks."""
    if n <= 0:
        return 0
    return max(1, min(max_shards, math.ceil(n / max(1, min_size))))
