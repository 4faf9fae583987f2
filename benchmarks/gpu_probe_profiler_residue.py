"""GPU probe: does running the CUDA profiler once slow every later tiny kernel of the process?

    python benchmarks/gpu_probe_profiler_residue.py            # on the GPU machine, TEARDOWN_CUPTI unset
    TEARDOWN_CUPTI=1 python benchmarks/gpu_probe_profiler_residue.py

Kineto leaves CUPTI subscribed after a profile unless TEARDOWN_CUPTI=1 (pytorch/pytorch#144455); the
harness counts kernels with the profiler before timing, so a residue would bias the timing of kernels of a
few µs.  For three tiny cases: gpu_time three times (each a new CUDA graph), then one profile_kernels, then
gpu_time three times again.  One JSON line per measurement.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import torch

from autograder.bench.launches import profile_kernels
from autograder.bench.timing import TimingPolicy, gpu_time, pinned_host
from autograder.records import summarize
from autograder.spec import load_spec

DEV = torch.device("cuda")


def main() -> None:
    l2 = int(torch.cuda.get_device_properties(DEV).L2_cache_size)
    cases = [("03_roofline", "elementwise", {"dtype": "bfloat16", "log2_n": 6}),
             ("03_roofline", "matmul", {"dtype": "bfloat16", "log2_n": 8}),
             ("04_fusion", "eager", {"dtype": "float16", "log2_n": 16})]
    built = []
    for lesson, variant, params in cases:
        wl = load_spec(REPO / "source" / lesson).workload
        x = wl.inputs(params, DEV)
        fn = wl.build(variant, params)
        fn(*x)
        built.append((lesson, variant, params, wl, fn, x))
    for phase in ("before", "after"):
        if phase == "after":
            for *_, fn, x in built:
                profile_kernels(fn, x)
        for lesson, variant, params, wl, fn, x in built:
            for rep in range(3):
                with pinned_host(DEV, TimingPolicy()):
                    s, k, _ = gpu_time(fn, x, TimingPolicy(), l2, wl.work(variant, params).footprint)
                print(json.dumps({"teardown_cupti": os.environ.get("TEARDOWN_CUPTI"), "phase": phase,
                                  "case": f"{lesson}:{variant}/{params['dtype']}/2^{params['log2_n']}",
                                  "rep": rep, "median_us": round(summarize(s).median * 1e3, 4), "k": k}), flush=True)


if __name__ == "__main__":
    main()
