"""The pure decisions and the child's shared helpers, with made-up inputs (no child process)."""

from __future__ import annotations

import math
import signal

import pytest
import torch

from autograder.kernels.child import MAX_LINE, call_seed, frame, plan_calls, unframe
from autograder.kernels.verdicts import (
    clock_finding,
    compare,
    error_finding,
    exit_finding,
    faster_than_memory,
    looks_like_lower_precision,
    tolerance_for,
)


def test_frames_round_trip_and_junk_is_refused() -> None:
    msg = {"t": "done", "samples": [0.1, 0.2], "case": 0}
    assert unframe(frame(msg).rstrip(b"\n")) == msg
    assert unframe(b"not json") is None
    assert unframe(b'["t", "done"]') is None  # not an object
    assert unframe(b'{"t": 3}') is None  # t must be a string
    with pytest.raises(ValueError):
        frame({"t": "x", "blob": "a" * MAX_LINE})


def test_seeds_are_deterministic_and_distinct_per_call() -> None:
    seeds = {call_seed(7, kind, 0, k) for kind in ("check", "warm", "timed", "refill") for k in range(50)}
    assert len(seeds) == 200
    assert call_seed(7, "timed", 1, 3) == call_seed(7, "timed", 1, 3) != call_seed(8, "timed", 1, 3)


@pytest.mark.parametrize("calls", [4, 24, 100])
def test_plan_saves_first_last_and_every_trap(calls: int) -> None:
    traps, saved = plan_calls(calls, 11, 0)
    assert traps and set(traps) <= set(saved)
    assert {0, calls - 1} <= set(saved)
    assert all(0 < t < calls for t in traps)


def test_tolerance_by_short_or_long_dtype_name() -> None:
    assert tolerance_for({"fp16": (1e-2, 1e-3)}, torch.float16) == (1e-2, 1e-3)
    assert tolerance_for({"float32": (1e-4, 1e-5)}, torch.float32) == (1e-4, 1e-5)
    assert tolerance_for({}, torch.bfloat16)[0] > tolerance_for({}, torch.float32)[0]


def test_compare_and_nans() -> None:
    ref = torch.tensor([1.0, 2.0, float("nan")])
    assert compare(ref.clone(), ref, 1e-5, 1e-6) == (True, 0.0)
    ok, err = compare(torch.tensor([1.0, 2.1, float("nan")]), ref, 1e-5, 1e-6)
    assert not ok and err == pytest.approx(0.1)
    assert compare(torch.tensor([1.0, 2.0, 0.0]), ref, 1e-5, 1e-6) == (False, math.inf)


def test_lower_precision_is_told_apart_from_a_bug() -> None:
    x = torch.randn(4096, generator=torch.Generator().manual_seed(0))
    ref = torch.relu(x * 2 + 1) * 0.5
    bf16 = (torch.relu(x.bfloat16() * 2 + 1) * 0.5).float()
    assert looks_like_lower_precision(bf16, ref, 1e-5, 1e-6)
    tail_bug = ref.clone()
    tail_bug[-3:] = 0.0  # a masking bug: a few elements wrong
    assert not looks_like_lower_precision(tail_bug, ref, 1e-5, 1e-6)
    assert not looks_like_lower_precision(torch.zeros_like(ref), ref, 1e-5, 1e-6)


def test_clock_findings() -> None:
    honest = [0.10] * 50
    assert clock_finding(honest, 0.11, 0.0, "cuda") is None
    # work hidden from the stream's events, waited for by the device sync: another stream
    other = clock_finding([0.01] * 50, 1.0, 45.0, "cuda")
    assert other is not None and other.family == "other_stream"
    # hidden elsewhere (the device sync did not wait for it)
    elsewhere = clock_finding([0.01] * 50, 1.0, 0.0, "cuda")
    assert elsewhere is not None and elsewhere.family == "clock_disagreement"
    # on a CPU, below the noise floor of half a millisecond per call, nothing is said
    assert clock_finding([0.01] * 24, 0.3, 0.0, "cpu") is None
    cpu = clock_finding([0.01] * 24, 3.0, 0.0, "cpu")
    assert cpu is not None and cpu.family == "clock_disagreement"
    assert clock_finding([], 1.0, 0.0, "cpu") is None


def test_faster_than_memory() -> None:
    # 2 GB in 1 ms is 2,000 GB/s: above a 1,000 GB/s copy roofline, within a 4,800 GB/s one
    assert faster_than_memory(2 * 10**9, 1.0, 1000.0)
    assert not faster_than_memory(2 * 10**9, 1.0, 4800.0)
    assert not faster_than_memory(10**9, 0.0, 1000.0)


def test_error_findings() -> None:
    assert error_finding("NotImplementedError", "", "check").verdict == "no_entry"
    assert error_finding("OutOfMemoryError", "CUDA out of memory. Tried to allocate", "timed").verdict == "out_of_memory"
    f = error_finding("AcceleratorError", "CUDA error: an illegal memory access was encountered", "check")
    assert (f.verdict, f.family) == ("crashed", "illegal_memory_access")
    g = error_finding("ValueError", "bad\nsecond line", "import")
    assert (g.verdict, g.family) == ("crashed", "exception") and "\n" not in g.reason


def test_exit_findings() -> None:
    assert exit_finding(-signal.SIGSEGV, "").family == "segfault"
    assert exit_finding(139, "Fatal Python error: Segmentation fault\n").family == "segfault"
    assert exit_finding(-signal.SIGXCPU, "").verdict == "timeout"
    assert exit_finding(-signal.SIGKILL, "").family == "signal"
    assert exit_finding(1, "RuntimeError: CUDA error: an illegal memory access").family == "illegal_memory_access"
    assert exit_finding(1, "boom").reason.endswith("boom")


def test_timing_plan_fits_the_input_budget() -> None:
    from autograder.kernels.verify import timing_plan

    from .conftest import make_task

    small = timing_plan(make_task("", device="cpu"))
    assert small.calls == 24  # 64 KiB inputs: the CPU's most
    big = timing_plan(make_task("", device="cuda", cases=({"dtype": "fp32", "log2_n": 25},)))
    assert big.calls == 16  # 128 MiB inputs: 2 GiB of fresh inputs a case
    huge = timing_plan(make_task("", device="cpu", cases=({"dtype": "fp32", "log2_n": 26},)))
    assert huge.calls == 8  # never fewer than the floor


def test_an_uncorroborated_disagreement_is_preemption_until_it_is_large() -> None:
    # 24 calls of 0.03 ms and a 20 ms preemption between two of them: the parent's clock alone says 0.86 ms
    assert clock_finding([0.03] * 24, 0.86, 0.0, "cpu", seen_ms=0.0) is None
    # the same excess, with the child's CPU time accounting for it: work was hidden
    hidden = clock_finding([0.03] * 24, 0.86, 0.0, "cpu", seen_ms=19.0)
    assert hidden is not None and hidden.family == "clock_disagreement"
    # far beyond any preemption, it is a verdict even with nothing in the child to show for it
    big = clock_finding([0.03] * 24, 15.0, 0.0, "cpu", seen_ms=0.0)
    assert big is not None and big.family == "clock_disagreement"
