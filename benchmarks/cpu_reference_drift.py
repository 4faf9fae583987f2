"""Two `autograder bench` runs on this CPU, minutes apart: do they agree within the stored spread?

    python benchmarks/cpu_reference_drift.py [--lesson 04_fusion] [--gap 180] [--processes 3] [--out FILE]

In a scratch copy of the course, the lesson's CPU reference is measured (``--processes`` fresh interpreters,
merged, fairness-checked), then, ``--gap`` seconds later, measured again into the same store: the second
run's fairness check grades it against the first (the drift check) as well as process against process.
For every quantity the table gives both values, the first run's stored spread, the log distance between
the two runs, whether that distance is within the stored spread, and the full-credit band; then both
fairness verdicts.  CPU timings are pinned to one core with one torch thread and samples of >= 2 ms
(autograder.bench.timing), so that the timer and the scheduler resolve them; each sample is the best of 3 runs on
the process's CPU clock (time other processes take from the core is not counted).
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from autograder.bench.store import ReferenceStore
from autograder.course import Course
from autograder.grading.fairness import band_factor
from autograder.spec import load_spec


def bench(course: Path, lesson: str, processes: int) -> tuple[int, str]:
    cmd = [sys.executable, "-m", "autograder", "bench", lesson, "--course", str(course), "--device", "cpu"]
    cmd += ["--processes", str(processes)]
    env = {**os.environ, "COLUMNS": "120"}
    r = subprocess.run(cmd, check=False, capture_output=True, text=True, env=env)
    return r.returncode, r.stdout + r.stderr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lesson", default="04_fusion")
    ap.add_argument("--gap", type=float, default=180.0)
    ap.add_argument("--processes", type=int, default=3)
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks/results/cpu-reference-drift-2core.txt")
    a = ap.parse_args()
    lines = [f"# {a.lesson} CPU reference measured twice, {a.gap:.0f} s apart, {a.processes} processes each",
             f"# host: {os.cpu_count()} cores; load average at start {os.getloadavg()[0]:.1f}"]
    with tempfile.TemporaryDirectory() as tmp:
        course = Course.copy(REPO, Path(tmp) / "course", parts=("nbgrader_config.py", "source")).root
        store = ReferenceStore(course / "references")
        rc1, out1 = bench(course, a.lesson, a.processes)
        first = store.load(a.lesson, "cpu")
        time.sleep(a.gap)
        rc2, out2 = bench(course, a.lesson, a.processes)
        second = store.load(a.lesson, "cpu")
        lines.append(f"# load average at end {os.getloadavg()[0]:.1f}")
    spec = load_spec(REPO / "source" / a.lesson).for_device("cpu")
    lines += ["", f"{'quantity':<28} {'run 1':>9} {'run 2':>9} {'stored spread':>13} {'distance':>9} "
              f"{'within':>6} {'band':>6}"]
    for q in spec.quantities:
        v1, v2 = first.quantities.get(q.id), second.quantities.get(q.id)
        if v1 is None or v2 is None:
            continue
        dist = abs(math.log(v2.ratio / v1.ratio))
        lines.append(
            f"{q.id:<28} {v1.ratio:>9.3f} {v2.ratio:>9.3f} {v1.log_spread:>13.3f} {dist:>9.3f} "
            f"{'yes' if dist <= v1.log_spread else 'NO':>6} {band_factor(q, v1.log_spread):>5.2f}×"
        )
    for name, out, rc in (("run 1", out1, rc1), ("run 2", out2, rc2)):
        lines += ["", f"## {name} (exit {rc}): fairness check"]
        lines += [ln for ln in out.splitlines() if "fairness check" in ln or "unfair:" in ln]
    text = "\n".join(lines) + "\n"
    a.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
