"""The functions Slurm jobs run: importable top-level functions, pickled by submitit."""

from __future__ import annotations

from ..batch.fast import finalize, find_submissions, grade_shard
from ..bench.store import ReferenceStore
from ..config import CourseSettings
from ..course import Course

__all__ = ["bench_job", "grade_shard", "merge_job"]


def bench_job(root: str, assignment: str) -> str:
    """Measure and store the reference on the job's device; returns its device key."""
    from ..bench.runner import run_reference  # torch: only the reference job needs it

    course = Course.at(root)
    run = run_reference(course.spec(assignment))
    ReferenceStore(course.references).save(run)
    return run.device.key


def merge_job(root: str, assignment: str, students: list[str] | None, gradebook: bool) -> int:
    """Cross-class checks and the bulk gradebook write (the gradebook nbgrader_config.py names), once every
    shard is done; returns the number of records."""
    settings = CourseSettings.load(root)
    spec = settings.course.spec(assignment)
    return finalize(settings, spec, find_submissions(settings.course, spec, students), gradebook)
