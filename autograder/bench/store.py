"""ReferenceRuns on disk: ``<root>/<assignment>/<device key>.json``, written atomically.

A reference that failed its fairness check is kept beside it as ``<device key>.candidate.json``: grading
never loads a candidate, the instructor can inspect it and accept it with ``--accept-unfair``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from pydantic import ValidationError

from ..errors import ReferenceNotFoundError
from ..records import ReferenceRun

__all__ = ["CANDIDATE_SUFFIX", "ReferenceStore", "atomic_write_text", "load_run"]

CANDIDATE_SUFFIX = ".candidate"


def atomic_write_text(path: Path, text: str) -> None:
    """Write via a temp file in the same folder and rename, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ReferenceStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, assignment: str, device_key: str, candidate: bool = False) -> Path:
        return self.root / assignment / f"{device_key}{CANDIDATE_SUFFIX if candidate else ''}.json"

    def save(self, run: ReferenceRun, candidate: bool = False) -> Path:
        """Store ``run`` as its device's reference, or (``candidate``) beside it, leaving the reference be."""
        p = self.path(run.assignment, run.device.key, candidate)
        atomic_write_text(p, run.model_dump_json(indent=1))
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
