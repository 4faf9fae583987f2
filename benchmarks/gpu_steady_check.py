"""GPU check: every sweep point the harness measures is within 5 % of a best-of-N probe of the same case.

    python benchmarks/gpu_steady_check.py OUTDIR [LESSON ...]       # on the GPU machine

For each lesson (default: every folder of source/) and each point of its CUDA sweep, in one process: the
harness measures the point as a reference run does (steady clocks first, pinned timing thread, gpu_time),
then a probe times the same case again in a fresh CUDA graph of as many calls as the harness's sample held
(for a 1 µs kernel the graph's length, not the clock, moves the per-call time by several per cent), 30
replays, and keeps the *best* one.  Where the harness sampled several captures one after another (a graph
of many calls of a kernel of a few µs: ``TimingPolicy.graph_layouts``), the probe makes as many, each over
its own inputs, and takes the median of their bests (one capture's layout of its buffers can sit 19 % off the
others; the check is about clocks, not about where one capture's buffers landed).  A
point passes when the harness median is within 5 % of the probe's best (a median measured while the GPU
clocks were still low, or under throttling, sits far above it).  The SM clock is read after each.
Writes OUTDIR/steady_check.md and .json; exits 1 if any point fails.

For a probe of the harness itself: ``--only CASE[,CASE...]`` checks those sweep points alone (case keys as in
the table, e.g. ``elementwise/fp32/2^6``) and ``--policy FIELD=VALUE`` (repeatable) measures them under a
``TimingPolicy`` with that field changed (the probe keeps its own policy).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import statistics
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

LIMIT = 0.05
PROBE = 30


def check_lesson(
    lesson: str, only: set[str] | None = None, overrides: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    import torch

    from autograder.bench.clocks import sm_clock_mhz
    from autograder.bench.harness import Harness
    from autograder.bench.runner import group_cases
    from autograder.bench.timing import TimingPolicy, gpu_time, pinned_host
    from autograder.spec import load_spec

    dev = torch.device("cuda")
    spec = load_spec(REPO / "source" / lesson)
    wl = spec.workload
    l2 = int(torch.cuda.get_device_properties(dev).L2_cache_size)
    h = Harness(device=dev, l2_bytes=l2, policy=dataclasses.replace(TimingPolicy(), **(overrides or {})))
    probe_policy = TimingPolicy(min_samples=PROBE, max_samples=PROBE, target_iqr_rel=0.0, time_cap_s=60.0,
                                 graph_layouts=1)
    rows = []
    cases = [c for c in spec.grid_cases("cuda") if only is None or c.key in only]
    for params, variants in group_cases(cases):
        if not h.fits(wl, params, variants):
            continue
        ms = h.measure(wl, params, variants, methods=("gpu_time",))
        x = wl.inputs(params, dev)
        for m in ms:
            v = m.case.variant
            ctx = wl.prepare(v, params)
            # as many captures as the harness took, each over its own inputs (all held, so each lands
            # elsewhere): the best of PROBE replays of each, and the median of those bests
            layouts = h.policy.graph_layouts if m.calls_per_sample >= h.policy.layouts_from_calls else 1
            bests: list[float] = []
            held = [x]
            with ctx() if ctx is not None else contextlib.nullcontext():
                fn = wl.build(v, params)
                for j in range(max(1, layouts)):
                    xj = x if j == 0 else wl.inputs(params, dev)
                    held.append(xj)
                    fn(*xj)
                    with pinned_host(dev, probe_policy):
                        samples, _, _ = gpu_time(fn, xj, probe_policy, l2, wl.work(v, params).footprint,
                                                  calls=m.calls_per_sample)
                    bests.append(min(samples))
            del held
            best = statistics.median(bests)
            off = m.median_ms / best - 1.0
            rows.append(
                {
                    "lesson": lesson,
                    "case": m.case.key,
                    "harness_median_ms": round(m.median_ms, 6),
                    "probe_best_ms": round(best, 6),
                    "probe_bests_ms": [round(b, 6) for b in bests],
                    "calls_per_sample": m.calls_per_sample,
                    "off": round(off, 4),
                    "pass": abs(off) <= LIMIT,
                    "sm_clock_harness": m.sm_clock_mhz,
                    "sm_clock_probe": sm_clock_mhz(dev),
                }
            )
            print(json.dumps(rows[-1]), flush=True)
            del fn
        del x
    return rows


def _policy_value(text: str) -> tuple[str, Any]:
    from autograder.bench.timing import TimingPolicy

    name, _, raw = text.partition("=")
    fields = {f.name: f for f in dataclasses.fields(TimingPolicy)}
    if name not in fields or not raw:
        raise argparse.ArgumentTypeError(f"--policy wants FIELD=VALUE with FIELD one of {', '.join(fields)}")
    default = getattr(TimingPolicy(), name)
    return name, type(default)(raw) if default is not None else raw


def main(out: Path, lessons: list[str], only: set[str] | None = None, overrides: dict[str, Any] | None = None) -> int:
    out.mkdir(parents=True, exist_ok=True)
    lessons = lessons or sorted(p.name for p in (REPO / "source").iterdir() if (p / "lesson.toml").exists())
    rows = [r for lesson in lessons for r in check_lesson(lesson, only, overrides)]
    bad = [r for r in rows if not r["pass"]]
    worst = max((abs(r["off"]) for r in rows), default=0.0)
    lines = [
        f"# Steady-clock check: harness median vs best of {PROBE} probe replays (gpu_time; for a graph of many "
        f"calls the median of each capture's best, as many captures as the harness took), limit ±{LIMIT:.0%}",
        "",
        f"{len(rows) - len(bad)}/{len(rows)} sweep points pass; worst {worst:.1%}"
        + (f" (harness policy changed: {overrides})" if overrides else ""),
        "",
        "| lesson | case | harness median ms | probe best ms | off | SM MHz (harness / probe) | pass |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['lesson']} | `{r['case']}` | {r['harness_median_ms']:.4f} | {r['probe_best_ms']:.4f} | "
            f"{r['off']:+.1%} | {r['sm_clock_harness']} / {r['sm_clock_probe']} | {'yes' if r['pass'] else 'NO'} |"
        )
    (out / "steady_check.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "steady_check.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
    print("\n".join(lines[:3]))
    return 1 if bad else 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("out", type=Path, help="folder for steady_check.md / .json")
    ap.add_argument("lessons", nargs="*", help="lesson folders of source/ (default: all)")
    ap.add_argument("--only", help="comma-separated case keys: check these sweep points alone")
    ap.add_argument("--policy", type=_policy_value, action="append", default=[], metavar="FIELD=VALUE",
                    help="measure under a TimingPolicy with this field changed (a probe of the harness)")
    a = ap.parse_args()
    sys.exit(main(a.out, a.lessons, set(a.only.split(",")) if a.only else None, dict(a.policy) or None))
