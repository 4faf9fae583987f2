"""Throughput of grading students' own kernels (issue 22, item 6): submissions an hour, and where the time goes.

    .venv/bin/python benchmarks/kernel_throughput.py [--device cpu|cuda] [-n 12] [--pool 2] [--out FILE]

A mixed class of ``n`` submissions, cycled from the hostile-kernel suite (tests/kernels/hostile/): good ones
(PyTorch and Triton), slow, wrong, blank and hostile ones (the hang only with ``--with-hang``: it costs its
whole wall limit).  Each runs through :func:`autograder.kernels.run_submission` -- its own child process, in
bubblewrap where it is installed -- first one after another, then ``--pool`` at a time (threads, each
waiting on its child).  Printed: seconds per submission (mean, median, max), submissions an hour, the
verdicts, and the mean seconds of each phase (child start with torch's import, inputs, baseline, the
student's import, compile = the first call, check, timing, the parent's verify); "once compiled" is a
submission's time without its compile phase.  On a CPU Triton runs through its interpreter.
"""

from __future__ import annotations

import argparse
import collections
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from autograder.isolation import bwrap_available
from autograder.kernels import KernelResult, run_submission
from tests.kernels.conftest import make_task, source_of

CLASS = ["correct_torch", "correct_triton", "slow_correct", "wrong", "blank_not_implemented", "correct_torch",
         "cached_ptr", "timer_patched", "lazy_output", "correct_triton", "segfault", "precision", "shape_special",
         "thread", "network", "blank_missing"]
PHASES = ("child_start", "torch_import", "inputs", "baseline", "import", "compile", "check", "timing", "verify")


def _one(name: str, device: str, isolate: bool) -> tuple[str, KernelResult]:
    return name, run_submission(make_task(source_of(name), device=device, wall_s=12.0 if name == "infinite_loop"
                                          else 120.0), isolate=isolate)


def _report(label: str, results: list[tuple[str, KernelResult]], wall: float, workers: int) -> list[str]:
    secs = [r.seconds for _, r in results]
    compiled = [r.seconds - r.phases.get("compile", 0.0) for _, r in results]
    verdicts = collections.Counter(f"{r.verdict}/{r.family}" if r.family else r.verdict for _, r in results)
    lines = [
        f"## {label}: {len(results)} submissions, {workers} at a time, {wall:.1f} s wall",
        f"per submission: mean {statistics.fmean(secs):.2f} s, median {statistics.median(secs):.2f} s, "
        f"max {max(secs):.2f} s; once compiled: mean {statistics.fmean(compiled):.2f} s",
        f"throughput: {len(results) / wall * 3600:.0f} submissions an hour",
        "verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())),
        "mean seconds per phase: " + ", ".join(
            f"{p} {statistics.fmean([r.phases.get(p, 0.0) for _, r in results]):.3f}" for p in PHASES),
    ]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("-n", type=int, default=12, help="submissions in the class")
    ap.add_argument("--pool", type=int, default=2, help="submissions at a time in the second run")
    ap.add_argument("--no-isolate", action="store_true", help="children without bubblewrap")
    ap.add_argument("--with-hang", action="store_true", help="include the infinite loop (costs its wall limit)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    names = CLASS + (["other_stream"] if args.device == "cuda" else []) + (["infinite_loop"] if args.with_hang else [])
    klass = [names[i % len(names)] for i in range(args.n)]
    isolate = not args.no_isolate
    head = [
        f"# kernel grading throughput ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
        f"device {args.device}; host {platform.node()} with {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
        f"sandbox: {'bubblewrap' if isolate and bwrap_available() else 'none'}",
        "command: python benchmarks/kernel_throughput.py " + " ".join(sys.argv[1:]),
    ]
    print("\n".join(head), flush=True)
    out = list(head)
    t = time.perf_counter()
    seq = [_one(n, args.device, isolate) for n in klass]
    block = _report("one after another", seq, time.perf_counter() - t, 1)
    print("\n".join(block), flush=True)
    out += block
    t = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.pool) as pool:
        par = list(pool.map(lambda n: _one(n, args.device, isolate), klass))
    block = _report("pool", par, time.perf_counter() - t, args.pool)
    print("\n".join(block), flush=True)
    out += block
    same = all((a.verdict, a.family) == (b.verdict, b.family) for (_, a), (_, b) in zip(seq, par, strict=True))
    out.append(f"verdicts identical in both runs: {same}")
    print(out[-1])
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(out) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
