"""The parent's check of one submission: it regenerates every saved output's inputs from the seed, runs the
lesson's reference, compares per dtype, and reads the clocks.  It never imports the student's code: the
outputs come back as raw bytes described by a JSON line (shape, dtype), never as a pickle.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import torch

from ..bench.fingerprint import copy_bandwidth
from ..records import Case, Measurement, summarize
from ..workload import import_file
from .child import SAMPLE_EDGE, SAMPLE_SIZE, call_seed, plan_calls, sample_indices
from .models import CaseResult, KernelTask
from .verdicts import Finding, clock_finding, compare, faster_than_memory, looks_like_lower_precision, tolerance_for

if TYPE_CHECKING:
    from .runner import ChildRun

__all__ = ["Timing", "check_outputs", "copy_roofline_gbps", "load_workload", "timing_plan"]


@dataclass(frozen=True)
class Timing:
    calls: int  # timed calls per case, each on fresh inputs
    warmup: int
    warmup_ms: float


#: fresh inputs of all timed calls of a case together stay under this (each call has its own)
INPUT_BUDGET = {"cuda": 2 << 30, "cpu": 256 << 20}


def timing_plan(task: KernelTask) -> Timing:
    """Timed calls per case, each on fresh inputs: on CUDA up to 100 (at least 10) after 10 warm-up calls
    and 25 ms, on a CPU up to 24 (at least 8) after 2; fewer where the inputs of one call are large, so that
    a case's inputs fit :data:`INPUT_BUDGET` (a 128 MiB input gets 16 calls on CUDA)."""
    nbytes = max((_input_bytes(str(task.workload.resolve()), task.workload.stat().st_mtime_ns, task.make_inputs,
                               json.dumps(c, sort_keys=True)) for c in task.cases), default=1)
    cuda = task.device == "cuda"
    lo, hi = (10, 100) if cuda else (8, 24)
    calls = max(lo, min(hi, INPUT_BUDGET["cuda" if cuda else "cpu"] // max(nbytes, 1)))
    return Timing(calls=calls, warmup=10, warmup_ms=25.0) if cuda else Timing(calls=calls, warmup=2, warmup_ms=0.0)


@functools.cache
def _input_bytes(workload: str, mtime_ns: int, make: str, case: str) -> int:
    """Bytes of one call's inputs of a case (made once per grading process, on the CPU)."""
    x = _inputs(getattr(load_workload(Path(workload)), make), json.loads(case), 0, "cpu")
    return sum(int(t.nbytes) for t in x if isinstance(t, torch.Tensor))


def load_workload(path: Path) -> ModuleType:
    """The lesson's workload module, loaded under a name of its own (the parent's copy, apart from the
    lesson's), once per process and thread-safe (:func:`autograder.workload.import_file`)."""
    return import_file(path, "_kernel_workload_")


@functools.cache
def copy_roofline_gbps(device: str) -> float:
    """The device's measured copy bandwidth (bench's fingerprint helper), once per process."""
    return copy_bandwidth(torch.device(device))[0]


def _inputs(make: Callable[..., Any], case: dict[str, Any], seed: int, device: str) -> tuple[Any, ...]:
    x = make(dict(case), seed, device)
    return tuple(x) if isinstance(x, tuple | list) else (x,)


def _read(info: dict[str, Any], folder: Path) -> torch.Tensor | str:
    """The saved output as a tensor, or what is wrong with its description."""
    name = info.get("file")
    dtype = getattr(torch, str(info.get("dtype")), None)
    shape = info.get("shape")
    if info.get("unsaved"):
        return f"the output could not be read back ({str(info['unsaved'])[:150]})"
    if not isinstance(name, str) or "/" in name or not isinstance(dtype, torch.dtype):
        return "no readable output was saved"
    if not (isinstance(shape, list) and all(isinstance(s, int) and s >= 0 for s in shape)):
        return "the output's shape was not described"
    path = folder / name
    itemsize = torch.empty((), dtype=dtype).element_size()
    numel = math.prod(shape)
    if info.get("sampled") is not None:  # the elements of sample_indices only, in their order
        numel = _sampled_count(numel)
        shape = [numel]
    if not path.is_file() or path.stat().st_size != numel * itemsize:
        return "the saved output does not have the size its description says"
    buf = bytearray(numel * itemsize)  # read into one buffer (no numpy: a student's install may lack it)
    with path.open("rb") as fh:
        fh.readinto(buf)
    raw = torch.frombuffer(buf, dtype=torch.uint8) if buf else torch.empty(0, dtype=torch.uint8)
    return (raw.view(torch.uint8 if dtype == torch.bool else dtype).reshape(shape)).to(dtype)


def _sampled_count(n: int) -> int:
    return min(SAMPLE_EDGE, n) + (n - max(n - SAMPLE_EDGE, 0)) + SAMPLE_SIZE


def _seen(ref: torch.Tensor, info: dict[str, Any]) -> torch.Tensor:
    """What of ``ref`` the saved output holds: all of it, or the elements the parent picked."""
    pick = info.get("sampled")
    if pick is None:
        return ref
    flat = ref.reshape(-1)
    return flat[sample_indices(torch, int(flat.numel()), int(pick), flat.device)]


@dataclass
class _Check:
    ok: bool
    err: float
    why: str  # "" when ok: "format", "values"
    detail: str = ""


def _check_one(out: torch.Tensor | str, info: dict[str, Any], ref: torch.Tensor, task: KernelTask) -> _Check:
    if isinstance(out, str):
        return _Check(False, math.inf, "format", out)
    if info.get("device") != torch.device(task.device).type:
        return _Check(False, math.inf, "format", f"the output is on {info.get('device')}, not {task.device}")
    shape = info.get("shape") if info.get("sampled") is not None else list(out.shape)
    if list(shape or []) != list(ref.shape) or out.dtype != ref.dtype:
        return _Check(False, math.inf, "format", f"the output is {str(out.dtype)[6:]} {list(shape or [])}, the "
                                                 f"reference {str(ref.dtype)[6:]} {list(ref.shape)}")
    ref = _seen(ref, info)
    rtol, atol = tolerance_for(task.tolerances, ref.dtype)
    # on the reference's device (the parent holds the device turn while it verifies): comparing a 2^26-element
    # output in float64 took 12 s on one busy core of a 2-core machine; on a GPU it is a few elementwise kernels
    ok, err = compare(out.to(ref.device), ref, rtol, atol)
    return _Check(ok, err, "" if ok else "values")


def threads_left_in_checks(run: ChildRun, n_checks: int) -> bool:
    """A check call other than the first (which compiles, and a compiler may start its pool) returned with a
    thread of its own still running (a lone check call: that one)."""
    out = {int(m.get("case", -1)): m for m in run.all("output") if m.get("phase") == "check" and m.get("call", 0) == 0}
    started = [int((out.get(i) or {}).get("threads") or 0) for i in range(n_checks)]
    return any(started[1:]) or (len(started) == 1 and started[0] > 0)


def check_outputs(task: KernelTask, run: ChildRun, folder: Path, plan: Timing
                  ) -> tuple[Finding, tuple[CaseResult, ...]]:
    """The verdict from the saved outputs and the clocks (the child ran to its end)."""
    wl = load_workload(task.workload)
    make, reference = getattr(wl, task.make_inputs), getattr(wl, task.reference)
    dev = task.device
    outputs = {(m.get("phase"), int(m.get("case", -1)), int(m.get("call", -1))): m for m in run.all("output")}
    end = run.first("end") or {}

    def ref_of(seed: int, case: dict[str, Any]) -> tuple[torch.Tensor, int]:
        x = _inputs(make, case, seed, dev)
        with torch.no_grad():
            r = reference(*x)
        return r, sum(int(t.nbytes) for t in x if isinstance(t, torch.Tensor)) + int(r.nbytes)

    # 1. the hidden check cases.  A thread alive after a check call other than the first (which compiles,
    # and a compiler may start its pool) means the call returned before its work was done
    left_running = threads_left_in_checks(run, len(task.check_cases))
    for i, case in enumerate(task.check_cases):
        info = outputs.get(("check", i, 0))
        if info is None:
            return Finding("crashed", "protocol", "the kernel's process did not report a correctness case"), ()
        if not info.get("ok"):
            return Finding("gamed", "lazy_output", f"the kernel returned a {info.get('type')}, not a torch.Tensor: "
                                                   "an output must be computed when the call returns"), ()
        ref, _ = ref_of(call_seed(task.seed, "check", i, 0), case)
        c = _check_one(_read(info, folder), info, ref, task)
        if not c.ok and left_running:
            return Finding("gamed", "thread", "the kernel returned before its work was done and left a thread "
                                              "running to finish it: a result must be complete when the call "
                                              "returns"), ()
        if not c.ok:
            return _wrong_check(c, _read(info, folder), ref, case, task), ()

    # 2. limits and timing integrity the child could see (torch's allocator peak: the per-process
    # fraction the child set can be lifted by the student's code, the peak still tells)
    peak = int(end.get("gpu_peak_bytes") or 0)
    if peak > task.limits.gpu_memory_mb << 20:
        return Finding("out_of_memory", "gpu_memory", f"the kernel held {peak / 2**20:.0f} MiB of GPU memory, over "
                                                      f"its limit of {task.limits.gpu_memory_mb} MiB"), ()
    patched = end.get("patched") or []
    if patched:
        return Finding("gamed", "timer_patched", f"the kernel replaced timing functions: {', '.join(patched[:4])}"), ()

    # 3. the timed calls' saved outputs and clocks
    results: list[CaseResult] = []
    later: Finding | None = None
    for ci, case in enumerate(task.cases):
        done = next((m for m in run.all("done") if m.get("phase") == "timed" and m.get("case") == ci), None)
        samples = [float(s) for s in (done or {}).get("samples", []) if isinstance(s, int | float)]
        if done is None or len(samples) != plan.calls:
            return Finding("crashed", "protocol", "the kernel's process did not report its timed calls"), ()
        if int(done.get("threads") or 0) > 0:
            return Finding("gamed", "thread", "the kernel left a thread running after a call returned: its work "
                                              "must be done when the call returns"), ()
        traps, saved = plan_calls(plan.calls, task.seed, ci)
        worst, bytes_moved = 0.0, 0
        warm_ref: torch.Tensor | None = None
        refs: dict[int, torch.Tensor] = {}
        wrong: tuple[int, _Check, torch.Tensor | str] | None = None
        for k in saved:
            info = outputs.get(("timed", ci, k))
            if info is None:
                return Finding("crashed", "protocol", "the kernel's process did not save a timed output"), ()
            if not info.get("ok"):
                return Finding("gamed", "lazy_output", f"a timed call returned a {info.get('type')}, not a "
                                                       "torch.Tensor"), ()
            if info.get("skipped"):  # the output budget was spent (large outputs): not saved, not judged
                continue
            if info.get("sampled") is not None and info.get("sampled") != run.picks.get(ci):
                return Finding("gamed", "forged_message", f"timed call {k}'s output was saved at elements the "
                                                          "grader did not pick"), ()
            kind = "refill" if k in traps else "timed"
            ref, nbytes = ref_of(call_seed(task.seed, kind, ci, k), case)
            bytes_moved = nbytes
            out = _read(info, folder)
            c = _check_one(out, info, ref, task)
            refs[k] = _seen(ref, info)  # what the output holds of it (a large output: the picked elements)
            del ref
            worst = max(worst, c.err)
            if not c.ok and wrong is None:
                wrong = (k, c, out)
            if warm_ref is None:
                warm_ref = _seen(ref_of(call_seed(task.seed, "warm", ci, 0), case)[0], info)
        ext = _external(run, ci, plan.calls)
        if not refs:
            return Finding("crashed", "protocol", "no timed output could be saved within the output limit"), ()
        if wrong is not None:
            k, c, out = wrong
            assert warm_ref is not None
            return _wrong_timed(k, c, out, refs, warm_ref, task), ()
        sampled = next((_sampled_count(math.prod(o.get("shape") or [0])) for k in saved
                        if (o := outputs.get(("timed", ci, k))) and o.get("sampled") is not None), 0)
        stats_ms = summarize([max(s, 1e-6) for s in samples])
        meas = Measurement(
            case=Case(variant=task.entry, params=dict(case)), method="gpu_time" if dev == "cuda" else "wall_per_call",
            samples_ms=[max(s, 1e-6) for s in samples], calls_per_sample=1, stats=stats_ms, bytes_moved=bytes_moved,
            l2_policy="L2 flushed before every call" if dev == "cuda" else "cpu: no flush",
            notes=f"{plan.calls} calls on fresh inputs, device-wide sync after each; external {ext:.4g} ms/call"
                  + (f"; outputs checked at {sampled} elements each, picked after the calls" if sampled else ""),
        )
        results.append(CaseResult(case=dict(case), measurement=meas, max_error=worst,
                                  external_ms=ext if math.isfinite(ext) else None))
        if later is None:
            base = next((m for m in run.all("done") if m.get("phase") == "baseline" and m.get("case") == ci), {})
            seen = _num(done, "late_wait_ms") + max(_num(done, "cpu_ms") - _num(base, "cpu_ms") - sum(samples), 0.0)
            later = _clock(samples, ext, _num(done, "extra_wait_ms"), seen, bytes_moved, stats_ms.median, task)
    if later is not None:
        return later, tuple(results)
    if end.get("threads_alive"):
        return Finding("gamed", "thread", f"the kernel left threads running: {', '.join(end['threads_alive'][:3])}"), (
            tuple(results))
    n = len(task.check_cases)
    return Finding("ok", None, f"correct on {n} hidden case{'s' if n != 1 else ''} and every checked timed call"), (
        tuple(results))


def _external(run: ChildRun, ci: int, calls: int) -> float:
    """Per call, by the parent's clock: (timed loop - baseline loop) / calls."""
    try:
        timed = run.done[("timed", ci)] - run.go[("timed", ci)]
        base = run.done[("baseline", ci)] - run.go[("baseline", ci)]
    except KeyError:
        return math.nan
    return max(timed - base, 0.0) * 1e3 / calls


def _num(msg: dict[str, Any], key: str) -> float:
    v = msg.get(key)
    return float(v) if isinstance(v, int | float) and math.isfinite(v) else 0.0


def _clock(samples: list[float], ext: float, extra_wait_ms: float, seen_ms: float, bytes_moved: int,
           median_ms: float, task: KernelTask) -> Finding | None:
    found = clock_finding(samples, ext, extra_wait_ms, task.device, seen_ms=seen_ms)
    if found is not None:
        return Finding("gamed", found.family, found.reason)
    # a CPU's caches hold small working sets: the copy roofline binds there only far beyond them
    if task.device == "cuda" or bytes_moved >= 1 << 30:
        roof = copy_roofline_gbps(task.device)
        if faster_than_memory(bytes_moved, median_ms, roof):
            gbps = bytes_moved / (median_ms * 1e-3) / 1e9
            return Finding("gamed", "faster_than_memory", f"the kernel moved its data at {gbps:.0f} GB/s, above the "
                                                          f"device's measured copy roofline of {roof:.0f} GB/s")
    return None


def _wrong_check(c: _Check, out: torch.Tensor | str, ref: torch.Tensor, case: dict[str, Any],
                 task: KernelTask) -> Finding:
    where = ", ".join(f"{k}={v}" for k, v in sorted(case.items()))
    if c.why == "format":
        return Finding("wrong", "output_format", f"on a hidden case ({where}) {c.detail}")
    rtol, atol = tolerance_for(task.tolerances, ref.dtype)
    if isinstance(out, torch.Tensor) and looks_like_lower_precision(out, ref.cpu(), rtol, atol):
        return Finding("wrong", "precision", f"on a hidden case ({where}) the result is off by {c.err:.3g}: the "
                                             f"arithmetic ran in a lower precision than {str(ref.dtype)[6:]}")
    return Finding("wrong", "values", f"on a hidden case ({where}) the result differs from the reference by "
                                      f"{c.err:.3g} (tolerance rtol={rtol:g}, atol={atol:g})")


def _wrong_timed(k: int, c: _Check, out: torch.Tensor | str, refs: dict[int, torch.Tensor], warm_ref: torch.Tensor,
                 task: KernelTask) -> Finding:
    if isinstance(out, torch.Tensor) and c.why == "values":
        rtol, atol = tolerance_for(task.tolerances, out.dtype)
        others = [warm_ref.cpu(), *(r.cpu() for j, r in refs.items() if j != k)]
        if any(o.shape == out.shape and compare(out, o, rtol, atol)[0] for o in others):
            return Finding("wrong", "cached_result", f"timed call {k} returned the answer of another call's "
                                                     "inputs: results must not be replayed from a cache")
        if looks_like_lower_precision(out, refs[k].cpu(), rtol, atol):
            return Finding("wrong", "precision", f"timed call {k} is off by {c.err:.3g}: the arithmetic ran in a "
                                                 "lower precision than the inputs")
    return Finding("wrong", "shape_special", f"correct on the hidden cases but wrong on the timed shape (call {k}: "
                                             f"{c.detail or f'error {c.err:.3g}'}): the benchmark shape must not be "
                                             "special-cased")

