"""measure_function: the grader's timing code, in this process, for the notebook.

A student measuring their own kernel on their own device gets the numbers the grader's child would take
(the same warm-up, fresh inputs per call, trap calls, L2 flush on CUDA, device-wide sync after each call),
each case's outputs checked against the lesson's reference.  There is no second process here, so there
is no external clock (``external_ms`` is None) and nothing is isolated: this is for measuring, not grading.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ..records import Case, Measurement, summarize
from . import child as harness
from .models import CaseResult, KernelTask
from .verdicts import compare, tolerance_for
from .verify import load_workload, timing_plan

__all__ = ["measure_function"]


def _inputs(make: Callable[..., Any], case: dict[str, Any], seed: int, device: str) -> tuple[Any, ...]:
    x = make(dict(case), seed, device)
    return tuple(x) if isinstance(x, tuple | list) else (x,)


def measure_function(fn: Callable[..., Any], task: KernelTask) -> tuple[CaseResult, ...]:
    """Each timed case of ``task`` measured on ``fn`` in this process (see the module docstring)."""
    wl = load_workload(task.workload)
    make, reference = getattr(wl, task.make_inputs), getattr(wl, task.reference)
    plan = timing_plan(task)
    state = harness._Child(-1, {"device": task.device})
    flusher = harness._flusher(state)
    threads = torch.get_num_threads()
    out: list[CaseResult] = []
    try:
        if task.device == "cpu":
            torch.set_num_threads(1)
        for ci, case in enumerate(task.cases):
            traps, saved = harness.plan_calls(plan.calls, task.seed, ci)
            warm = _inputs(make, case, harness.call_seed(task.seed, "warm", ci, 0), task.device)
            seeds = {k: harness.call_seed(task.seed, "refill" if k in traps else "timed", ci, k) for k in range(plan.calls)}
            timed = [_inputs(make, case, seeds[k], task.device) if k not in traps else () for k in range(plan.calls)]
            refills = {k: _inputs(make, case, seeds[k], task.device) for k in traps}
            harness._warm(state, fn, warm, plan.warmup, plan.warmup_ms)
            r = harness._time_case(state, fn, warm, timed, refills, set(saved), flusher)
            worst, nbytes = 0.0, 0
            for k, got in r["outs"].items():
                x = refills[k] if k in traps else timed[k]
                with torch.no_grad():
                    ref = reference(*x)
                nbytes = sum(int(t.nbytes) for t in x if isinstance(t, torch.Tensor)) + int(ref.nbytes)
                if type(got) is not torch.Tensor or got.shape != ref.shape or got.dtype != ref.dtype:
                    worst = float("inf")
                    continue
                rtol, atol = tolerance_for(task.tolerances, ref.dtype)
                worst = max(worst, compare(got.cpu(), ref.cpu(), rtol, atol)[1])
            samples = [max(float(s), 1e-6) for s in r["samples"]]
            meas = Measurement(case=Case(variant=task.entry, params=dict(case)),
                               method="gpu_time" if task.device == "cuda" else "wall_per_call",
                               samples_ms=samples, stats=summarize(samples), bytes_moved=nbytes,
                               l2_policy="L2 flushed before every call" if flusher is not None else "cpu: no flush",
                               notes=f"in-process: {plan.calls} calls on fresh inputs, sync after each")
            out.append(CaseResult(case=dict(case), measurement=meas, max_error=worst, external_ms=None))
    finally:
        torch.set_num_threads(threads)
    return tuple(out)
