"""ReferenceRuns on disk: ``<root>/<assignment>/<device key>.json``, written atomically."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from pydantic import ValidationError

from ..errors import ReferenceNotFoundError
from ..records import ReferenceRun

__all__ = ["ReferenceStore", "atomic_write_text"]


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

    def path(self, assignment: str, device_key: str) -> Path:
        return self.root / assignment / f"{device_key}.json"

    def save(self, run: ReferenceRun) -> Path:
        p = self.path(run.assignment, run.device.key)
        atomic_write_text(p, run.model_dump_json(indent=1))
        return p

    def devices(self, assignment: str) -> list[str]:
        d = self.root / assignment
        return sorted(p.stem for p in d.glob("*.json")) if d.is_dir() else []

    def load(self, assignment: str, device_key: str) -> ReferenceRun:
        p = self.path(assignment, device_key)
        if not p.exists():
            have = ", ".join(self.devices(assignment)) or "none"
            raise ReferenceNotFoundError(
                f"no reference for {assignment} on device {device_key!r} under {self.root} (stored: {have}); "
                f"run `autograder bench {assignment}` on that device first"
            )
        try:
            return ReferenceRun.model_validate_json(p.read_text(encoding="utf-8"))
        except ValidationError as exc:
            raise ReferenceNotFoundError(f"{p} is not a valid reference run: {exc.errors()[0]['msg']}") from None
