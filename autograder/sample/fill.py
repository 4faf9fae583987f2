"""Fill a released notebook in as a student would: edit the prediction slots and explanation cells.

Used by the sample-class generator, the demo and the tests, so they all exercise the real release.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["STUB_RE", "fill_explanations", "fill_predictions"]

STUB_RE = re.compile(r'None, because="",\s*#[^\n]*')


def _slot(cell_source: str, quantity: str) -> re.Match[str] | None:
    start = cell_source.find(f'"{quantity}"')
    if start < 0:
        return None
    return STUB_RE.search(cell_source, start)


def fill_predictions(nb: Any, answers: dict[str, tuple[Any, str]]) -> list[str]:
    """Replace each quantity's stub with ``value, because="..."``; returns quantities not found."""
    todo = dict(answers)
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        for q in list(todo):
            m = _slot(cell["source"], q)
            if m is None:
                continue
            value, because = todo.pop(q)
            cell["source"] = (
                cell["source"][: m.start()] + f"{value!r}, because={because!r}," + cell["source"][m.end() :]
            )
    return sorted(todo)


def fill_explanations(nb: Any, texts: dict[str, str]) -> list[str]:
    """Write markdown answers into the explanation cells named by grade_id; returns ids not found."""
    todo = dict(texts)
    for cell in nb["cells"]:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if gid in todo:
            cell["source"] = todo.pop(gid)
    return sorted(todo)
