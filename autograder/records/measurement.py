"""Raw timings and their statistics, kept apart (as torch.utils.benchmark splits TaskSpec/Measurement).

Samples are the facts; :func:`summarize` derives the statistics, so a later change of statistic can be
recomputed from a stored run.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Literal

from pydantic import Field, field_validator

from ._base import Record
from .quantity import Case, Method

__all__ = ["Measurement", "Stats", "summarize"]


class Stats(Record):
    """Median and spread of a sample set, in the samples' unit (ms)."""

    n: int = Field(ge=1)
    median: float
    q1: float
    q3: float
    min: float
    max: float

    @property
    def iqr_rel(self) -> float:
        """Interquartile range relative to the median: the noise figure used to widen tolerances."""
        return (self.q3 - self.q1) / self.median if self.median > 0 else math.inf

    @property
    def log_half_iqr(self) -> float:
        """Half the interquartile range in log space: how far the median may move between runs."""
        return 0.5 * math.log(self.q3 / self.q1) if self.q1 > 0 else 0.0


def summarize(samples: Sequence[float]) -> Stats:
    """Median and quartiles of ``samples`` (inclusive method, so 2+ samples give real quartiles)."""
    if not samples:
        raise ValueError("cannot summarize an empty sample set")
    xs = sorted(samples)
    if len(xs) == 1:
        q1 = q3 = xs[0]
    else:
        q1, _, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    return Stats(n=len(xs), median=statistics.median(xs), q1=q1, q3=q3, min=xs[0], max=xs[-1])


class Measurement(Record):
    """Timing of one case by one method, with the work the lesson's model says it does."""

    case: Case
    method: Method
    samples_ms: list[float] = Field(min_length=1)
    calls_per_sample: int = Field(default=1, ge=1)
    stats: Stats
    bytes_moved: int = Field(ge=0, description="work model: bytes read + written per call")
    flops: int = Field(default=0, ge=0, description="work model: floating-point operations per call")
    launches: int | None = Field(default=None, description="kernels per call")
    launches_source: Literal["profiler", "model"] = "model"
    profiler_kernel_ms: float | None = Field(default=None, description="summed kernel time, profiler")
    l2_policy: str = ""
    notes: str = ""
    #: the host setup the timing ran under (autograder.bench.timing.pinned_host): the core the timing thread
    #: was pinned to, torch's intra-op threads, and the GPU's SM clock read right after the samples
    pinned_cpu: int | None = Field(default=None, description="host core the timing thread ran on")
    threads: int | None = Field(default=None, ge=1, description="torch intra-op threads while timing")
    sm_clock_mhz: int | None = Field(default=None, ge=0, description="GPU SM clock after the samples (NVML)")

    @field_validator("samples_ms")
    @classmethod
    def _finite_positive(cls, v: list[float]) -> list[float]:
        bad = [x for x in v if not math.isfinite(x) or x <= 0]
        if bad:
            raise ValueError(f"samples must be finite and positive, got {bad[:3]}")
        return v

    @property
    def median_ms(self) -> float:
        return self.stats.median

    @property
    def achieved_gbps(self) -> float:
        return self.bytes_moved / (self.stats.median * 1e-3) / 1e9

    @property
    def achieved_tflops(self) -> float:
        return self.flops / (self.stats.median * 1e-3) / 1e12
