"""The records of the kernels contract (issue 22): what to run for one submission and what came of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..records import Measurement

__all__ = ["VERDICTS", "CaseResult", "KernelResult", "KernelTask", "Limits", "Verdict"]

Verdict = Literal["ok", "wrong", "crashed", "timeout", "out_of_memory", "gamed", "no_entry", "sandbox_failed"]
VERDICTS: tuple[str, ...] = ("ok", "wrong", "crashed", "timeout", "out_of_memory", "gamed", "no_entry",
                             "sandbox_failed")


class Limits(BaseModel, frozen=True):
    """Per submission: wall time (the parent kills the process group), memory (RLIMIT_AS on a CPU,
    RLIMIT_DATA on a CUDA node), GPU memory (torch's per-process fraction) and the outputs it may save."""

    wall_s: float = Field(default=120.0, gt=0)
    memory_mb: int = Field(default=8192, gt=0)
    gpu_memory_mb: int = Field(default=16384, gt=0)
    output_mb: int = Field(default=256, gt=0)
    #: one submission at a time runs anything on the device (runner.DeviceTurn); None: on CUDA only (a CPU
    #: pool's children share the cores anyway)
    exclusive_device: bool | None = None
    #: a timed output of more elements than this is checked on its first and last 2^16 elements and 2^20
    #: more spread over it, picked by the parent once the case's timed calls are over (a 2^26-element output
    #: saved and read back whole cost ~0.1 s each, nine of them per submission); 0: every element. The
    #: hidden check cases are always checked whole.
    verify_sample_from: int = Field(default=1 << 21, ge=0)
    #: True: a child started ahead for a CUDA node makes its CUDA context while it waits for its task,
    #: outside the device turn (no kernel runs then, and no student code exists yet). Off by default: on
    #: the H200 a context made while another submission was timed stalled that submission's synchronised
    #: calls, so the grader's own clock saw 5.12 ms a call where the kernel took 0.07 ms, and 10 correct
    #: kernels of a class of 200 were judged gamed/clock_disagreement in a local pool
    #: (benchmarks/results/h200-2026-12-03). False: the context is made inside the submission's turn
    cuda_ahead: bool = False


class KernelTask(BaseModel, frozen=True):
    """What to run for one submission."""

    source: str  # the student's graded cell source; it defines `entry`
    entry: str  # the name of the function the cell must define
    workload: Path  # the lesson's workload.py (reference + input generator live there)
    reference: str  # the workload function the student must match (same signature)
    make_inputs: str  # the workload function (case: dict, seed: int, device: str) -> tuple[Tensor, ...]
    cases: tuple[dict[str, Any], ...]  # timed cases, e.g. ({"dtype": "fp16", "log2_n": 24},)
    check_cases: tuple[dict[str, Any], ...]  # hidden correctness cases (odd sizes included)
    seed: int  # hidden: every input is made from it (fresh per call)
    tolerances: dict[str, tuple[float, float]]  # dtype -> (rtol, atol)
    device: str  # "cuda" or "cpu"
    limits: Limits = Limits()


class CaseResult(BaseModel, frozen=True):
    """One timed case of one submission."""

    case: dict[str, Any]
    measurement: Measurement | None  # method "gpu_time" on CUDA, "wall_per_call" on CPU; None if not timed
    max_error: float | None
    external_ms: float | None  # per call, from the clock of the process that never imported student code


class KernelResult(BaseModel, frozen=True):
    """The verdict on one submission."""

    verdict: Verdict
    family: str | None  # which family of "gamed"/"wrong" (and what crashed: "segfault", "exception"...)
    reason: str  # one sentence a student and a TA can act on
    cases: tuple[CaseResult, ...]
    seconds: float  # wall time of the whole submission, compile included
    #: where the time went (s): child start, torch import, inputs, baseline, import, compile, check,
    #: timing, verify (the parent's own check): for the throughput benchmark
    phases: dict[str, float] = Field(default_factory=dict)
