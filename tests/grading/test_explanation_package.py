"""The pre-reader is a package of its own (issue 20, item 2): every other module of autograder/ reaches it
only through what ``autograder.preread`` exports, and the pre-reader imports nothing of the layers above it
(grading, storage, batch, CLI)."""

from __future__ import annotations

import ast
from pathlib import Path

from autograder import preread

PACKAGE = Path(preread.__file__).resolve().parent
ROOT = PACKAGE.parent


def _imports(path: Path) -> list[tuple[str, int]]:
    """(absolute module name, line) of every import in ``path``."""
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    here = parts[:-1]  # the package the module is in (for __init__.py: the package itself)
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            name = ".".join([*base, node.module] if node.module else base)
            out += [(name, node.lineno)] + [(f"{name}.{a.name}", node.lineno) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
    return out


def test_other_packages_use_only_the_public_functions():
    reached = []
    for path in ROOT.rglob("*.py"):
        if PACKAGE in path.parents:
            continue
        for name, line in _imports(path):
            if name.startswith("autograder.preread.") and name.split(".")[2] not in preread.__all__:
                reached.append(f"{path.relative_to(ROOT.parent)}:{line} imports {name}")
    assert not reached, "\n".join(reached)


def test_the_pre_reader_imports_no_layer_above_it():
    above = ("autograder.grading", "autograder.cli", "autograder.batch", "autograder.scaleout",
             "autograder.preprocessors", "autograder.lesson", "autograder.authoring")
    bad = [f"{p.name}:{line} imports {name}" for p in PACKAGE.glob("*.py") for name, line in _imports(p)
           if name.startswith(above)]
    assert not bad, "\n".join(bad)
    assert set(preread.__all__) >= {"grade_explanation", "extract_numbers", "PREREAD", "work_model_problems"}
