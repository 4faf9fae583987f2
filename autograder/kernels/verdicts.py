"""Pure decisions: from what the child said and what the parent measured to a verdict and its family.

Nothing here runs a submission; every function is tested on its own with made-up numbers too.
"""

from __future__ import annotations

import math
import re
import signal
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ..records import short_dtype

__all__ = [
    "AUDIT_FAMILIES",
    "ClockFinding",
    "Finding",
    "clock_finding",
    "compare",
    "error_finding",
    "exit_finding",
    "faster_than_memory",
    "looks_like_lower_precision",
    "tolerance_for",
]

#: what the audit hook reports, its verdict and the sentence a student reads
AUDIT_FAMILIES: dict[str, tuple[str, str]] = {
    "reads_reference": ("gamed", "the kernel reached for the lesson's reference (its module or the heap) "
                                 "instead of computing the result"),
    "course_file": ("gamed", "the kernel tried to read a course file; a kernel gets its inputs and nothing else"),
    "network": ("gamed", "the kernel tried to use the network; the grading sandbox has none"),
    "fork_bomb": ("gamed", "the kernel started processes without bound; a kernel runs in its own process only"),
}
_OOM = re.compile(r"out of memory|can't allocate memory|cannot allocate memory|OutOfMemoryError|MemoryError"
                  r"|std::bad_alloc|Cannot allocate memory", re.IGNORECASE)
_ILLEGAL = re.compile(r"illegal memory access|misaligned address|illegal instruction|unspecified launch failure"
                      r"|device-side assert", re.IGNORECASE)


@dataclass(frozen=True)
class Finding:
    verdict: str
    family: str | None
    reason: str


def error_finding(kind: str, message: str, phase: str) -> Finding:
    """An exception the student's code raised (reported by the child) as a verdict."""
    one = (message.strip().splitlines() or [""])[0][:200]
    where = {"import": "while its cell ran", "check": "on a correctness case", "timed": "while being timed"}.get(
        phase, phase)
    if kind == "NotImplementedError":
        return Finding("no_entry", "blank", f"the kernel is not written yet (it raised NotImplementedError {where})")
    if kind in ("MemoryError", "OutOfMemoryError") or _OOM.search(f"{kind} {message}"):
        return Finding("out_of_memory", "memory", f"the kernel ran out of memory {where}: {one}")
    if _ILLEGAL.search(message):
        return Finding("crashed", "illegal_memory_access", f"the kernel crashed the device {where}: {one}")
    return Finding("crashed", "exception", f"the kernel raised {kind} {where}: {one}")


def exit_finding(returncode: int | None, stderr_tail: str) -> Finding:
    """A child that ended without saying it was done: killed by a signal, a fatal error, a limit."""
    tail = stderr_tail[-4000:]
    last = next((ln.strip() for ln in reversed(tail.splitlines()) if ln.strip()), "")[:200]
    if returncode is not None and returncode < 0:
        sig = -returncode
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        if sig == signal.SIGXCPU:
            return Finding("timeout", "cpu_time", "the kernel used up its CPU time limit")
        if sig == signal.SIGXFSZ:
            return Finding("crashed", "file_size", "the kernel wrote more than its file size limit")
        if sig in (signal.SIGSEGV, signal.SIGBUS):
            return Finding("crashed", "segfault", f"the kernel's process crashed ({name}: a bad memory access)")
        return Finding("crashed", "signal", f"the kernel's process was killed by {name}")
    if "Segmentation fault" in tail or "Bus error" in tail:
        return Finding("crashed", "segfault", "the kernel's process crashed (a segmentation fault)")
    if _OOM.search(tail):
        return Finding("out_of_memory", "memory", f"the kernel's process ran out of memory: {last}")
    if _ILLEGAL.search(tail):
        return Finding("crashed", "illegal_memory_access", f"the kernel crashed the device: {last}")
    return Finding("crashed", "exit", f"the kernel's process ended early (exit status {returncode})"
                   + (f": {last}" if last else ""))


def tolerance_for(tolerances: dict[str, tuple[float, float]], dtype: torch.dtype) -> tuple[float, float]:
    """(rtol, atol) for an output dtype, looked up as ``fp16`` or ``float16``; torch's defaults otherwise."""
    long = str(dtype).replace("torch.", "")
    for key in (short_dtype(long), long):
        if key in tolerances:
            rtol, atol = tolerances[key]
            return float(rtol), float(atol)
    return (1e-3, 1e-5) if dtype in (torch.float16, torch.bfloat16) else (1.3e-6, 1e-5)


def compare(out: torch.Tensor, ref: torch.Tensor, rtol: float, atol: float) -> tuple[bool, float]:
    """(within tolerance, largest absolute error); NaN where the reference has none counts as wrong."""
    a, b = out.detach().double(), ref.detach().double()
    diff = (a - b).abs()
    nan_ok = torch.isnan(a) == torch.isnan(b)
    diff = torch.where(torch.isnan(a) & torch.isnan(b), torch.zeros_like(diff), diff)
    err = float(diff.max()) if diff.numel() else 0.0
    if math.isnan(err) or not bool(nan_ok.all()):
        return False, math.inf
    return bool(torch.all(diff <= atol + rtol * b.abs())), err


def looks_like_lower_precision(out: torch.Tensor, ref: torch.Tensor, rtol: float, atol: float) -> bool:
    """A wrong output that is the right answer rounded to a narrower float (bf16 keeps 8 bits, fp16 11):
    every element within 2 bf16 ulps of the reference, while the tolerance was tighter than that."""
    a, b = out.detach().double(), ref.detach().double()
    if a.shape != b.shape or not bool(torch.isfinite(a).all()):
        return False
    bound = 2 * 2.0**-8 * b.abs() + atol
    return rtol < 2.0**-8 and bool(torch.all((a - b).abs() <= bound))


@dataclass(frozen=True)
class ClockFinding:
    family: str
    reason: str


def clock_finding(samples_ms: Sequence[float], external_ms: float, extra_wait_ms: float, device: str,
                  ratio: float = 2.0) -> ClockFinding | None:
    """The in-process times against the parent's clock (``external_ms`` per call, baseline taken off).

    The child's per-call times cover each call; the parent's clock covers the same calls and the
    device-wide sync after each.  When the parent's clock says a call took ``ratio`` times longer than
    the child's (and more than a floor of timer and scheduler noise), work happened where the child's
    clock did not look: on another stream when the device sync waited past the call's own stream
    (``extra_wait_ms``, summed over the calls), else somewhere else (``clock_disagreement``)."""
    if not samples_ms or not math.isfinite(external_ms):
        return None
    inproc = statistics.fmean(samples_ms)
    floor = 0.02 if device == "cuda" else 0.5  # ms per call
    if external_ms <= ratio * inproc or external_ms - inproc <= floor:
        return None
    hidden = (external_ms - inproc) * len(samples_ms)
    if device == "cuda" and extra_wait_ms >= 0.5 * hidden:
        return ClockFinding("other_stream", f"the kernel's work ran on another stream: the device was busy "
                                            f"{external_ms:.3g} ms per call while its own stream showed "
                                            f"{inproc:.3g} ms")
    return ClockFinding("clock_disagreement", f"the grader's own clock saw {external_ms:.3g} ms per call, the "
                                              f"in-process timer {inproc:.3g} ms: time was spent where the "
                                              f"timer did not look")


def faster_than_memory(bytes_moved: int, median_ms: float, copy_gbps: float, slack: float = 1.1) -> bool:
    """True when reading the inputs and writing the output once would need more than ``slack`` times the
    device's measured copy bandwidth: the result did not come from memory."""
    if median_ms <= 0 or copy_gbps <= 0:
        return False
    return bytes_moved / (median_ms * 1e-3) / 1e9 > slack * copy_gbps
