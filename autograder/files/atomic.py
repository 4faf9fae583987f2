"""The one atomic writer: a temp file in the same folder, then a rename, so readers never see half a file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write"]


def atomic_write(path: Path, data: str | bytes, *, sync: bool = True, mode: int | None = None) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` through a temp file and :func:`os.replace`.

    ``sync=False`` skips the fsync: a killed process still loses nothing (the page cache survives it), only a
    power cut can leave a torn file, so a batch writing ten thousand records need not pay ten thousand
    fsyncs. ``mode``: the file's permissions before the rename (e.g. ``0o444``, as nbgrader leaves its files).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
