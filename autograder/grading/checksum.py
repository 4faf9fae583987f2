"""nbgrader's cell checksum (``nbgrader.utils.compute_checksum``) on a plain JSON cell.

Byte for byte the same digest, without importing nbgrader or nbformat: importing either costs a student's
``autograder check`` more than a second (nbformat's JSON-schema machinery, nbgrader's whole app tree).
tests/grading/test_checksum.py holds it equal to nbgrader's on every cell of the lesson.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

__all__ = ["cell_checksum"]


def cell_checksum(cell: Mapping[str, Any]) -> str:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    grade = meta.get("grade", False)
    solution = meta.get("solution", False)
    locked = False if solution else True if grade else meta.get("locked", False)
    src = cell.get("source", "")
    m = hashlib.md5()
    m.update(("".join(src) if isinstance(src, list) else str(src)).encode("utf-8"))
    m.update(str(cell["cell_type"]).encode("utf-8"))
    m.update(str(grade).encode("utf-8"))
    m.update(str(solution).encode("utf-8"))
    m.update(str(locked).encode("utf-8"))
    m.update(str(meta["grade_id"]).encode("utf-8"))
    if grade:
        m.update(str(float(meta["points"])).encode("utf-8"))
    return m.hexdigest()
