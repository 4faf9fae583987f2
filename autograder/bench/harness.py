"""Measure one point of a lesson's parameters: every variant, by both timing methods.

This is *the* benchmark helper: the reference run and the student's notebook both call it, so what a
student sees and what they are graded against come from the same code.  It knows nothing of a lesson:
the workload builds inputs and variants and states their work model.
"""

from __future__ import annotations

import contextlib
import gc
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from ..errors import BenchmarkError
from ..records import Case, Measurement, Method, ParamValue, summarize
from ..workload import Work, Workload
from .clocks import ClockState, bring_to_steady, sm_clock_mhz
from .launches import profile_kernels
from .timing import HostSetup, L2Flusher, TimingPolicy, gpu_time, pinned_host, wall_per_call

__all__ = ["METHODS", "Harness"]

METHODS: tuple[Method, ...] = ("wall_per_call", "gpu_time")


#: how a CPU allocator's failure reads ("DefaultCPUAllocator: can't allocate memory: you tried to allocate ...")
_OOM_TEXT = re.compile(r"can't allocate memory|cannot allocate memory|out of memory", re.I)


def out_of_memory_message(device: torch.device, params: Mapping[str, ParamValue], e: BaseException) -> str:
    """One sentence for a case that did not fit: the case, the device's memory, the allocator's first line."""
    first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
    case = ", ".join(f"{k}={v}" for k, v in params.items())
    if device.type == "cuda":
        free, total = torch.cuda.mem_get_info(device)
        where = f"this GPU ({total / 2**30:.0f} GiB, {free / 2**30:.1f} GiB free now)"
        fix = ("run it on the course's GPU, or free GPU memory (restart other notebooks' kernels) and run the "
               "cell again")
    else:
        where = "this machine's memory"
        fix = "run it on the course's GPU, or on a machine with more memory"
    return f"not measured: the case {case} does not fit in {where}: {fix} ({first})"


@dataclass
class Harness:
    device: torch.device
    l2_bytes: int | None = None
    policy: TimingPolicy = field(default_factory=TimingPolicy)
    #: bring the GPU to steady clocks before each point (autograder.bench.clocks), at least this long
    steady_clocks: bool = True
    warmup_s: float = 0.5
    _flusher: L2Flusher | None = field(default=None, init=False, repr=False)
    last_clocks: ClockState | None = field(default=None, init=False, repr=False)

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
        """Every variant at ``params``, checked against the first variant's output, then timed.

        A case that does not fit in the device's memory raises :class:`BenchmarkError` saying so (how much
        the device has and had free), not the allocator's traceback."""
        try:
            return self._measure(workload, params, variants, methods)
        except (torch.OutOfMemoryError, MemoryError, RuntimeError) as e:
            if not isinstance(e, (torch.OutOfMemoryError, MemoryError)) and not _OOM_TEXT.search(str(e)):
                raise
            gc.collect()
            if self.device.type == "cuda":
                torch.cuda.empty_cache()
            raise BenchmarkError(out_of_memory_message(self.device, params, e)) from None

    def _measure(
        self,
        workload: Workload,
        params: Mapping[str, ParamValue],
        variants: Sequence[str] | None,
        methods: Sequence[Method],
    ) -> list[Measurement]:
        variants = list(variants or workload.variants)
        x = workload.inputs(params, self.device)
        first: Any = None
        out: list[Measurement] = []
        if self.steady_clocks and self.device.type == "cuda":
            # the same warm-up before every point, however long ago the last one ended: a top-up whose length
            # depended on the pause (0.1 s within 2 s of the last point, else 0.5 s) gave a notebook, whose cells
            # pause, another history than `autograder bench`, whose points follow each other
            self.last_clocks = bring_to_steady(self.device, min_s=self.warmup_s)
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
        with pinned_host(self.device, self.policy) as host:
            for method in methods:
                out.append(self._time_one(fn, x, case, method, work, prof, host))
        return out

    def _time_one(
        self, fn: Any, x: tuple[Any, ...], case: Case, method: Method, work: Work, prof: Any, host: HostSetup
    ) -> Measurement:
        """One method's samples of one variant, with the host setup and the SM clock they ran under."""
        if method == "wall_per_call":
            samples, k = wall_per_call(fn, x, self.policy, self.flusher, work.footprint)
            l2 = (
                "flushed before each call"
                if self.flusher.needed(work.footprint)
                else ("not flushed (working set exceeds L2)" if self.device.type == "cuda" else "cpu")
            )
        else:
            samples, k, l2 = gpu_time(fn, x, self.policy, self.l2_bytes, work.footprint)
        return Measurement(
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
            pinned_cpu=host.pinned_cpu,
            threads=host.threads,
            sm_clock_mhz=sm_clock_mhz(self.device),
        )
