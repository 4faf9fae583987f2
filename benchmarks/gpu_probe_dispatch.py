"""Probe: what moves a compiled call's per-call wall time between fresh processes?

(Run before the harness pinned its timing thread; kept as the record of why it pins.)

    python benchmarks/gpu_probe_dispatch.py        # on the GPU machine, prints JSON lines

Six fresh interpreters; in each, 04_fusion's compiled chain at float16 2^24: the host time of one call
(perf_counter around the call, no synchronisation: what the CPU spends dispatching), the harness's
wall_per_call before and after the profiler has run in the process, the same with the main thread
pinned to one core, and the host time of a trivial eager op (how fast this process dispatches at all).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def one(pin: bool) -> None:
    import torch

    from autograder.bench.clocks import bring_to_steady
    from autograder.bench.harness import Harness
    from autograder.bench.launches import profile_kernels
    from autograder.bench.timing import TimingPolicy, wall_per_call
    from autograder.spec import load_spec

    if pin:
        os.sched_setaffinity(0, {2})
    dev = torch.device("cuda")
    spec = load_spec(REPO / "source" / "04_fusion")
    params = {"dtype": "float16", "log2_n": 24}
    x = spec.workload.inputs(params, dev)
    out: dict = {"pin": pin, "cpu": os.sched_getaffinity(0).__len__()}
    out["steady"] = bring_to_steady(dev).describe()
    h = Harness(device=dev, l2_bytes=int(torch.cuda.get_device_properties(dev).L2_cache_size))
    for variant in ("eager", "compiled"):
        fn = spec.workload.build(variant, params)
        for _ in range(10):
            fn(*x)
        torch.cuda.synchronize()
        host = []
        for _ in range(200):
            t = time.perf_counter()
            fn(*x)
            host.append((time.perf_counter() - t) * 1e6)
            torch.cuda.synchronize()
        out[f"{variant}/host_us"] = round(statistics.median(host), 1)
        ws = spec.workload.work(variant, params).footprint
        w, _ = wall_per_call(fn, x, TimingPolicy(pin_thread=False), h.flusher, ws)
        out[f"{variant}/wall_before_profiler_us"] = round(statistics.median(w) * 1e3, 1)
        w, _ = wall_per_call(fn, x, TimingPolicy(pin_thread=False), None, 0)
        out[f"{variant}/wall_noflush_us"] = round(statistics.median(w) * 1e3, 1)
        profile_kernels(fn, x)
        ws = spec.workload.work(variant, params).footprint
        w, _ = wall_per_call(fn, x, TimingPolicy(pin_thread=False), h.flusher, ws)
        out[f"{variant}/wall_after_profiler_us"] = round(statistics.median(w) * 1e3, 1)
        host = []
        for _ in range(200):
            t = time.perf_counter()
            fn(*x)
            host.append((time.perf_counter() - t) * 1e6)
            torch.cuda.synchronize()
        out[f"{variant}/host_after_profiler_us"] = round(statistics.median(host), 1)
    y = torch.empty(16, device=dev)
    host = []
    for _ in range(500):
        t = time.perf_counter()
        y.add_(1)
        host.append((time.perf_counter() - t) * 1e6)
    torch.cuda.synchronize()
    out["trivial_op_host_us"] = round(statistics.median(host), 2)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        one(sys.argv[2] == "pin")
    else:
        for i in range(6):
            r = subprocess.run([sys.executable, __file__, "--one", "pin" if i % 2 else "free"],
                               check=False, capture_output=True, text=True)
            print(r.stdout.strip() or r.stderr[-1500:], flush=True)
