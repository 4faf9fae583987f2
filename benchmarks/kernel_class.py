"""A class of students' own kernels (lesson 06) graded with the fast batch -- locally, or as a Slurm job
array -- and the two runs compared student by student (issue 22, item 5).

    python benchmarks/kernel_class.py OUT [--students 24] [--device cpu|cuda] [--executor slurm]

In OUT/course (a fresh course: `autograder quickstart`): the lesson's reference is measured on this device
(`autograder bench`, or the stored CPU reference on a CPU), the lesson released (`nbgrader
generate_assignment`), a sample class written (`autograder sample`), and each student's kernel cell replaced
in turn by one of a mix: the instructor's kernel, a slow one (blocks of 32), a loop of torch ops, a wrong
one, a blank one and kernels of the hostile suite (tests/kernels/hostile: cached results, patched timers,
lazy outputs, threads, a special-cased shape, lowered precision, a segfault, network access). Then
`autograder grade 06_fused_kernel` runs with ``--executor`` (slurm: `SlurmGrading.grade_gres = "gpu:1"` on a
CUDA node, so every shard gets a GPU of its own) and, in a copy of the course with no records and no
stored kernel results, with the local executor, and in a third copy (C) with A's stored kernel results (what a
re-grade does). Printed and written to OUT/kernel-class.md: per student the
kernel, both verdicts and totals; every correctness and verdict must agree exactly; points that depend on
the measured time may differ by the device's noise (the table says by how much); C's records and gradebook rows
must be identical to A's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import nbformat

from autograder.config.settings import CourseSettings
from autograder.storage.gradebook_sync import read_rows
from tests.kernels.conftest import source_of

LESSON = "06_fused_kernel"
HOSTILE = ["cached_ptr", "timer_patched", "lazy_output", "thread", "shape_special", "precision", "segfault",
           "network"]
# --all-hostile: every other family of the suite but the two that only cost time (an infinite loop waits out
# its deadline, a fork bomb its process limit); other_stream only means something on CUDA
MORE_HOSTILE = ["cached_version", "stats_patched", "deferred_past_timer", "reads_reference_gc",
                "reads_reference_module", "writes_reference", "forged_message", "meta_output", "course_file",
                "huge_allocation"]


def _answer_cell(folder: str) -> str:
    """The kernel cell of the instructor's source notebook, or of the released one (the stub)."""
    nb = json.loads((REPO / folder / LESSON / f"{LESSON}.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "answer_kernel")
    return "".join(cell["source"])


def kernels(more: list[str] | None = None) -> list[tuple[str, str]]:
    good = _answer_cell("source")
    torch_loop = ("import torch\n\ndef fused_chain(x):\n    y = x\n"
                  "    for op in (lambda t: t * 2.0, lambda t: t + 1.0, torch.relu, lambda t: t * 0.5):\n"
                  "        y = op(y)\n    return y\n")
    wrong = "import torch\n\ndef fused_chain(x):\n    return torch.relu(x * 2.0 + 1.0)  # forgot the * 0.5\n"
    slow = good.replace("BLOCK_SIZE = 1024", "BLOCK_SIZE = 32")
    mix: list[tuple[str, str]] = [("instructor", good), ("block32", slow), ("torch_loop", torch_loop),
                                         ("wrong", wrong), ("blank", _answer_cell("release")), ("instructor", good)]
    mix += [(f"hostile:{h}", source_of(h)) for h in HOSTILE + (more or [])]
    return mix


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    t = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return time.perf_counter() - t


def records(course: Path) -> dict[str, dict]:
    out = {}
    for p in sorted((course / "records" / LESSON).glob("*.json")):
        out[p.stem] = json.loads(p.read_text(encoding="utf-8"))
    return out


def _comparable(rec: dict | None) -> dict | None:
    """A record without the moment it was written."""
    return None if rec is None else {k: v for k, v in rec.items() if k != "graded_at"}


def gradebook(course: Path) -> dict:
    """The course's gradebook rows of the lesson, as nbgrader's gradebook holds them."""
    return read_rows(CourseSettings.load(course).db_url, LESSON, LESSON)


def summary(rec: dict) -> tuple[float, str, dict[str, float]]:
    """(total, the kernel's verdict as the record says it, points per grade id)."""
    preds = rec.get("predictions") or []
    items = {str(p.get("grade_id")): float(p.get("points") or 0.0) for p in preds}
    flags = sorted({f for p in preds for f in p.get("flags") or [] if str(f).startswith("kernel_")})
    verdict = ",".join(f.removeprefix("kernel_") for f in flags) or ("ok" if items.get("grade_kernel_correct") else "-")
    return float(rec.get("total") or 0.0), verdict, items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--students", type=int, default=24)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--executor", default="slurm", choices=["slurm", "local"])
    ap.add_argument("--reference", type=Path, help="a stored reference of the lesson for this device (else measured)")
    ap.add_argument("--all-hostile", action="store_true", help="the mix with every hostile family that ends quickly")
    ap.add_argument("--shard-size", type=int, default=4, help="students per Slurm array task")
    ap.add_argument("--copies", type=int, default=0,
                    help="distinct copies of each kernel of the mix (a comment naming the copy): a submission's "
                    "measurement is kept by its source, so students with the same text share it; 0: every "
                    "student's text is distinct")
    args = ap.parse_args()
    out = args.out.resolve()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    course = out / "course"
    ag = [sys.executable, "-m", "autograder"]
    t: dict[str, float] = {}
    t["quickstart"] = run([*ag, "quickstart", str(course)], out)
    key = "cpu"
    if args.device != "cpu" and args.reference is not None:
        shutil.copy(args.reference, course / "references" / LESSON / args.reference.name)
        key = args.reference.stem
    elif args.device != "cpu":
        t0 = time.perf_counter()
        bench = subprocess.run([*ag, "bench", LESSON, "-C", str(course), "--processes", "3", "--device", args.device],
                               capture_output=True, text=True, check=False)
        t["bench"] = time.perf_counter() - t0
        (out / "bench.log").write_text(bench.stdout + bench.stderr, encoding="utf-8")
        refs = course / "references" / LESSON
        stored = [p for p in refs.glob("*.json") if p.stem != "cpu" and not p.stem.endswith(".candidate")]
        if not stored:  # a fairness check failed: grade against the candidate, and say so in the table
            cand = next(refs.glob("*.candidate.json"))
            print(f"warning: the reference's fairness check failed (bench.log); grading against {cand.name}")
            stored = [cand.rename(refs / cand.name.replace(".candidate", ""))]
        key = stored[0].stem
    cfg = course / "nbgrader_config.py"
    extra = [f'c.LessonGrading.device_of_record = "{key}"', f"c.SlurmGrading.shard_size = {args.shard_size}",
             f'c.SlurmGrading.folder = "{out / "slurm-logs"}"', "c.SlurmGrading.timeout_min = 20"]
    if args.device != "cpu":
        extra.append('c.SlurmGrading.grade_gres = "gpu:1"')
    cfg.write_text(cfg.read_text(encoding="utf-8") + "\n" + "\n".join(extra) + "\n", encoding="utf-8")
    t["release"] = run(["nbgrader", "generate_assignment", LESSON, "--force"], course)
    t["sample"] = run([*ag, "sample", LESSON, "-C", str(course), "--students", str(args.students)], out)
    more = (MORE_HOSTILE + (["other_stream"] if args.device.startswith("cuda") else [])) if args.all_hostile else []
    mix = kernels(more)
    kinds: dict[str, str] = {}
    texts: set[str] = set()
    for i, nbp in enumerate(sorted((course / "submitted").glob(f"*/{LESSON}/{LESSON}.ipynb"))):
        name, src = mix[i % len(mix)]
        copy = i if args.copies <= 0 else (i // len(mix)) % args.copies
        if name != "blank":  # (the released stub stays the stub: unanswered)
            src = f"{src.rstrip()}\n# copy {copy}\n"
        student = nbp.parts[-3]
        kinds[student] = name
        texts.add(src)
        nb = nbformat.read(nbp, as_version=4)
        cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "answer_kernel")
        cell.source = src
        nbformat.write(nb, nbp)
    local = out / "course-local"
    shutil.copytree(course, local, ignore=shutil.ignore_patterns("records", ".kernel_results"))
    regrade = out / "course-regrade"
    shutil.copytree(course, regrade, ignore=shutil.ignore_patterns("records", ".kernel_results"))
    t[f"grade A ({args.executor})"] = run([*ag, "grade", LESSON, "-C", str(course), "--executor", args.executor], out)
    t["grade B (local)"] = run([*ag, "grade", LESSON, "-C", str(local), "--executor", "local"], out)
    # C: the same class graded locally with A's measurements of the kernels (what a re-grade does): every
    # record and every gradebook row must then be identical to A's
    shutil.copytree(course / ".kernel_results", regrade / ".kernel_results")
    t["grade C (local, A's measurements)"] = run([*ag, "grade", LESSON, "-C", str(regrade), "--executor", "local"], out)
    a, b = records(course), records(local)
    c = records(regrade)
    same_records = sorted(s for s in kinds if _comparable(a.get(s)) == _comparable(c.get(s)) and s in a)
    rows_a, rows_c = gradebook(course), gradebook(regrade)
    same_rows = rows_a == rows_c and len(rows_a) > 0
    rows = ["| student | kernel | verdict (A) | verdict (B) | total A | total B | same |",
            "|---|---|---|---|---|---|---|"]
    same_verdicts, max_diff = 0, 0.0
    for s in sorted(kinds):
        ta, va, ia = summary(a.get(s, {}))
        tb, vb, ib = summary(b.get(s, {}))
        diff = abs(ta - tb)
        max_diff = max(max_diff, diff)
        same_verdicts += va == vb and ia.get("grade_kernel_correct") == ib.get("grade_kernel_correct")
        same = "yes" if diff < 1e-9 else f"Δ {diff:.2f}"
        rows.append(f"| {s} | {kinds[s]} | {va} | {vb} | {ta:.2f} | {tb:.2f} | {same} |")
    head = [f"# {LESSON}: {len(kinds)} students' kernels, {args.executor} (A) vs local (B), device {args.device}",
            f"# host {platform.node()} {platform.processor()} {os.cpu_count()} cores, "
            f"python {platform.python_version()}",
            "# seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in t.items()),
            f"# {len(texts)} distinct kernel texts among {len(kinds)} students (Slurm tasks of {args.shard_size})",
            f"# verdicts equal: {same_verdicts}/{len(kinds)}; largest difference of a total: {max_diff:.2f} points",
            f"# A vs C (local, with A's measurements): records identical {len(same_records)}/{len(kinds)}; "
            f"gradebook rows identical: {'yes' if same_rows else 'NO'} ({len(rows_a)} rows)",
            ""]
    text = "\n".join(head + rows) + "\n"
    (out / "kernel-class.md").write_text(text, encoding="utf-8")
    print(text)
    ok = same_verdicts == len(kinds) and len(same_records) == len(kinds) and same_rows
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
