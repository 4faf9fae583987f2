"""Choosing the device of record for one submission, and saying which one was used.

Nothing a submission says names a file. The references that exist are the regular files
``<key>.json`` that the reference store's own folder lists (no candidate, no link, no FIFO); the device
of record comes from the course's settings. The device a student's ledger claims (``meta.device_key``,
``meta.device_name``) is only a value compared with that listing: a claim that is not a device key, or
whose key is not the one its device name gives, is a flag with its own reason and is graded on the
course's device. Every reference file is read through the path-safe reader
(:func:`~.safe_read.open_in_folder`), so nothing in the store's folder can block or redirect the grader.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import ValidationError

from ..bench.store import CANDIDATE_SUFFIX, ReferenceStore
from ..errors import ReferenceNotFoundError
from ..files.safe_read import open_in_folder
from ..records import DeviceFingerprint, ReferenceRun
from .policy import GradingPolicy

__all__ = [
    "CLAIM_FLAGS",
    "DEVICE_KEY",
    "MAX_REFERENCE_BYTES",
    "ReferenceChoice",
    "ReferenceSet",
    "claim_problem",
    "fingerprint_note",
]

#: what :func:`~autograder.bench.fingerprint.device_key` makes: lowercase words of letters and digits
#: joined by single hyphens, at most 64 characters ('cpu', 'nvidia-h200', 'nvidia-geforce-rtx-4090')
DEVICE_KEY = re.compile(r"(?=.{1,64}\Z)[a-z0-9]+(?:-[a-z0-9]+)*")  # with fullmatch
MAX_REFERENCE_BYTES = 64 << 20
#: flag -> what it means, for the record's flags (each claim problem has its own)
CLAIM_FLAGS = {
    "device_claim_invalid": "the device key in the notebook's measurements is not a device key",
    "device_claim_mismatch": "the device key does not belong to the device name recorded with it",
    "device_claim_unknown": "the course has no reference for the device the notebook claims",
}

#: fingerprint fields that move per-call timings, and how much of a version has to differ to matter.
_VERSIONS = {"torch": 2, "triton": 2, "cuda": 2, "python": 2, "driver": 1}


def _release(version: str, parts: int) -> str:
    return ".".join(version.split("+", maxsplit=1)[0].split(".")[:parts])


def fingerprint_note(reference: DeviceFingerprint, student: Mapping[str, str]) -> str:
    """A sentence naming what differs between the reference's machine and the student's, or ''.

    ``student`` holds whatever the student's ledger recorded (``device_key``, ``device_name``, and,
    where recorded, ``torch``, ``triton``, ``cuda``, ``python``, ``driver``, ``cpu_model``).  Only
    differences that move timings count: another device model, another release (major.minor) of the
    software that generates and launches the kernels, another host CPU (per-call wall time is mostly
    host-side dispatch).  Patch releases and fields either side lacks are ignored.
    """
    diffs: list[str] = []
    key = student.get("device_key")
    if key and key != reference.key:
        diffs.append(f"device {student.get('device_name') or key} (reference: {reference.name})")
    for field, parts in _VERSIONS.items():
        mine, theirs = student.get(field), getattr(reference, field)
        if mine and theirs and _release(mine, parts) != _release(theirs, parts):
            diffs.append(f"{field} {_release(mine, parts)} (reference: {_release(theirs, parts)})")
    cpu = student.get("cpu_model")
    if cpu and reference.cpu_model and cpu.strip() != reference.cpu_model.strip():
        diffs.append(f"host CPU {cpu} (reference: {reference.cpu_model}), which per-call wall times depend on")
    if not diffs:
        return ""
    return "your setup differs from the reference's: " + "; ".join(diffs)


def _shown(value: object, limit: int = 60) -> str:
    text = ascii(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def claim_problem(key: object, name: object) -> tuple[str, str] | None:
    """(flag, reason) when a device claim from a ledger cannot be what the lesson recorded, else None.

    The lesson records ``device_key(device_name)``: 'cpu' for any CPU, else the slug of the GPU's name."""
    if not isinstance(key, str) or not DEVICE_KEY.fullmatch(key):
        why = (
            "it contains a path separator" if isinstance(key, str) and ("/" in key or "\\" in key)
            else "it is not a device key (lowercase letters and digits in words joined by '-')"
        )
        return "device_claim_invalid", (
            f"your notebook's measurements name the device {_shown(key)}, which cannot be a device the lesson "
            f"recorded: {why}"
        )
    # not bench.fingerprint: it measures (torch); reading a claim needs only the pure device_key
    from ..bench.device_keys import device_key as key_of_name

    if isinstance(name, str) and name and key != "cpu" and key_of_name(name, "cuda") != key:
        return "device_claim_mismatch", (
            f"your notebook's measurements name the device key {key!r} with the device {_shown(name)}, whose key "
            f"is {key_of_name(name, 'cuda')!r}: the two do not match, so the claim was not used"
        )
    return None


@dataclass(frozen=True)
class ReferenceChoice:
    """The reference one submission is graded on, the note its reasons carry, and any flags of the claim."""

    reference: ReferenceRun
    note: str
    flags: tuple[str, ...] = ()


class ReferenceSet:
    """Loads each listed device's reference once per grading run."""

    def __init__(self, store: ReferenceStore, assignment: str, policy: GradingPolicy) -> None:
        self.store, self.assignment, self.policy = store, assignment, policy
        self._cache: dict[str, ReferenceRun | None] = {}
        self._problems: dict[str, str] = {}
        self._listing: frozenset[str] | None = None
        self._others: dict[str, dict[str, ReferenceRun]] = {}

    @property
    def folder(self) -> str:
        return os.path.join(self.store.root, self.assignment)

    def listed(self) -> frozenset[str]:
        """The device keys of the store's folder for this assignment: ``<key>.json`` entries whose key is a
        device key (not a candidate), read once from the folder's own listing."""
        if self._listing is None:
            keys: set[str] = set()
            try:
                with os.scandir(self.folder) as it:
                    for entry in it:
                        key = entry.name.removesuffix(".json")
                        listed = entry.name.endswith(".json") and not key.endswith(CANDIDATE_SUFFIX)
                        if listed and DEVICE_KEY.fullmatch(key):
                            keys.add(key)
            except OSError:
                pass
            self._listing = frozenset(keys)
        return self._listing

    def get(self, device_key: str) -> ReferenceRun | None:
        """The reference of a listed device, read safely; None for any other key, or a file that is not a
        regular file holding that device's reference (:meth:`problem` says why)."""
        if device_key not in self._cache:
            self._cache[device_key] = self._load(device_key) if device_key in self.listed() else None
        return self._cache[device_key]

    def problem(self, device_key: str) -> str | None:
        return self._problems.get(device_key)

    def _load(self, key: str) -> ReferenceRun | None:
        shown = os.path.join(os.path.basename(self.store.root), self.assignment, f"{key}.json")
        got = open_in_folder(self.folder, f"{key}.json", MAX_REFERENCE_BYTES, shown=shown)
        if got.data is None:
            self._problems[key] = got.refusal or f"{shown} was not read"
            return None
        try:
            run = ReferenceRun.model_validate_json(got.data)
        except ValidationError as exc:
            self._problems[key] = f"{shown} is not a valid reference run: {exc.errors()[0]['msg']}"
            return None
        if run.device.key != key or run.assignment != self.assignment:
            self._problems[key] = (
                f"{shown} holds the reference of {run.assignment} on {run.device.key!r}, not of "
                f"{self.assignment} on {key!r}; not used"
            )
            return None
        return run

    def of_other_lessons(self, device_key: str) -> dict[str, ReferenceRun]:
        """The references of the store's other assignments on the same device (assignment -> reference), each
        read as safely as this one's and read once: the pre-read names their figures, quoted in this lesson's
        explanations, another lesson's. An assignment without a usable one is left out."""
        if device_key not in self._others:
            out: dict[str, ReferenceRun] = {}
            try:
                with os.scandir(self.store.root) as it:
                    names = sorted(e.name for e in it if e.is_dir(follow_symlinks=False) and e.name != self.assignment)
            except OSError:
                names = []
            for name in names:
                ref = ReferenceSet(self.store, name, self.policy).get(device_key)
                if ref is not None:
                    out[name] = ref
            self._others[device_key] = out
        return self._others[device_key]

    def course_reference(self) -> ReferenceRun:
        key = self.policy.device_of_record
        ref = self.get(key)
        if ref is None:
            have = ", ".join(sorted(self.listed())) or "none"
            why = self.problem(key)
            if why:
                raise ReferenceNotFoundError(f"the reference of the device of record {key!r} cannot be used: {why}")
            raise ReferenceNotFoundError(
                f"no reference for {self.assignment} on device {key!r} under {self.store.root} (stored: {have}); "
                f"run `autograder bench {self.assignment}` on that device first"
            )
        return ref

    def for_student(
        self,
        student_device: str | None,
        student_device_name: str | None,
        student_meta: Mapping[str, str] | None = None,
    ) -> tuple[ReferenceRun, str]:
        """(reference, note for the student): :meth:`choose` without the flags."""
        choice = self.choose(student_device, student_device_name, student_meta)
        return choice.reference, choice.note

    def choose(
        self,
        student_device: str | None,
        student_device_name: str | None,
        student_meta: Mapping[str, str] | None = None,
    ) -> ReferenceChoice:
        """The reference a submission is graded on. A student's own GPU model wins when the course allows it
        and the store lists a reference for it; a claim that cannot be the lesson's is flagged and graded on
        the course's device.

        ``student_meta`` is the meta of the student's measurement entries; where it records software
        versions or the host CPU, a difference that moves timings is added to the note.
        """
        course = self.course_reference()
        meta = {**(student_meta or {}), **({"device_key": student_device} if student_device else {})}
        if not student_device:
            return ReferenceChoice(course, fingerprint_note(course.device, meta))
        problem = claim_problem(student_device, student_device_name)
        if problem is not None:
            flag, why = problem
            rest = {k: v for k, v in meta.items() if k not in ("device_key", "device_name")}
            extra = fingerprint_note(course.device, rest)
            note = f"{why}; graded on the course's device, {course.device.name}" + (f"; {extra}" if extra else "")
            return ReferenceChoice(course, note, (flag,))
        if student_device == course.device.key:
            return ReferenceChoice(course, fingerprint_note(course.device, meta))
        if self.policy.use_student_gpu and student_device != "cpu":
            own = self.get(student_device)
            if own is not None:
                extra = fingerprint_note(own.device, meta)
                note = f"graded against your own GPU model, {own.device.name}" + (f"; {extra}" if extra else "")
                return ReferenceChoice(own, note)
        shown = student_device_name or student_device
        note = f"you measured on {shown}; the course grades on {course.device.name}, for which a reference exists"
        extra = fingerprint_note(course.device, {k: v for k, v in meta.items() if k != "device_key"})
        flags: tuple[str, ...] = ()
        if student_device != "cpu" and student_device not in self.listed():
            flags = ("device_claim_unknown",)
        return ReferenceChoice(course, note + (f"; {extra}" if extra else ""), flags)
