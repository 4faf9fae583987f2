"""`autograder bench` and `autograder plot`: measure and show an assignment's reference."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from ..bench.options import BenchUsageError
from ..bench.report import plot_sweep, quantity_table, reference_table
from ..bench.store import ReferenceStore, load_run
from ..errors import BenchmarkError
from ..files.atomic import atomic_write
from ..tables import Column, TextTable, print_table
from ._common import CourseOpt, console, course_at, err_console, friendly_errors

if TYPE_CHECKING:
    from ..records import ReferenceRun
    from ..spec import LessonSpec

__all__ = ["UnfairReferenceError", "bench", "plot"]


class UnfairReferenceError(BenchmarkError):
    """The fairness check failed: the run was stored as a candidate, not as the device's reference."""


def _measure_here(spec: LessonSpec, device: str | None, quick: bool, sizes: list[int] | None) -> ReferenceRun:
    # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
    from ..bench.runner import run_reference  # torch: imported only when measuring
    from ..bench.timing import TimingPolicy

    with Progress(
        TextColumn("[bold]bench[/] {task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as bar:
        task = bar.add_task("starting", total=None)

        def progress(done: int, total: int, what: str) -> None:
            bar.update(task, completed=done, total=total, description=what)

        return run_reference(spec, device, TimingPolicy.quick() if quick else None, progress, sizes)


def _measure_processes(
    n: int, assignment: str, course: Path, device: str, quick: bool, sizes: str | None, keep: Path | None
) -> list[ReferenceRun]:
    """``n`` single-process runs, one after another, each in a fresh interpreter (never two at once)."""
    runs = []
    with tempfile.TemporaryDirectory(prefix="autograder-bench-") as tmp:
        for i in range(1, n + 1):
            console.print(f"[bold]process {i}/{n}[/] (fresh interpreter)")
            dest = Path(tmp) / f"process{i}.json"
            cmd = [sys.executable, "-m", "autograder", "bench", assignment, "--course", str(course)]
            cmd += ["--device", device, "--single-out", str(dest)]
            cmd += ["--quick"] if quick else []
            cmd += ["--sizes", sizes] if sizes else []
            rc = subprocess.run(cmd, check=False, env={**os.environ, "PYTHONUNBUFFERED": "1"}).returncode
            if rc != 0 or not dest.exists():
                raise BenchmarkError(f"bench process {i}/{n} failed (exit {rc}); its error is printed above")
            runs.append(load_run(dest))
            if keep is not None:
                atomic_write(keep / f"process{i}.json", dest.read_text(encoding="utf-8"))
    return runs


def _spread_table(run: ReferenceRun) -> TextTable:
    t = TextTable(
        [Column("quantity"), Column("value", "right"), Column("within", "right"), Column("between", "right"),
         Column("band used", "right"), Column("each process")],
        title="spread per quantity (±log): within one process vs between processes",
    )
    for q in run.quantities.values():
        shown = f"{q.value:.3f}x" if isinstance(q.value, float) else str(q.value)
        each = " ".join(f"{r:.3f}" for r in q.process_ratios)
        within = "-" if q.within_spread is None else f"{q.within_spread:.3f}"
        between = "-" if q.between_spread is None else f"{q.between_spread:.3f}"
        t.add_row(q.quantity, shown, within, between, f"{q.log_spread:.3f}", each)
    return t


@friendly_errors
def bench(
    assignment: Annotated[str, typer.Argument(help="Assignment id: a folder under source/ with a lesson.toml.")],
    runs: Annotated[
        list[Path] | None,
        typer.Argument(help="With --merge: stored runs (JSON) of one device model.", show_default=False),
    ] = None,
    course: CourseOpt = Path("."),
    device: Annotated[str | None, typer.Option(help="cuda, cuda:1 or cpu; default: CUDA if present.")] = None,
    sizes: Annotated[str | None, typer.Option(help="Override the sweep: comma-separated log2 sizes.")] = None,
    out: Annotated[Path | None, typer.Option(help="Reference store folder (default COURSE/references).")] = None,
    quick: Annotated[bool, typer.Option(help="Fewer samples (CPU default; noisy on a GPU).")] = False,
    plot: Annotated[Path | None, typer.Option(help="Also write the size-sweep plot to this PNG.")] = None,
    processes: Annotated[
        int, typer.Option(help="Independent processes (fresh interpreters) merged into the reference.")
    ] = 3,
    merge: Annotated[
        bool, typer.Option("--merge", help="Measure nothing: merge the RUNS given (e.g. from several machines).")
    ] = False,
    accept_unfair: Annotated[
        bool,
        typer.Option("--accept-unfair", "--force", help="Store the reference even if its fairness check fails."),
    ] = False,
    keep_runs: Annotated[
        Path | None, typer.Option(help="Also keep each process's own run here (processN.json), e.g. for --merge.")
    ] = None,
    single_out: Annotated[
        Path | None, typer.Option(hidden=True, help="Internal: measure once, in this process, into this file.")
    ] = None,
) -> None:
    """Measure the reference benchmark on this device and store it for every later grading run.

    Measures every case of the assignment (dtype x size, eager vs compiled) both ways: wall_per_call
    (what the student's notebook sees) and gpu_time (CUDA-graph replay, no CPU dispatch), in PROCESSES
    fresh interpreters one after another, and merges them: each quantity keeps the spread within one
    process and between processes, and scoring widens by the larger.  The fairness check grades every
    process's own values against the reference merged from the others; unless each earns full credit
    (or --accept-unfair), a reference grading can use is stored only as DEVICE.candidate.json.
    """
    # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
    from ..config import CourseSettings
    from ..grading.acceptance import store_reference
    from ..grading.fairness import fairness_lines

    c = course_at(course)
    spec = c.spec(assignment)
    _refuse_unknown_peaks(spec)
    if merge:
        if not runs or len(runs) < 1:
            raise BenchUsageError("--merge needs the stored runs to merge, e.g. --merge run1.json run2.json")
        measured = [load_run(p) for p in runs]
        stems = [p.stem for p in runs]
        labels = stems if len(set(stems)) == len(stems) else [str(p) for p in runs]
    else:
        if runs:
            raise BenchUsageError(f"unexpected argument {runs[0]}: pass --merge to merge stored runs")
        if processes < 1:
            raise BenchUsageError(f"--processes {processes}: give 1 or more (3 or more for a reference of record)")
        # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
        from ..bench.fingerprint import pick_device
        from ..bench.options import parse_sizes

        dev = pick_device(device)
        size_list = parse_sizes(sizes, spec, "cuda" if dev.type == "cuda" else "cpu")
        if single_out is not None:
            run = _measure_here(spec, str(dev), quick, size_list)
            atomic_write(single_out, run.model_dump_json())
            return
        if processes == 1:
            measured = [_measure_here(spec, str(dev), quick, size_list)]
            if keep_runs is not None:
                atomic_write(keep_runs / "process1.json", measured[0].model_dump_json())
        else:
            measured = _measure_processes(processes, assignment, c.root, str(dev), quick, sizes, keep_runs)
        labels = [f"process {i + 1}" for i in range(len(measured))]
    stored = store_reference(
        measured, labels, spec, assignment, ReferenceStore(out or c.references), CourseSettings.load(c.root).policy,
        accept_unfair,
    )
    merged, check, path, candidate = stored.run, stored.check, stored.path, stored.candidate
    print_table(console, reference_table(merged))
    print_table(console, quantity_table(merged))
    print_table(console, _spread_table(merged))
    for line in fairness_lines(check):
        console.print(line, highlight=False, soft_wrap=True)
    for f in check.failures:
        console.print(f"  [red]unfair:[/] {f}", highlight=False, soft_wrap=True)
    if plot:
        console.print(f"plot: {plot_sweep(merged, plot)}")
    if candidate:
        first = check.failures[0] if check.failures else check.note
        raise UnfairReferenceError(
            f"fairness check failed ({first}); stored only as candidate {path}, not as the {merged.device.key} "
            f"reference: re-measure (more --processes), or accept it with --accept-unfair"
        )
    if not check.passed:
        err_console.print(
            "[yellow]warning:[/] fairness check "
            + ("accepted by the instructor" if accept_unfair else f"not passed ({merged.device.key} is not graded on)"),
            highlight=False,
        )
    for q in spec.quantities:
        if q.id not in merged.quantities and not spec.about_student(q):  # a student's kernel: measured at grading
            err_console.print(
                f"[yellow]warning:[/] no value for quantity {q.id!r} on {merged.device.key}: what it is derived from "
                f"was not measured here; `autograder lint {assignment} --device {merged.device.key}` says why",
                highlight=False, soft_wrap=True,
            )
    console.print(
        f"reference stored: [bold]{path}[/] ({merged.duration_s:.1f} s measuring, {len(merged.sources)} "
        f"process(es), device key {merged.device.key})"
    )


@friendly_errors
def plot(
    assignment: Annotated[str, typer.Argument(help="Assignment id.")],
    device: Annotated[str, typer.Option(help="Device key of the stored reference, e.g. nvidia-h200 or cpu.")],
    course: CourseOpt = Path("."),
    out: Annotated[Path, typer.Option(help="PNG to write.")] = Path("sweep.png"),
    store: Annotated[Path | None, typer.Option(help="Reference store folder (default COURSE/references).")] = None,
) -> None:
    """Render a stored reference's size sweep (both methods, eager vs compiled, roofline) as a PNG."""
    c = course_at(course)
    run = ReferenceStore(store or c.references).load(assignment, device)
    console.print(f"plot: {plot_sweep(run, out)}")


def _refuse_unknown_peaks(spec: LessonSpec) -> None:
    """A peak_fraction naming a ceiling the bench does not measure would be dropped from the reference:
    say so before measuring anything."""
    # start-up speed: imported when the command runs, not when the CLI starts (see cli/__init__)
    from ..authoring.lint import unknown_peak
    from ..errors import LessonSpecError

    for q in spec.quantities:
        problem = unknown_peak(q)
        if problem:
            raise LessonSpecError(problem)
