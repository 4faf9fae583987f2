"""The one grading state of a submission: read once, graded once, right after reading.

Both grading paths read what :func:`~autograder.files.safe_read.open_submission` returned with
:func:`read_opened` (the fast batch through :func:`read_opened_notebook`, which keeps the parsed notebook for
its autograded copy) and grade it with :func:`grade_reading`: the fast batch stores the record and writes it
into the gradebook and autograded/; the native path (nbgrader autograde) keeps it
in the notebook's metadata, shows it in the kernel and writes the same rows after SaveAutoGrades. A
notebook that cannot be graded from its content (refused, not JSON, too deep, old format, …) is graded as
the released notebook handed in untouched — every test 0, every answer "No response." — and its record,
flags and explanation comments say why, so the gradebook shows the reason too.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from ..files.safe_read import Opened
from ..records import SubmissionGrade
from ..spec import LessonSpec
from .grade import grade_submission
from .policy import GradingPolicy
from .reader import SubmissionReading, parse_notebook_bytes, read_notebook_node
from .references import ReferenceSet

__all__ = ["grade_reading", "load_release", "read_opened", "read_opened_notebook"]


def load_release(course_root: str | Path, spec: LessonSpec) -> dict[str, Any] | None:
    """The released notebook of the lesson (the course's own file), or None where it was not generated."""
    p = Path(course_root) / "release" / spec.id / spec.notebook
    try:
        return _parsed(str(p), p.stat().st_mtime_ns)
    except (OSError, ValueError):
        return None


@functools.lru_cache(maxsize=8)
def _parsed(path: str, mtime_ns: int) -> dict[str, Any]:
    return json.loads(Path(path).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def read_opened(opened: Opened, spec: LessonSpec, release: dict[str, Any] | None) -> SubmissionReading:
    return read_opened_notebook(opened, spec, release)[0]


def read_opened_notebook(
    opened: Opened, spec: LessonSpec, release: dict[str, Any] | None
) -> tuple[SubmissionReading, Any | None]:
    """The reading, and the parsed notebook it was read from (None where the file was not read or its bytes
    are not a notebook's JSON): the fast batch writes the autograded notebook from it without parsing twice."""
    if opened.data is None:
        return SubmissionReading(problem="refused", errors=[opened.refusal or "the notebook was not read"]), None
    sha = hashlib.sha256(opened.data).hexdigest()
    raw = parse_notebook_bytes(opened.data, sha)
    if isinstance(raw, SubmissionReading):
        return raw, None
    return read_notebook_node(raw, spec, sha, release), raw


def grade_reading(
    reading: SubmissionReading,
    spec: LessonSpec,
    refs: ReferenceSet,
    policy: GradingPolicy,
    student: str,
    release: dict[str, Any] | None,
) -> SubmissionGrade:
    if not reading.unreadable or release is None:
        return grade_submission(reading, spec, refs, policy, student)
    stand_in = read_notebook_node(release, spec, None, release)
    record = grade_submission(stand_in, spec, refs, policy, student)
    reason = "; ".join(reading.errors)
    return record.model_copy(
        update={
            "notebook_sha256": reading.sha256,
            "errors": list(reading.errors),
            "flags": ["unreadable", f"unreadable_{reading.problem}", *record.flags],
            "explanations": [
                e.model_copy(update={"comment": f"Not graded: your submitted notebook could not be read ({reason}).",
                                     "found": [], "matched": 0, "suggested_fraction": 0.0})
                for e in record.explanations
            ],
            "predictions": [
                p.model_copy(update={"reason": f"your submitted notebook could not be read ({reason}); 0 points."})
                for p in record.predictions
            ],
        }
    )

