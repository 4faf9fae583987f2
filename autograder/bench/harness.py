"""Measure one point of a lesson's parameters: every variant, by both timing methods.

This is *the* benchmark helper: the reference run and the student's notebook both call it, so what a
student sees and what they are graded against come from the same code.  It knows nothing of a lesson:
the workload builds inputs and variants and states their work model.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from ..errors import BenchmarkError
from ..records import Case, Measurement, Method, ParamValue, summarize
from ..workload import Workload
from .launches import profile_kernels
from .timing import L2Flusher, TimingPolicy, gpu_time, wall_per_call

__all__ = ["METHODS", "Harness"]

METHODS: tuple[Method, ...] = ("wall_per_call", "gpu_time")


@dataclass
class Harness:
    device: torch.device
    l2_bytes: int | None = None
    policy: TimingPolicy = field(default_factory=TimingPolicy)
    _flusher: L2Flusher | None = field(default=None, init=False, repr=False)

    @property
    def flusher(self) -> L2Flusher:
        if self._flusher is None:
            self._flusher = L2Flusher(self.device, self.l2_bytes)
        return self._flusher

    def fits(self, workload: Workload, params: Mapping[str, ParamValue], variants: Sequence[str]) -> bool:
        """Whether the largest variant's working set (plus a copy of the inputs) fits with a margin."""
        need = max(workload.work(v, params).footprint for v in variants) * 4 // 3
        if self.device.type == "cuda":
            free, _ = torch.cuda.mem_get_info(self.device)
            return need < 0.6 * free
        return need < 2 << 30

    def measure(
        self,
        workload: Workload,
        params: Mapping[str, ParamValue],
        variants: Sequence[str] | None = None,
        methods: Sequence[Method] = METHODS,
    ) -> list[Measurement]:
        """Every variant at ``params``, checked against the first variant's output, then timed."""
        variants = list(variants or workload.variants)
        x = workload.inputs(params, self.device)
        first: Any = None
        out: list[Measurement] = []
        for variant in variants:
            ctx = workload.prepare(variant, params)
            with ctx() if ctx is not None else contextlib.nullcontext():
                fn = workload.build(variant, params)
                got = fn(*x)
                problem = workload.verify(variant, params, x, got, first)
                if problem is not None:
                    raise BenchmarkError(f"wrong result at {dict(params)}: {problem}")
                if first is None:
                    first = got
                del got
                out += self._time(workload, fn, x, Case(variant=variant, params=dict(params)), methods)
                del fn
        del x, first
        gc.collect()
        if self.device.type == "cuda":
            torch.cuda.empty_cache()
        return out

    def _time(
        self, workload: Workload, fn: Any, x: tuple[Any, ...], case: Case, methods: Sequence[Method]
    ) -> list[Measurement]:
        work = workload.work(case.variant, case.params)
        prof = profile_kernels(fn, x)
        out = []
        for method in methods:
            if method == "wall_per_call":
                samples = wall_per_call(fn, x, self.policy, self.flusher, work.footprint)
                k = 1
                l2 = (
                    "flushed before each call"
                    if self.flusher.needed(work.footprint)
                    else ("not flushed (working set exceeds L2)" if self.device.type == "cuda" else "cpu")
                )
            else:
                samples, k, l2 = gpu_time(fn, x, self.policy, self.l2_bytes, work.footprint)
            out.append(
                Measurement(
                    case=case,
                    method=method,
                    samples_ms=[round(s, 6) for s in samples],
                    calls_per_sample=k,
                    stats=summarize(samples),
                    bytes_moved=work.bytes_moved,
                    flops=work.flops,
                    launches=prof[0] if prof else work.launches,
                    launches_source="profiler" if prof else "model",
                    profiler_kernel_ms=round(prof[1], 6) if prof else None,
                    l2_policy=l2,
                )
            )
        return out
