"""Throughput of grading students' own kernels (issue 22, item 6): submissions an hour, and where the time goes.

    .venv/bin/python benchmarks/kernel_throughput.py [--device cpu|cuda] [-n 12] [--pool 2]
                                  [--runs cold,warm,warmahead,coldpool,pool] [--ahead K] [--lesson DIR] [--out FILE]

A mixed class of ``n`` submissions, cycled from the hostile-kernel suite (tests/kernels/hostile/): good ones
(PyTorch and Triton), slow, wrong, blank and hostile ones (the hang only with ``--with-hang``: it costs its
whole wall limit).  Each runs in its own child process, in bubblewrap where it is installed, in up to three
runs: ``cold`` one after another, each child started when its submission comes
(:func:`autograder.kernels.run_submission`); ``warm`` one after another, each next child started ahead while
the current one runs (:class:`autograder.kernels.WarmStart`, as a class's grading does; ``--ahead`` of them
at a time, by default one per three cores, 1 to 5; each makes its CUDA context in its device turn, the
default); ``warmahead`` the same with each child's CUDA context made while it waits
(``Limits(cuda_ahead=True)``: what making contexts ahead saves, and whether it disturbs the others' clocks);
``pool``, ``--pool``
threads at a time, each with its own WarmStart; ``coldpool``, ``--pool`` at a time, each child started when
its submission comes.  Printed: seconds per submission (mean, median, max), the
same after the first submission (the "once compiled" figure: the first pays the cold start and the first
compile), submissions an hour, the verdicts, and the mean seconds of each phase: boot (the child's own
start: bubblewrap, Python, torch and Triton imported; hidden when started ahead), child_start (what the
submission waited for its child, from its task sent), turn_wait, torch_import (inside boot), cuda_ahead (the
CUDA context made while waiting, inside boot), idle (the child waiting for its task, started ahead), cuda_init
(the CUDA context in the device turn: short when it was made ahead), inputs, baseline, the student's import,
compile = the first call, check, timing, the parent's verify; and for each good kernel the spread of its
measured per-call medians over the run (making contexts ahead must not move them); and per kind of
submission once compiled, its mean seconds and the three phases it spent most in (what pulls the mean above
the median).  On a CPU Triton runs
through its interpreter.
"""

from __future__ import annotations

import argparse
import collections
import os
import platform
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from autograder.isolation import bwrap_available
from autograder.kernels import KernelResult, KernelTask, WarmStart, run_submission
from autograder.kernels.runner import default_ahead
from tests.kernels.conftest import make_task, source_of

CLASS = ["correct_torch", "correct_triton", "slow_correct", "wrong", "blank_not_implemented", "correct_torch",
         "cached_ptr", "timer_patched", "lazy_output", "correct_triton", "segfault", "precision", "shape_special",
         "thread", "network", "blank_missing"]
PHASES = ("boot", "child_start", "turn_wait", "torch_import", "cuda_ahead", "idle", "cuda_init", "inputs",
          "baseline", "import", "compile", "check", "timing", "verify")
RUNS = {"cold": "one after another, each child started when its submission comes",
        "warm": "one after another, each next child started ahead (WarmStart)",
        "warmahead": "as warm, each child's CUDA context made while it waits (Limits(cuda_ahead=True))",
        "pool": "a pool, each worker with its WarmStart",
        "coldpool": "a pool, each child started when its submission comes"}
Done = tuple[str, KernelResult, float]  # name, result, when it finished (perf_counter)


LESSON: list[Path] = []  # --lesson: the lesson whose student variant the class's submissions are graded as
CUDA_AHEAD = [False]  # True during a warmahead run


def _task(name: str, device: str) -> KernelTask:
    from autograder.kernels import Limits

    wall = 12.0 if name == "infinite_loop" else 120.0
    limits = Limits(wall_s=wall, cuda_ahead=CUDA_AHEAD[0])
    if not LESSON:
        return make_task(source_of(name), device=device, wall_s=wall, limits=limits)
    from autograder.grading.student_kernel import kernel_task
    from autograder.spec import load_spec

    task = kernel_task(load_spec(LESSON[0]), device, source_of(name), seed=20260)
    return task.model_copy(update={"limits": limits})


def _spread(results: list[Done]) -> str:
    """Each good kernel's measured per-call medians (first timed case) over the run: min–max and n."""
    by: dict[str, list[float]] = collections.defaultdict(list)
    for name, r, _ in results:
        m = r.cases[0].measurement if r.verdict == "ok" and r.cases else None
        if m is not None:
            by[name].append(m.median_ms)
    return "; ".join(f"{n} {min(v) * 1e3:.1f}–{max(v) * 1e3:.1f} µs ({len(v)}, {max(v) / min(v) - 1:+.1%})"
                     for n, v in sorted(by.items())) or "none"


def _cold(name: str, device: str, isolate: bool) -> Done:
    r = run_submission(_task(name, device), isolate=isolate)
    return name, r, time.perf_counter()


def _warm(warm: WarmStart, name: str, device: str) -> Done:
    r = warm.run(_task(name, device))
    return name, r, time.perf_counter()


def _report(label: str, results: list[Done], t0: float, wall: float, workers: int) -> list[str]:
    secs = [r.seconds for _, r, _ in results]
    after = secs[1:] or secs
    ends = sorted(e for _, _, e in results)
    per_after = (ends[-1] - ends[0]) / max(1, len(ends) - 1)  # wall from the first's end to the last's
    verdicts = collections.Counter(f"{r.verdict}/{r.family}" if r.family else r.verdict for _, r, _ in results)
    return [
        f"## {label} ({RUNS[label]}): {len(results)} submissions, {workers} at a time, {wall:.1f} s wall",
        f"per submission: mean {statistics.fmean(secs):.2f} s, median {statistics.median(secs):.2f} s, "
        f"max {max(secs):.2f} s; first {secs[0]:.2f} s (first end at {ends[0] - t0:.2f} s)",
        f"once compiled (submissions after the first): mean {statistics.fmean(after):.2f} s each, median "
        f"{statistics.median(after):.2f} s; wall per submission after the first {per_after:.2f} s",
        f"throughput: {len(results) / wall * 3600:.0f} submissions an hour "
        f"({3600 / per_after if per_after else 0:.0f} an hour after the first)",
        "verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())),
        "mean seconds per phase: " + ", ".join(
            f"{p} {statistics.fmean([r.phases.get(p, 0.0) for _, r, _ in results]):.3f}" for p in PHASES),
        "good kernels' measured medians (first case): " + _spread(results),
        *_per_kind(results),
    ]


def _per_kind(results: list[Done]) -> list[str]:
    """Once compiled (after the first submission), per kind of submission: how many, mean seconds, and the
    three phases it spent most in; the kinds that pull the mean above the median come first."""
    kinds: dict[str, list[KernelResult]] = collections.defaultdict(list)
    for name, r, _ in results[1:]:
        kinds[name].append(r)
    rows = []
    for name, rs in kinds.items():
        mean = statistics.fmean(r.seconds for r in rs)
        phases = {p: statistics.fmean(r.phases.get(p, 0.0) for r in rs) for p in PHASES if p not in
                  ("boot", "torch_import", "cuda_ahead", "idle")}  # hidden when started ahead
        top = sorted(phases.items(), key=lambda kv: -kv[1])[:3]
        rows.append((mean, f"  {name}: {len(rs)}, mean {mean:.2f} s ({', '.join(f'{p} {v:.2f}' for p, v in top)})"))
    return ["per kind, once compiled (slowest first):", *(line for _, line in sorted(rows, reverse=True))]


def _run(label: str, klass: list[str], device: str, isolate: bool, pool: int,
         ahead: int | None) -> tuple[list[Done], float, float]:
    t0 = time.perf_counter()
    if label == "cold":
        done = [_cold(n, device, isolate) for n in klass]
    elif label == "coldpool":
        with ThreadPoolExecutor(max_workers=pool) as ex:
            done = list(ex.map(lambda n: _cold(n, device, isolate), klass))
    elif label in ("warm", "warmahead"):
        with WarmStart(isolate=isolate, ahead=ahead) as warm:
            done = [_warm(warm, n, device) for n in klass]
    else:
        local = threading.local()
        made: list[WarmStart] = []

        def one(n: str) -> Done:
            if not hasattr(local, "warm"):
                local.warm = WarmStart(isolate=isolate, ahead=ahead)
                made.append(local.warm)
            return _warm(local.warm, n, device)

        with ThreadPoolExecutor(max_workers=pool) as ex:
            try:
                done = list(ex.map(one, klass))
            finally:
                for w in made:  # the children started ahead that no submission needs (before the threads end)
                    w.close()
    return done, t0, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("-n", type=int, default=12, help="submissions in the class")
    ap.add_argument("--pool", type=int, default=2, help="submissions at a time in the pool run")
    ap.add_argument("--runs", default="cold,warm,coldpool,pool", help="which runs, in order: cold, warm, "
                    "warmahead, coldpool, pool")
    ap.add_argument("--ahead", type=int, help="children each WarmStart keeps started ahead (default: one per "
                    "three cores, 1 to 5)")
    ap.add_argument("--no-isolate", action="store_true", help="children without bubblewrap")
    ap.add_argument("--with-hang", action="store_true", help="include the infinite loop (costs its wall limit)")
    ap.add_argument("--lesson", type=Path, help="grade the class as this lesson's student variant (its workload, "
                    "timed and hidden cases; e.g. source/06_fused_kernel) instead of the tests' fixture lesson")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.lesson is not None:
        if not (args.lesson / "lesson.toml").is_file():
            ap.error(f"--lesson {args.lesson}: no lesson.toml there")
        LESSON.append(args.lesson.resolve())
    runs = [r.strip() for r in args.runs.split(",") if r.strip()]
    if not runs or any(r not in RUNS for r in runs):
        ap.error(f"--runs takes a comma-separated list of {', '.join(RUNS)}")
    names = CLASS + (["other_stream"] if args.device == "cuda" else []) + (["infinite_loop"] if args.with_hang else [])
    klass = [names[i % len(names)] for i in range(args.n)]
    isolate = not args.no_isolate
    head = [
        f"# kernel grading throughput ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
        f"device {args.device}; host {platform.node()} with {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
        f"sandbox: {'bubblewrap' if isolate and bwrap_available() else 'none'}; children started ahead per "
        f"WarmStart: {args.ahead or default_ahead()}; workload: "
        f"{LESSON[0].name if LESSON else 'the tests fixture lesson (tests/kernels/fixtures)'}",
        "command: python benchmarks/kernel_throughput.py " + " ".join(sys.argv[1:]),
    ]
    print("\n".join(head), flush=True)
    out = list(head)
    seen: list[list[Done]] = []
    for label in runs:
        workers = args.pool if label in ("pool", "coldpool") else 1
        CUDA_AHEAD[0] = label == "warmahead"
        done, t0, wall = _run(label, klass, args.device, isolate, workers, args.ahead)
        block = _report(label, done, t0, wall, workers)
        print("\n".join(block), flush=True)
        out += block
        seen.append(done)
    same = all([(r.verdict, r.family) for _, r, _ in d] == [(r.verdict, r.family) for _, r, _ in seen[0]]
               for d in seen)
    out.append(f"verdicts identical in every run: {same}")
    print(out[-1])
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(out) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
