"""Fast batch vs `nbgrader autograde`, and the fast batch at class scale (issue 4's targets).

    .venv/bin/python benchmarks/batch_speed.py [--students 40] [--large 1000] [--out benchmarks/results/batch-speed.txt]

1. A sample class of --students submissions is graded by `nbgrader autograde` (one CLI call, the
   project's nbgrader_config.py) and by `autograder grade` (one CLI call) in two copies of one course;
   wall times are compared and the gradebooks must hold identical auto scores.
2. --large submissions are graded by `autograder grade`; wall time and the peak resident memory of the
   whole process tree (sampled every 50 ms) are reported.
Both runs happen in one process on one machine, so the ratio is meaningful on a noisy shared host.
"""

from __future__ import annotations

import argparse
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from autograder.bench.store import ReferenceStore
from autograder.course import Course
from autograder.sample.generate import generate_class
from autograder.storage.gradebook_sync import read_rows


def make_course(dest: Path, students: int) -> Path:
    Course.copy(REPO, dest).generate_assignment("04_fusion")
    c = Course.at(dest)
    spec = c.spec("04_fusion")
    ref = ReferenceStore(c.references).load("04_fusion", "nvidia-h200")
    generate_class(dest, spec, ref, dest / "release/04_fusion/04_fusion.ipynb", students, seed=11)
    return dest


def timed(cmd: list[str], cwd: Path) -> tuple[float, int]:
    """(wall seconds, peak RSS in bytes of the process and all its descendants)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        root = psutil.Process(proc.pid)
        while not stop.is_set():
            try:
                procs = [root, *root.children(recursive=True)]
                peak = max(peak, sum(p.memory_info().rss for p in procs if p.is_running()))
            except psutil.Error:
                pass
            time.sleep(0.05)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    _, err = proc.communicate()
    stop.set()
    th.join()
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{err.decode()[-3000:]}")
    return time.perf_counter() - t0, peak


def scores(course: Path) -> dict:
    return read_rows(f"sqlite:///{course / 'gradebook.db'}", "04_fusion", "04_fusion")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=40)
    ap.add_argument("--large", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    lines = [
        f"machine: {platform.processor() or platform.machine()}, {psutil.cpu_count()} cores, "
        f"{psutil.virtual_memory().total / 2**30:.0f} GiB; python {platform.python_version()}"
    ]
    with tempfile.TemporaryDirectory() as tmp:
        native = make_course(Path(tmp) / "native", args.students)
        fast = Path(tmp) / "fast"
        shutil.copytree(native, fast)
        t_native, m_native = timed([sys.executable, "-m", "nbgrader", "autograde", "04_fusion"], native)
        t_fast, m_fast = timed([sys.executable, "-m", "autograder", "grade", "04_fusion"], fast)
        a, b = scores(native), scores(fast)
        same = a == b and len(a) > 0
        lines += [
            f"{args.students} submissions: nbgrader autograde {t_native:.1f} s, autograder grade {t_fast:.2f} s "
            f"-> {t_native / t_fast:.0f}x faster; gradebook auto scores identical: {same} ({len(a)} grade rows)",
            f"  peak RSS: nbgrader autograde {m_native / 2**20:.0f} MiB, autograder grade {m_fast / 2**20:.0f} MiB",
        ]
        print("\n".join(lines), flush=True)
        large = make_course(Path(tmp) / "large", args.large)
        t_large, m_large = timed([sys.executable, "-m", "autograder", "grade", "04_fusion"], large)
        t_records, _ = timed(
            [sys.executable, "-m", "autograder", "grade", "04_fusion", "--force", "--no-gradebook"], large
        )
        lines += [
            f"{args.large} submissions: autograder grade {t_large:.1f} s (records + gradebook), "
            f"peak RSS {m_large / 2**20:.0f} MiB (process tree); records only, --force: {t_records:.1f} s",
            f"targets: >=20x faster: {'PASS' if t_native / t_fast >= 20 and same else 'FAIL'}; "
            f"{args.large} in <=60 s: {'PASS' if t_large <= 60 else 'FAIL'}; "
            f"peak <=1 GB: {'PASS' if m_large <= 1e9 else 'FAIL'}",
        ]
    text = "\n".join(lines)
    print("\n".join(lines[3:]))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
