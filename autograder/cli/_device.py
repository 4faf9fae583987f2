"""``--device``: the commands that pick a stored reference take one, so a lesson can be tried on a laptop
(``--device cpu``) before it is measured on the course's GPU, without editing ``nbgrader_config.py``."""

from __future__ import annotations

import json
from pathlib import Path

from ..bench.store import ReferenceStore
from ..config import CourseSettings
from ..course import Course
from ..errors import ReferenceNotFoundError
from ._common import console

__all__ = ["graded_devices", "override_device", "regrade_if_moved", "require_reference"]


def require_reference(course: Course, assignment: str, device: str) -> None:
    """One line saying how to get the reference when ``device`` has none stored for ``assignment``."""
    stored = ReferenceStore(course.references).devices(assignment)
    if device not in stored:
        how = f"`autograder bench {assignment} --device cpu`" if device == "cpu" else (
            f"`autograder bench {assignment}` on a {device}"
        )
        raise ReferenceNotFoundError(
            f"no {device} reference for {assignment} (stored: {', '.join(stored) or 'none'}): run {how} first"
        )


def graded_devices(records: Path, assignment: str, first_only: bool = False) -> set[str]:
    """The devices the stored records of ``assignment`` were graded against (read as plain JSON: cheap;
    ``first_only``: the first record that names one)."""
    out: set[str] = set()
    folder = records / assignment
    for p in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if first_only and out:
            break
        try:
            key = json.loads(p.read_text(encoding="utf-8")).get("device_of_record")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(key, str):
            out.add(key)
    return out


def override_device(
    settings: CourseSettings, course: Course, assignment: str, device: str, force: bool
) -> tuple[CourseSettings, bool]:
    """The course's settings grading every submission against ``device`` (not against a student's own GPU
    either); ``force`` turned on when records graded against another device exist (a record whose notebook
    is unchanged would otherwise be kept as it is)."""
    require_reference(course, assignment, device)
    policy = settings.policy.model_copy(update={"device_of_record": device, "use_student_gpu": False})
    others = graded_devices(course.records, assignment) - {device}
    if others and not force:
        console.print(
            f"records of {assignment} were graded against {', '.join(sorted(others))}: regrading every submission "
            f"against the {device} reference",
            highlight=False,
        )
        force = True
    return settings.model_copy(update={"policy": policy}), force


def regrade_if_moved(settings: CourseSettings, course: Course, assignment: str, force: bool) -> bool:
    """``force``, or True when the class was graded against a device the course no longer grades on (tried
    with ``--device cpu``, now graded against the device of record): such records would otherwise be kept
    as they are. Looks at the first record only, so an unchanged class stays quick to rerun."""
    policy = settings.policy
    stale = {
        d for d in graded_devices(course.records, assignment, first_only=True)
        if d != policy.device_of_record and (d == "cpu" or not policy.use_student_gpu)
    }
    if stale and not force:
        console.print(
            f"records of {assignment} were graded against {', '.join(sorted(stale))}: regrading every submission "
            f"against the {policy.device_of_record} reference",
            highlight=False,
        )
        return True
    return force
