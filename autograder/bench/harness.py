"""Measure one (dtype, size) pair of the chain, eager and compiled, by both methods.

This is *the* benchmark helper: the reference run and the student's notebook both call it, so what a
student sees and what they are graded against come from the same code.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch

from ..errors import BenchmarkError
from ..records import Case, DType, Measurement, Method, summarize
from ..spec import ChainOp
from ..traffic import traffic
from .chain import compile_fresh, make_chain
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

    def fits(self, dtype: DType, log2_n: int, n_ops: int) -> bool:
        """Whether eager (input, intermediates, output) fits in free device memory with a margin."""
        need = 4 * traffic(Case(variant="eager", dtype=dtype, log2_n=log2_n), n_ops).input_bytes
        if self.device.type == "cuda":
            free, _ = torch.cuda.mem_get_info(self.device)
            return need < 0.6 * free
        return need < 2 << 30

    def measure_pair(
        self, ops: Sequence[ChainOp], dtype: DType, log2_n: int, methods: Sequence[Method] = METHODS
    ) -> list[Measurement]:
        torch_dtype = getattr(torch, dtype)
        x = torch.randn(1 << log2_n, device=self.device, dtype=torch_dtype)
        eager = make_chain(ops)
        compiled = compile_fresh(ops)
        expected = eager(x)
        got = compiled(x)
        if not torch.allclose(got.float(), expected.float(), rtol=1e-2, atol=1e-2):
            raise BenchmarkError(f"compiled chain disagrees with eager at {dtype} 2^{log2_n}")
        del expected, got
        out: list[Measurement] = []
        for variant, fn in (("eager", eager), ("compiled", compiled)):
            case = Case(variant=variant, dtype=dtype, log2_n=log2_n)  # type: ignore[arg-type]
            t = traffic(case, len(ops))
            prof = profile_kernels(fn, x)
            for method in methods:
                if method == "wall_per_call":
                    samples = wall_per_call(fn, x, self.policy, self.flusher, t.working_set)
                    k, l2 = (
                        1,
                        (
                            "flushed before each call"
                            if self.flusher.needed(t.working_set)
                            else "not flushed (working set exceeds L2)"
                        ),
                    )
                else:
                    samples, k, l2 = gpu_time(fn, x, self.policy, self.l2_bytes, t.working_set)
                out.append(
                    Measurement(
                        case=case,
                        method=method,
                        samples_ms=[round(s, 6) for s in samples],
                        calls_per_sample=k,
                        stats=summarize(samples),
                        bytes_moved=t.bytes_moved,
                        launches=prof[0] if prof else t.launches,
                        launches_source="profiler" if prof else "model",
                        profiler_kernel_ms=round(prof[1], 6) if prof else None,
                        l2_policy=l2,
                    )
                )
        del x, eager, compiled
        gc.collect()
        if self.device.type == "cuda":
            torch.cuda.empty_cache()
        return out
