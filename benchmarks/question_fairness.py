"""Replay the fairness check of one graded quantity over every lease's kept bench processes.

Each H200 lease under ``benchmarks/results/`` kept its ``autograder bench`` processes
(``.../runs/LESSON/processN.json``). This recomputes the quantity from those raw samples under the lesson's
current definition (or with ``--statistic`` overriding a ratio's statistic), merges each lease's processes
and runs the fairness check a new reference must pass: the band it needs (at most 1.5x either way) and
whether every process earns full credit against the others. How a question is changed from measured facts
(issue: "change the question rather than widen the band"), on CPU, from what the GPU recorded.

    python benchmarks/question_fairness.py 04_fusion 'wall_speedup@fp32,2^30' [--statistic median|min]
    python benchmarks/question_fairness.py 04_fusion 'wall_speedup@fp32,2^30' --case log2_n=28 --statistic min

``--case KEY=VALUE`` asks the quantity at another case (the question 04 asked until 2026-12-04: float32 2^28,
the fastest calls); a lease whose processes did not measure that case is listed as such.
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

from autograder.bench.derive import quantity_values
from autograder.bench.merge import merge_runs, process_values
from autograder.bench.store import load_run
from autograder.grading.fairness import MAX_BAND, band_factor, fairness_check
from autograder.spec import load_spec

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lesson")
    ap.add_argument("quantity")
    ap.add_argument("--statistic", choices=("median", "min"), help="override the ratio's statistic")
    ap.add_argument("--case", action="append", default=[], metavar="KEY=VALUE",
                    help="ask the quantity at another case, e.g. log2_n=28 (repeatable)")
    ap.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results")
    a = ap.parse_args()
    spec = load_spec(ROOT / "source" / a.lesson)
    if a.quantity not in {x.id for x in spec.quantities}:
        ap.error(f"{a.lesson} has no quantity {a.quantity!r}; it has: {', '.join(x.id for x in spec.quantities)}")
    override: dict[str, object] = {}
    if a.statistic:
        override["statistic"] = a.statistic
    if a.case:
        case = dict(next(x for x in spec.quantities if x.id == a.quantity).args.get("case", {}))
        for item in a.case:
            key, sep, value = item.partition("=")
            if not sep:
                ap.error(f"--case takes KEY=VALUE, got {item!r}")
            case[key] = int(value) if value.lstrip("-").isdigit() else value
        override["case"] = case
    if override:
        spec = spec.model_copy(
            update={
                "quantities": [
                    q.model_copy(update={"args": {**q.args, **override}}) if q.id == a.quantity else q
                    for q in spec.quantities
                ]
            }
        )
    q = next(x for x in spec.quantities if x.id == a.quantity)
    leases: dict[Path, list[Path]] = collections.defaultdict(list)
    for f in sorted(a.results.glob(f"**/runs/{a.lesson}/process*.json")):
        leases[f.parent].append(f)
    stat = q.args.get("statistic", "median")
    case_of = q.args.get("case")
    print(f"{a.lesson} {a.quantity} (statistic {stat}, case {case_of}): fairness over each lease's kept processes")
    print(f"{'lease':<40} {'processes':<24} {'band':>6}  verdict")
    passed = measured = 0
    everyone: list[float] = []
    for folder, files in leases.items():
        runs = []
        for f in files:
            r = load_run(f)
            qs = quantity_values(spec.for_device("cuda").quantities, r.measurements, r.device.key, r.device)
            runs.append(r.model_copy(update={"quantities": qs}))
        lease = f"{folder.relative_to(a.results).parent.parent!s:<40}"
        if any(q.id not in r.quantities for r in runs):
            print(f"{lease} {'(case not measured)':<24}")
            continue
        merged = merge_runs(runs, spec)
        check = fairness_check(process_values(runs), spec, merged.device.key, merged.device.name)
        v = merged.quantities[q.id]
        everyone += v.process_ratios
        mine = [f for f in check.failures if f.startswith(q.id + ":")]
        passed += not mine
        band = band_factor(q, v.log_spread)
        verdict = "pass" if not mine else "FAIL: " + mine[0][:90]
        each = " / ".join(f"{r:.2f}" for r in v.process_ratios)
        print(f"{lease} {each:<24} {band:>5.2f}×  {verdict}")
        measured += 1
    if not everyone:
        print("no lease kept processes that measured this case")
        return 1
    lo, hi = min(everyone), max(everyone)
    print(
        f"{passed} of {measured} leases that measured it pass; over all {len(everyone)} processes {lo:.2f}-{hi:.2f} "
        f"(×{hi / lo:.3f}); a band may be at most {MAX_BAND}×"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
