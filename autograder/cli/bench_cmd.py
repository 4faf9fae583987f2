"""`autograder bench` and `autograder plot`: measure and show an assignment's reference."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from ..bench.report import plot_sweep, quantity_table, reference_table
from ..bench.store import ReferenceStore
from ._common import CourseOpt, console, course_at, friendly_errors


@friendly_errors
def bench(
    assignment: Annotated[str, typer.Argument(help="Assignment id, e.g. 04_fusion.")],
    course: CourseOpt = Path("."),
    device: Annotated[str | None, typer.Option(help="cuda, cuda:1 or cpu; default: CUDA if present.")] = None,
    sizes: Annotated[str | None, typer.Option(help="Override the sweep: comma-separated log2 sizes.")] = None,
    out: Annotated[Path | None, typer.Option(help="Reference store folder (default COURSE/references).")] = None,
    quick: Annotated[bool, typer.Option(help="Fewer samples (CPU default; noisy on a GPU).")] = False,
    plot: Annotated[Path | None, typer.Option(help="Also write the size-sweep plot to this PNG.")] = None,
) -> None:
    """Measure the reference benchmark on this device and store it for every later grading run.

    Measures every case of the assignment (dtype x size, eager vs compiled) both ways: wall_per_call
    (what the student's notebook sees) and gpu_time (CUDA-graph replay, no CPU dispatch); counts kernels
    with the profiler; reports achieved GB/s against the measured copy roofline.
    """
    from ..bench.runner import run_reference  # torch: imported only when measuring
    from ..bench.timing import TimingPolicy

    c = course_at(course)
    spec = c.spec(assignment)
    size_list = [int(s) for s in sizes.split(",")] if sizes else None
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

        run = run_reference(spec, device, TimingPolicy.quick() if quick else None, progress, size_list)
    store = ReferenceStore(out or c.references)
    path = store.save(run)
    console.print(reference_table(run))
    console.print(quantity_table(run))
    console.print(f"reference stored: [bold]{path}[/] ({run.duration_s:.1f} s, device key {run.device.key})")
    if plot:
        console.print(f"plot: {plot_sweep(run, plot)}")


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
