"""autograder/ knows no particular lesson: no lesson's id, quantity or cell names, and none of the ops its
workload runs, appear anywhere in the package (code, docstrings, messages)."""

from __future__ import annotations

import ast
import builtins
import keyword
import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LESSONS = sorted(p.parent for p in (REPO / "source").glob("*/lesson.toml"))
# names a workload's kernels use that are also the framework's own plumbing or plain Python
PLUMBING = {"torch", "x", "a", "b", "m", "e", "s", "y", "f", "keepdim", "return", "def", "exp", "log", "sqrt"}


def _ops(workload: Path) -> set[str]:
    """Identifiers in the kernel sources a workload holds as strings (what its variants compute)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(workload.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "def " in node.value:
            names |= set(re.findall(r"[A-Za-z_]\w*", node.value))
    return {n for n in names - PLUMBING if not keyword.iskeyword(n) and not hasattr(builtins, n) and len(n) > 2}


def _lesson_words(folder: Path) -> set[str]:
    spec = tomllib.loads((folder / "lesson.toml").read_text(encoding="utf-8"))
    words = {spec["id"], *spec["grade_ids"], *spec["grade_ids"].values()}
    words |= {e["grade_id"] for e in spec.get("explanations", [])}
    return words | _ops(folder / "workload.py")


def _package_text() -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8") for p in (REPO / "autograder").rglob("*.py")}


@pytest.mark.parametrize("folder", LESSONS, ids=[f.name for f in LESSONS])
def test_the_package_never_names_this_lesson(folder):
    words = _lesson_words(folder)
    assert words, "found nothing to look for"
    hits = [
        f"{p.relative_to(REPO)}: {w}"
        for p, text in _package_text().items()
        for w in words
        if re.search(rf"(?<![\w@^]){re.escape(w)}(?![\w@])", text)
    ]
    assert not hits, hits


def test_the_lesson_words_are_found_where_they_belong():
    """The check is not vacuous: each lesson's words are in its own folder."""
    for folder in LESSONS:
        ops = _ops(folder / "workload.py")
        assert ops, folder.name
        text = (folder / "workload.py").read_text(encoding="utf-8")
        assert all(w in text for w in ops)
