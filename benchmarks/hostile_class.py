"""What a hostile submission costs the fast batch: the pre-reader against text length, and a class's wall time.

    .venv/bin/python benchmarks/hostile_class.py [--students 40] [--budget 30]
        [--out benchmarks/results/hostile-class-2core.txt]

1. The explanation pre-reader on one number-dense paragraph repeated to each length up to 20 MB: as the
   grader calls it (the text cut to the course's c.LessonGrading.explanation_max_chars first,
   grade.capped_explanation), and without the cut (explanations.grade_explanation on the whole text) up to
   the first length that takes longer than --budget seconds.
2. `grade_class` (records and autograded notebooks, no gradebook, 2 workers, the course's default deadline)
   on a sample class of --students, then on the same class with the worst hostile kinds of issue 18 added:
   a 20 MB explanation, a pasted 30 KB answer (both number-dense), a 300,000-entry ledger, a device key that
   walks to a FIFO and one to the student's own answer key, a FIFO as the notebook, 55 MB of outputs.
   Each hostile submission's flags say what its record says happened.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import nbformat

from autograder.batch.fast import grade_class
from autograder.bench.store import ReferenceStore
from autograder.course import Course
from autograder.grading.grade import capped_explanation
from autograder.grading.policy import GradingPolicy
from autograder.preread import grade_explanation
from autograder.sample.generate import PERSONAS, generate_class, make_submission
from autograder.storage.records_store import RecordStore
from tests.grading.test_bad_inputs import START, _bytes, _explain, _huge, _long_ledger, _own_answer_key

PARAGRAPH = (
    "Eager runs 4 kernels and moves 268 MB at fp16 2^24, fused runs 1 kernel moving 67 MB, so the ratio is 4.0x; "
    "I measured 3.85x on the GPU because both are memory-bound at about 4.1 TB/s. "
)
LENGTHS = [1_000, 2_500, 5_000, 10_000, 20_000, 100_000, 1_000_000, 20 << 20]


def _text(n: int) -> str:
    return (PARAGRAPH * (n // len(PARAGRAPH) + 1))[:n]


def preread_table(budget: float, cap: int) -> list[str]:
    c = Course.at(REPO)
    spec = c.spec("04_fusion")
    ref = ReferenceStore(c.references).load("04_fusion", "nvidia-h200")
    ex = spec.explanations[0]
    lines = [f"pre-reader on {ex.grade_id} (04_fusion), one number-dense paragraph repeated; cap {cap:,} characters",
             f"{'characters':>12}  {'capped (as graded)':>20}  {'uncapped':>12}"]
    uncapped_on = True
    for n in LENGTHS:
        text = _text(n)
        t0 = time.perf_counter()
        capped_explanation(text, spec, ex, ref, cap)
        capped = time.perf_counter() - t0
        shown = "—"
        if uncapped_on:
            t0 = time.perf_counter()
            grade_explanation(text, spec, ex, ref)
            uncapped = time.perf_counter() - t0
            shown = f"{uncapped:.2f} s"
            if uncapped > budget:
                uncapped_on = False  # longer texts are not sane to wait for
        lines.append(f"{n:>12,}  {capped:>18.2f} s  {shown:>12}")
        print(lines[-1], flush=True)
    return lines


def _course(tmp: Path, name: str, students: int) -> tuple[Course, list[str]]:
    c = Course.copy(REPO, tmp / name, parts=("nbgrader_config.py", "source", "references", "release"))
    spec = c.spec("04_fusion")
    ref = ReferenceStore(c.references).load("04_fusion", "nvidia-h200")
    ids = generate_class(c.root, spec, ref, c.root / "release/04_fusion/04_fusion.ipynb", students, seed=11)
    return c, ids


def _add_hostile(c: Course) -> list[str]:
    spec = c.spec("04_fusion")
    ref = ReferenceStore(c.references).load("04_fusion", "nvidia-h200")
    release = nbformat.read(str(c.root / "release/04_fusion/04_fusion.ipynb"), as_version=4)
    seeds = iter(range(200, 300))

    def put(name: str) -> Path:
        folder = c.submitted / f"hostile_{name}" / "04_fusion"
        folder.mkdir(parents=True)
        return folder / "04_fusion.ipynb"

    def fresh() -> dict:  # type: ignore[type-arg]
        """A sample student's notebook, each with its own chain (no chain_shared_with between them)."""
        nb = make_submission(release, spec, ref, PERSONAS[0], seed=next(seeds), start=START)
        return json.loads(nbformat.writes(nb))  # type: ignore[no-any-return]

    put("explanation_20mb").write_bytes(_bytes(_explain(fresh(), _text(20 << 20))))
    put("answer_30kb").write_bytes(_bytes(_explain(fresh(), _text(30_000))))
    put("ledger_300k").write_bytes(_bytes(_long_ledger(fresh())))
    _own_answer_key(put("device_key_fifo"), c.root, _bytes(fresh()), fifo=True)
    _own_answer_key(put("device_key_own_answer_key"), c.root, _bytes(fresh()))
    os.mkfifo(put("fifo_notebook"))
    put("outputs_55mb").write_bytes(_bytes(_huge(fresh())))
    return sorted(p.name for p in c.submitted.iterdir() if p.name.startswith("hostile_"))


def class_table(students: int) -> list[str]:
    policy = GradingPolicy()
    lines = [f"grade_class, 2 workers, no gradebook, deadline {policy.submission_deadline_s:g} s per submission"]
    with tempfile.TemporaryDirectory() as tmp:
        clean, _ = _course(Path(tmp), "clean", students)
        t0 = time.perf_counter()
        result = grade_class(clean, "04_fusion", policy, workers=2, gradebook=False)
        lines.append(f"clean class of {students}: {time.perf_counter() - t0:.1f} s, graded {len(result.graded)}, "
                     f"failed {len(result.failed)}")
        print(lines[-1], flush=True)
        hostile, _ = _course(Path(tmp), "hostile", students)
        names = _add_hostile(hostile)
        t0 = time.perf_counter()
        result = grade_class(hostile, "04_fusion", policy, workers=2, gradebook=False)
        lines.append(f"same class + {len(names)} hostile: {time.perf_counter() - t0:.1f} s, graded "
                     f"{len(result.graded)}, failed {len(result.failed)}")
        print(lines[-1], flush=True)
        store = RecordStore(hostile.records)
        for name in names:
            rec = store.load("04_fusion", name)
            if rec is None:
                lines.append(f"  {name}: no record")
                continue
            shown = ", ".join(f for f in rec.flags if not f.startswith(("explanation_no_numbers", "source_not_run")))
            lines.append(f"  {name:<34} {rec.total:5.2f}/{rec.max_total:g}  {shown}")
            print(lines[-1], flush=True)
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=40)
    ap.add_argument("--budget", type=float, default=30.0, help="stop the uncapped series after a run this long (s)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") >> 30
    lines = [f"machine: {platform.machine()}, {os.cpu_count()} cores, {mem} GiB; python {platform.python_version()}"]
    print(lines[0], flush=True)
    lines += preread_table(args.budget, GradingPolicy().explanation_max_chars)
    lines += class_table(args.students)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
