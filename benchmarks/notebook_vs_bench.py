"""The released notebook run as a student, next to `autograder bench`: do both measure the same?

    python benchmarks/notebook_vs_bench.py OUTDIR --runs 2 [--bench-runs DIR] [--lesson ID ...]

For each lesson (default: every folder of source/), the released notebook is executed as a student would
run it, top to bottom in a real Jupyter kernel, with every prediction committed first (the kind's example
value: the values do not matter, the measurements do), ``--runs`` times, each in a fresh kernel.  Every
measurement the notebook sealed in its ledger is read back.  With ``--bench-runs DIR`` (the folder that
`autograder bench LESSON --processes N --keep-runs DIR/LESSON` filled), each graded quantity's notebook
values are set beside the bench processes' values: they *agree* when every notebook value lies inside the
bench processes' range widened by the merged reference's stored spread (the widening grading uses).
Under it, each case the quantities are derived from: its median and SM clock in every bench process and every
notebook run (the notebook's measurements are read through AUTOGRADER_MEASUREMENT_LOG).
Writes OUTDIR/notebook_vs_bench.md (the tables, with device fingerprints), OUTDIR/notebook_vs_bench.json and
OUTDIR/notebook-run-N.jsonl (every measurement of notebook run N, in the order it was made).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import nbformat

from autograder.bench.merge import merge_runs
from autograder.bench.store import load_run
from autograder.grading.reader import read_notebook_bytes
from autograder.kinds import kind_of
from autograder.ledger import measured_values
from autograder.lesson.student_mode import MEASUREMENT_LOG
from autograder.records import Measurement
from autograder.sample.execute import copy_lesson_files, run_as_student
from autograder.sample.fill import fill_predictions
from autograder.spec import DeviceKind, load_spec


def notebook_values(
    lesson: str, timeout: int
) -> tuple[dict[str, float | str], dict[str, Any], float, list[Measurement]]:
    """One student run of the released notebook: {quantity: value it sealed}, the setup it recorded, seconds,
    and every measurement the notebook made (its raw samples and SM clock, through MEASUREMENT_LOG)."""
    folder = REPO / "release" / lesson
    spec = load_spec(folder)
    answers = {q.id: (kind_of(q).example, "committed before measuring") for q in spec.quantities}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        copy_lesson_files(folder, work)
        nb = nbformat.read(str(folder / spec.notebook), as_version=4)
        fill_predictions(nb, answers)
        log = work / "measurements.jsonl"
        os.environ[MEASUREMENT_LOG] = str(log)  # the notebook's kernel inherits it
        try:
            executed = run_as_student(nb, work, timeout=timeout)
        finally:
            os.environ.pop(MEASUREMENT_LOG, None)
        raw = nbformat.writes(executed).encode()
        made = [Measurement.model_validate_json(line) for line in log.read_text().splitlines()] if log.exists() else []
    reading = read_notebook_bytes(raw, spec)
    measured = measured_values(reading.entries)
    setup = next((dict(e.meta) for e in measured.values()), {})
    values = {q: e.value for q, e in measured.items() if e.value is not None}
    return values, setup, time.perf_counter() - t0, made


def per_case(
    lesson: str, nb_made: list[list[Measurement]], bench_dir: Path, device_kind: DeviceKind
) -> list[dict[str, Any]]:
    """Each case a graded quantity is derived from: its median in every bench process and every notebook run,
    with the SM clock read after it (where a ratio's difference comes from)."""
    spec = load_spec(REPO / "source" / lesson).for_device(device_kind)
    procs = [load_run(p) for p in sorted((bench_dir / lesson).glob("process*.json"))]
    wanted = {(c.key, q.method) for q in spec.quantities for c in kind_of(q).cases(q)}
    def pick(ms: list[Measurement], key: str, method: str) -> str:
        m = next((m for m in ms if m.case.key == key and m.method == method), None)
        return "—" if m is None else f"{m.median_ms:.4f}@{m.sm_clock_mhz or '?'}"

    return [{"case": key, "method": method, "bench": [pick(p.measurements, key, method) for p in procs],
             "notebook": [pick(ms, key, method) for ms in nb_made]} for key, method in sorted(wanted)]


def _log(a: float, b: float) -> float:
    return abs(math.log(a / b))


def compare(lesson: str, nb_runs: list[dict[str, float | str]], bench_dir: Path) -> list[dict[str, Any]]:
    spec = load_spec(REPO / "source" / lesson)
    procs = [load_run(p) for p in sorted((bench_dir / lesson).glob("process*.json"))]
    merged = merge_runs(procs, spec) if procs else None
    rows = []
    for q in spec.quantities:
        bench_vals = [p.quantities[q.id].value for p in procs if q.id in p.quantities]
        nb_vals = [r.get(q.id) for r in nb_runs]
        row: dict[str, Any] = {"quantity": q.id, "bench": bench_vals, "notebook": nb_vals}
        ref = merged.quantities.get(q.id) if merged is not None else None
        if ref is not None:
            row["reference"] = ref.value
            row["stored_spread"] = round(ref.log_spread, 4)
        nums = [v for v in bench_vals if isinstance(v, float)]
        if nums and ref is not None and all(isinstance(v, float) for v in nb_vals):
            lo, hi = min(nums) * math.exp(-ref.log_spread), max(nums) * math.exp(ref.log_spread)
            row["between_process_spread"] = round(max(_log(v, ref.ratio) for v in nums), 4)
            row["agree"] = all(lo <= v <= hi for v in nb_vals)  # type: ignore[operator]
        elif bench_vals:
            row["agree"] = all(v == bench_vals[0] for v in [*bench_vals, *nb_vals])
        rows.append(row)
    return rows


def _show(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3g}"
    return "—" if v is None else str(v)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--bench-runs", type=Path, default=None)
    ap.add_argument("--lesson", action="append", default=None)
    ap.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    lessons = a.lesson or sorted(p.name for p in (REPO / "source").iterdir() if (p / "lesson.toml").exists())
    result: dict[str, Any] = {"host": {"cpu": platform.processor() or platform.machine()}, "lessons": {}}
    lines = ["# The released notebook run as a student vs `autograder bench`, one device lease", ""]
    for lesson in lessons:
        runs, setups, made = [], [], []
        for i in range(a.runs):
            vals, setup, secs, ms = notebook_values(lesson, a.timeout)
            runs.append(vals)
            setups.append(setup)
            made.append(ms)
            print(f"{lesson} notebook run {i + 1}: {secs:.0f} s, {json.dumps(vals)}", flush=True)
            # every measurement of the run in the order the notebook made it (raw samples, SM clock): what a
            # difference of one case can be traced to (what ran before it)
            (a.out / f"notebook-run-{i + 1}.jsonl").write_text(
                "".join(m.model_dump_json() + "\n" for m in ms), encoding="utf-8")
        entry: dict[str, Any] = {"notebook_runs": runs, "setups": setups}
        lines += [f"## {lesson}", "", f"notebook setup: {json.dumps(setups[0]) if setups else '—'}", ""]
        if a.bench_runs is not None:
            rows = compare(lesson, runs, a.bench_runs)
            entry["rows"] = rows
            lines += [
                "| quantity | reference | bench processes | notebook runs | between-process spread | stored spread"
                " | agree |",
                "|---|---|---|---|---|---|---|",
            ]
            for r in rows:
                lines.append(
                    f"| `{r['quantity']}` | {_show(r.get('reference'))} | {' / '.join(_show(v) for v in r['bench'])} | "
                    f"{' / '.join(_show(v) for v in r['notebook'])} | {_show(r.get('between_process_spread'))} | "
                    f"{_show(r.get('stored_spread'))} | {'yes' if r.get('agree') else 'NO'} |"
                )
            lines.append("")
            kind: DeviceKind = "cpu" if setups and setups[0].get("device_key") == "cpu" else "cuda"
            cases = per_case(lesson, made, a.bench_runs, kind)
            entry["cases"] = cases
            lines += ["Per case, median ms @ SM MHz read after it:", "",
                      "| case | method | bench processes | notebook runs |", "|---|---|---|---|"]
            lines += [f"| `{r['case']}` | {r['method']} | {' / '.join(r['bench'])} | {' / '.join(r['notebook'])} |"
                      for r in cases]
            lines.append("")
        result["lessons"][lesson] = entry
    (a.out / "notebook_vs_bench.json").write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")
    (a.out / "notebook_vs_bench.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
