"""GPU probe (one process): the two sweep points of 03_roofline that stayed outside 5 % of their best-of-N
probe on an H200 (benchmarks/results/h200-2026-12-02b), each under the conditions that could explain it.

    python benchmarks/gpu_probe_power.py OUT.jsonl        # on the GPU machine

A. ``matmul/tf32/2^14`` (23 ms a call, two calls a sample, the 700 W power limit): gpu_time with the pause
   after each sample as it is (as long as the sample), at least 250 ms, and three times the sample; each
   after the harness's steady-clock top-up, then 30 more samples under the same pauses, whose best is the
   steady check's probe. Printed: median, best, median/best, the SM clock after.
B. ``elementwise/fp32/2^6`` (a 1.2 µs add, graphs of ~800 calls, five captures): the harness's measurement
   (a) right after the steady-clock top-up, as now; (b) the same after 1 s idle; (c) after 4 s of sustained
   bf16 multiplies (the sweep's preceding points) and the top-up; three rounds of the three, interleaved, then
   the probe (five fresh captures, the median of their best-of-30).
C. The same add: the host time of one replay call of a ~1,000-node graph, and gpu_time at fixed graph lengths
   (960, 1,100 calls) with and without a device spin before each replay's start event.
Every row is a JSON line, printed and appended to OUT.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import torch

from autograder.bench.clocks import bring_to_steady, sm_clock_mhz
from autograder.bench.harness import Harness
from autograder.bench.timing import TimingPolicy, gpu_time, pinned_host
from autograder.spec import load_spec

DEV = torch.device("cuda")


def emit(out: Path, row: dict) -> None:
    print(json.dumps(row), flush=True)
    with out.open("a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")


def load(dev_seconds: float) -> None:
    a = torch.randn(16384, 16384, device=DEV, dtype=torch.bfloat16)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < dev_seconds:
        for _ in range(4):
            a @ a
        torch.cuda.synchronize()
    del a


def part_a(out: Path, spec, l2: int) -> None:
    wl = spec.workload
    params = {"dtype": "tf32", "log2_n": 14}
    x = wl.inputs(params, DEV)
    ctx = wl.prepare("matmul", params)
    with ctx() if ctx is not None else contextlib.nullcontext():
        fn = wl.build("matmul", params)
        fn(*x)
        policies = (("pause 1x (now)", {"cooldown_floor_ms": 0.0}), ("pause >= 250 ms", {"cooldown_floor_ms": 250.0}),
                    ("pause 3x", {"cooldown": 3.0, "cooldown_floor_ms": 0.0}))
        for label, changes in policies:
            pol = dataclasses.replace(TimingPolicy(), **changes)
            bring_to_steady(DEV, min_s=0.1)
            with pinned_host(DEV, pol):
                s, k, _ = gpu_time(fn, x, pol, l2, wl.work("matmul", params).footprint)
            clock = sm_clock_mhz(DEV)
            probe = dataclasses.replace(pol, min_samples=30, max_samples=30, target_iqr_rel=0.0, time_cap_s=60.0)
            with pinned_host(DEV, probe):
                p, _, _ = gpu_time(fn, x, probe, l2, wl.work("matmul", params).footprint, calls=k)
            emit(out, {"part": "A", "policy": label, "n": len(s), "median_ms": statistics.median(s),
                       "best_ms": min(s), "probe_best_ms": min(p), "probe_median_ms": statistics.median(p),
                       "off": statistics.median(s) / min(p) - 1, "sm_after": clock, "sm_after_probe": sm_clock_mhz(DEV),
                       "samples": [round(v, 3) for v in s]})
    del x


def part_b(out: Path, spec, l2: int) -> None:
    wl = spec.workload
    params = {"dtype": "float32", "log2_n": 6}
    h = Harness(device=DEV, l2_bytes=l2, steady_clocks=False)
    meds: dict[str, list[float]] = {"a": [], "b": [], "c": []}
    for rnd in range(3):
        for cond in ("a", "b", "c"):
            if cond == "c":
                load(4.0)
            bring_to_steady(DEV, min_s=0.1)
            if cond == "b":
                time.sleep(1.0)
            ms = h.measure(wl, params, ["matmul", "elementwise"], methods=("gpu_time",))
            m = next(m for m in ms if m.case.variant == "elementwise")
            meds[cond].append(m.median_ms)
            emit(out, {"part": "B", "round": rnd, "cond": cond, "median_ms": m.median_ms, "calls": m.calls_per_sample,
                       "n": len(m.samples_ms), "best_ms": min(m.samples_ms), "sm": m.sm_clock_mhz})
    pol = TimingPolicy(min_samples=30, max_samples=30, target_iqr_rel=0.0, time_cap_s=60.0, graph_layouts=1)
    fn = wl.build("elementwise", params)
    bests = []
    held = []
    for _ in range(5):
        xj = wl.inputs(params, DEV)
        held.append(xj)
        fn(*xj)
        with pinned_host(DEV, pol):
            s, _, _ = gpu_time(fn, xj, pol, l2, wl.work("elementwise", params).footprint, calls=m.calls_per_sample)
        bests.append(min(s))
    best = statistics.median(bests)
    emit(out, {"part": "B", "probe_bests_ms": bests, "probe_best_ms": best,
               "off": {c: [round(v / best - 1, 4) for v in meds[c]] for c in meds}})


def part_c(out: Path, spec, l2: int) -> None:
    """C. Does the host's launch of a ~1,000-node graph fall inside its events? The host time of one replay
    call, and gpu_time of ``elementwise/fp32/2^6`` at fixed graph lengths with and without a device spin
    before each start event, three independent measurements each: median, best, median/best."""
    from autograder.bench.timing import _capture

    wl = spec.workload
    params = {"dtype": "float32", "log2_n": 6}
    fn = wl.build("elementwise", params)
    x = wl.inputs(params, DEV)
    fn(*x)
    for k in (960, 1100):
        g = _capture(fn, [wl.inputs(params, DEV) for _ in range(k)], k, DEV)
        torch.cuda.synchronize()
        host = []
        for _ in range(10):
            torch.cuda._sleep(20_000_000)  # ~10 ms: the replay call returns before the device starts it
            t = time.perf_counter()
            g.replay()
            host.append((time.perf_counter() - t) * 1e3)
            torch.cuda.synchronize()
        emit(out, {"part": "C", "k": k, "host_replay_ms": sorted(round(h, 4) for h in host)})
        del g
    fp = wl.work("elementwise", params).footprint
    for rnd in range(3):
        for k in (960, 1100):
            for spin in (0, 4_000_000):
                pol = TimingPolicy(graph_spin_cycles=spin)
                bring_to_steady(DEV, min_s=0.1)
                with pinned_host(DEV, pol):
                    s, _, _ = gpu_time(fn, x, pol, l2, fp, calls=k)
                emit(out, {"part": "C", "round": rnd, "k": k, "spin": spin, "n": len(s),
                           "median_us": statistics.median(s) * 1e3, "best_us": min(s) * 1e3,
                           "median_over_best": statistics.median(s) / min(s) - 1})


def main() -> None:
    out = Path(sys.argv[1])
    out.parent.mkdir(parents=True, exist_ok=True)
    spec = load_spec(REPO / "source" / "03_roofline")
    l2 = int(torch.cuda.get_device_properties(DEV).L2_cache_size)
    bring_to_steady(DEV, min_s=0.5)
    parts = sys.argv[2] if len(sys.argv) > 2 else "AB"
    if "A" in parts:
        part_a(out, spec, l2)
    if "B" in parts:
        part_b(out, spec, l2)
    if "C" in parts:
        part_c(out, spec, l2)


if __name__ == "__main__":
    main()
