"""Checks that a lesson's ``lesson.toml``, workload and notebook agree: pure over files, one finding a line.

Errors make a lesson unusable (a quantity nobody can predict, a grade cell nbgrader cannot find); warnings
are what must still happen before students see it (a reference measured on the device of record).
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import AutograderError
from ..kinds import kind_of
from ..preread import work_model_problems
from ..spec import LessonSpec, load_spec

__all__ = ["Finding", "lint_lesson"]


@dataclass(frozen=True)
class Finding:
    level: Literal["error", "warning"]
    text: str

    def __str__(self) -> str:
        return f"{self.level}: {self.text}"


def _source(cell: dict[str, Any]) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _calls(src: str, method: str) -> list[str]:
    """First string arguments of ``.method("...")`` calls in ``src`` (code with solution markers too)."""
    lines = [ln for ln in src.splitlines() if not ln.strip().startswith("###")]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return []
    return [
        n.args[0].value
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == method
        and n.args
        and isinstance(n.args[0], ast.Constant)
        and isinstance(n.args[0].value, str)
    ]


def _tolerances(spec: LessonSpec) -> list[Finding]:
    out = []
    for q in spec.quantities:
        t, name = q.tolerance, kind_of(q).name
        if name in ("ratio", "peak_fraction", "crossover") and not (1.05 <= t.full_factor <= 3.0):
            out.append(Finding("error", f"quantity {q.id!r}: full_factor {t.full_factor} is not between 1.05 and 3"))
        if name in ("ratio", "peak_fraction", "crossover") and t.zero_factor > 20:
            out.append(Finding("error", f"quantity {q.id!r}: zero_factor {t.zero_factor} gives credit for anything"))
        if name == "direction" and t.dead_band > 0.5:
            out.append(Finding("error", f"quantity {q.id!r}: dead_band {t.dead_band} hides every change"))
        if name == "count" and t.abs_zero > 10:
            out.append(Finding("error", f"quantity {q.id!r}: abs_zero {t.abs_zero} gives credit for any count"))
    return out


def _notebook(spec: LessonSpec, path: Path) -> list[Finding]:
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        cells = [c for c in nb["cells"] if isinstance(c, dict)]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return [Finding("error", f"{path.name}: cannot read the notebook ({exc})")]
    out: list[Finding] = []
    grade_cells: dict[str, dict[str, Any]] = {}
    seen: list[str] = []
    predicted: set[str] = set()
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        gid = meta.get("grade_id")
        if gid:
            seen.append(gid)
            if meta.get("grade"):
                grade_cells[gid] = cell
            if cell.get("cell_type") == "code" and meta.get("task") is False and not meta.get("solution"):
                if not meta.get("locked"):
                    out.append(Finding("error", f"cell {gid}: a graded or read-only code cell must be locked"))
        if cell.get("cell_type") == "code":
            names = _calls(_source(cell), "predict")
            predicted |= set(names)
            if names and not meta.get("solution"):
                out.append(Finding("error", f"cell {gid or '?'}: predicts {names} but is not a solution cell"))
    for gid in sorted({g for g in seen if seen.count(g) > 1}):
        out.append(Finding("error", f"grade id {gid!r} is used by {seen.count(gid)} cells (nbgrader needs unique ids)"))
    if not any("Lesson.load" in _source(c) for c in cells if c.get("cell_type") == "code"):
        out.append(Finding("error", "no setup cell calls Lesson.load()"))
    for q in spec.quantities:
        if q.id not in predicted:
            out.append(Finding("error", f'quantity {q.id!r} has no prediction cell (L.predict("{q.id}", ...))'))
        gid = spec.grade_ids[q.id]
        graded = grade_cells.get(gid)
        if graded is None:
            out.append(Finding("error", f"quantity {q.id!r}: no graded cell with grade_id {gid!r}"))
            continue
        if q.id not in _calls(_source(graded), "grade"):
            out.append(Finding("error", f'cell {gid}: does not call L.grade("{q.id}")'))
        pts = graded["metadata"]["nbgrader"].get("points")
        if pts != q.points:
            out.append(Finding("error", f"cell {gid}: {pts} points in the notebook, {q.points} in lesson.toml"))
    for e in spec.explanations:
        ex_cell = grade_cells.get(e.grade_id)
        if ex_cell is None:
            out.append(Finding("error", f"explanation {e.grade_id!r}: no graded markdown cell with that grade_id"))
        elif ex_cell.get("cell_type") != "markdown" or not ex_cell["metadata"]["nbgrader"].get("solution"):
            out.append(Finding("error", f"explanation {e.grade_id!r}: must be a markdown solution cell"))
        elif ex_cell["metadata"]["nbgrader"].get("points") != e.points:
            out.append(Finding("error", f"explanation {e.grade_id!r}: points differ from lesson.toml"))
    known = set(spec.grade_ids.values()) | {e.grade_id for e in spec.explanations}
    for gid in sorted(set(grade_cells) - known):
        out.append(Finding("error", f"graded cell {gid!r} is not named in lesson.toml"))
    return out


def _references(spec: LessonSpec, references: Path, device_of_record: str) -> list[Finding]:
    p = references / spec.id / f"{device_of_record}.json"
    if not p.is_file():
        return [
            Finding(
                "warning",
                f"no reference for the device of record {device_of_record!r}: run `autograder bench {spec.id}` "
                "on that GPU and commit references/",
            )
        ]
    try:
        quantities = json.loads(p.read_text(encoding="utf-8")).get("quantities", {})
    except (OSError, ValueError) as exc:
        return [Finding("error", f"{p}: unreadable reference ({exc})")]
    return [
        Finding("error", f"the {device_of_record} reference has no value for {q.id!r}: re-run `autograder bench`")
        for q in spec.quantities
        if q.id not in quantities
    ]


def lint_lesson(folder: str | Path, references: str | Path, device_of_record: str) -> list[Finding]:
    """Every problem of the lesson in ``folder`` (``source/NAME``), errors first."""
    folder = Path(folder)
    try:
        spec = load_spec(folder)
    except AutograderError as exc:
        return [Finding("error", str(exc))]
    out = [Finding("error", p) for p in spec.problems()]
    out += [Finding("error", p) for p in work_model_problems(spec)] if not out else []
    out += _tolerances(spec)
    nb = folder / spec.notebook
    out += _notebook(spec, nb) if nb.is_file() else [Finding("error", f"no notebook {spec.notebook} in {folder}")]
    out += _references(spec, Path(references), device_of_record)
    return sorted(out, key=lambda f: f.level != "error")
