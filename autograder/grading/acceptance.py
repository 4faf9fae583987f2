"""A new reference accepted or not: the measured runs merged, fairness-checked against each other and the
reference stored before, and stored as the device's reference or, when grading would use it and the check
failed, only as a candidate beside it (``autograder bench`` prints what this returns)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..bench.derive import rederived
from ..bench.merge import merge_runs, process_values
from ..bench.store import ReferenceStore
from ..records import ReferenceRun
from ..records.reference import FairnessCheck
from ..spec import LessonSpec
from .fairness import fairness_check
from .policy import GradingPolicy

__all__ = ["StoredReference", "store_reference"]


@dataclass(frozen=True)
class StoredReference:
    run: ReferenceRun  # merged, carrying its fairness check
    check: FairnessCheck
    path: Path
    #: stored only as a candidate: its check failed on a device grading uses, and nobody accepted it
    candidate: bool


def store_reference(
    measured: Sequence[ReferenceRun],
    labels: Sequence[str],
    spec: LessonSpec,
    assignment: str,
    store: ReferenceStore,
    policy: GradingPolicy,
    accept_unfair: bool = False,
) -> StoredReference:
    """Merge ``measured`` (one run per process, named by ``labels``), check it (leave-one-out, and against
    the reference stored before for the device), and store it. A device grading uses (the course's device
    of record; any CUDA device when students are graded on their own GPU) gets a failed check stored only
    as a candidate, unless ``accept_unfair``: then it is stored, marked accepted by the instructor."""
    measured = [rederived(r, spec) for r in measured]
    merged = merge_runs(measured, spec, labels)
    key = merged.device.key
    previous = store.load(assignment, key) if key in store.devices(assignment) else None
    check = fairness_check(process_values(measured, labels), spec, key, merged.device.name, previous)
    graded_on = key == policy.device_of_record or (merged.device.kind == "cuda" and policy.use_student_gpu)
    if not check.passed and accept_unfair:
        check = check.model_copy(update={"accepted_by_instructor": True})
    merged = merged.model_copy(update={"fairness": check})
    candidate = graded_on and not check.passed and not accept_unfair
    return StoredReference(merged, check, store.save(merged, candidate=candidate), candidate)
