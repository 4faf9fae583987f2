"""ReferenceRuns on disk: ``<root>/<assignment>/<device key>.json``, written atomically.

A reference that failed its fairness check is kept beside it as ``<device key>.candidate.json``: grading
never loads a candidate, the instructor can inspect it and accept it with ``--accept-unfair``.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from ..errors import ReferenceNotFoundError
from ..files.atomic import atomic_write
from ..records import ReferenceRun

__all__ = ["CANDIDATE_SUFFIX", "ReferenceStore", "load_run"]

CANDIDATE_SUFFIX = ".candidate"


class ReferenceStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, assignment: str, device_key: str, candidate: bool = False) -> Path:
        return self.root / assignment / f"{device_key}{CANDIDATE_SUFFIX if candidate else ''}.json"

    def save(self, run: ReferenceRun, candidate: bool = False) -> Path:
        """Store ``run`` as its device's reference, or (``candidate``) beside it, leaving the reference be."""
        p = self.path(run.assignment, run.device.key, candidate)
        atomic_write(p, run.model_dump_json(indent=1))
        if not candidate:
            self.path(run.assignment, run.device.key, True).unlink(missing_ok=True)
        return p

    def devices(self, assignment: str) -> list[str]:
        d = self.root / assignment
        if not d.is_dir():
            return []
        return sorted(p.stem for p in d.glob("*.json") if not p.stem.endswith(CANDIDATE_SUFFIX))

    def load(self, assignment: str, device_key: str) -> ReferenceRun:
        p = self.path(assignment, device_key)
        if device_key.endswith(CANDIDATE_SUFFIX) or not p.exists():
            have = ", ".join(self.devices(assignment)) or "none"
            raise ReferenceNotFoundError(
                f"no reference for {assignment} on device {device_key!r} under {self.root} (stored: {have}); "
                f"run `autograder bench {assignment}` on that device first"
            )
        return load_run(p)


def load_run(p: Path) -> ReferenceRun:
    """One stored run from any path (a reference, a candidate, a run copied from another machine)."""
    try:
        return ReferenceRun.model_validate_json(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReferenceNotFoundError(f"{p}: no such file") from None
    except ValidationError as exc:
        raise ReferenceNotFoundError(f"{p} is not a valid reference run: {exc.errors()[0]['msg']}") from None
