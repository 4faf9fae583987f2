"""What a lesson's notebook predicts and measures, read from its code cells without running them.

``L.predict("id", ...)``, ``L.measure(...)`` and ``L.sweep(...)`` calls, in notebook order, parsed with
:mod:`ast`; and the cases each measurement shows on a kind of device. Two callers: ``autograder lint``
checks that nothing is measured before it is predicted (:mod:`autograder.authoring.reveals`), and
``autograder bench`` measures the cases in the order the notebook does (:func:`measure_order`): what ran on
the GPU just before a case moves its time (on an H200 a float32 multiply timed right after a power-limited
bf16 one ran 0.5 % slower), so the reference has the history a student's Run All has.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from .errors import AutograderError
from .records import Case, ParamValue
from .spec import DeviceKind, LessonSpec

__all__ = ["CellCalls", "ShowCall", "measure_order", "notebook_calls", "notebook_cells", "shown_cases"]


@dataclass(frozen=True)
class ShowCall:
    """One ``L.measure(...)`` or ``L.sweep(...)`` call of a cell, its arguments as written."""

    method: Literal["measure", "sweep"]
    args: tuple[ParamValue, ...]
    kwargs: dict[str, ParamValue]
    text: str

    @property
    def parsed(self) -> bool:
        return all(a is not ... for a in self.args) and ... not in self.kwargs.values()


@dataclass(frozen=True)
class CellCalls:
    """What one code cell predicts and measures, in source order."""

    index: int
    name: str  # its grade_id, or "#N" (1-based) for a cell without one
    steps: tuple[str | ShowCall, ...]  # a quantity id it predicts, or a measurement it shows


def _source(cell: dict[str, Any]) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return ...


def _steps(src: str) -> tuple[str | ShowCall, ...]:
    lines = [ln for ln in src.splitlines() if not ln.strip().startswith("###")]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return ()
    calls = sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    out: list[str | ShowCall] = []
    for n in calls:
        attr = cast(ast.Attribute, n.func).attr
        if attr == "predict" and n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
            out.append(n.args[0].value)
        elif attr in ("measure", "sweep"):
            out.append(
                ShowCall(
                    cast(Literal["measure", "sweep"], attr),
                    tuple(_literal(a) for a in n.args),
                    {k.arg: _literal(k.value) for k in n.keywords if k.arg is not None},
                    ast.unparse(n),
                )
            )
    return tuple(out)


def notebook_calls(cells: list[dict[str, Any]]) -> list[CellCalls]:
    """The code cells that predict or measure anything, in notebook order."""
    out = []
    for i, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        steps = _steps(_source(cell))
        if steps:
            gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            out.append(CellCalls(i, gid or f"#{i + 1}", steps))
    return out


def shown_cases(spec: LessonSpec, kind: DeviceKind, call: ShowCall) -> list[Case]:
    """The cases ``call`` displays on ``kind`` of device, as the notebook's ``Lesson`` computes them."""
    wl = spec.workload
    if call.method == "measure":
        point = spec.substitute(kind, wl.case_params(call.args, call.kwargs))
        return [Case(variant=v, params=point) for v in wl.variants]
    return spec.grid_cases(kind, spec.substitute(kind, wl.case_params(call.args, call.kwargs)))


def notebook_cells(spec: LessonSpec) -> list[dict[str, Any]]:
    """The cells of the lesson's source notebook ([] when the lesson has no folder or notebook there)."""
    if spec.folder is None:
        return []
    path = Path(spec.folder) / spec.notebook
    try:
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError):
        return []
    return cells if isinstance(cells, list) else []


def measure_order(
    spec: LessonSpec, kind: DeviceKind, cells: list[dict[str, Any]] | None = None
) -> list[dict[str, ParamValue]]:
    """The parameter sets the notebook's ``L.measure`` / ``L.sweep`` cells measure on ``kind``, in the order
    a top-to-bottom run measures them first (each once; calls whose arguments are not literals are skipped)."""
    seen: dict[str, dict[str, ParamValue]] = {}
    for cell in notebook_calls(notebook_cells(spec) if cells is None else cells):
        for step in cell.steps:
            if isinstance(step, str) or not step.parsed:
                continue
            try:
                cases = shown_cases(spec, kind, step)
            except AutograderError:  # a call `autograder lint` reports; the order only skips it
                continue
            for c in cases:
                seen.setdefault(repr(sorted(c.params.items())), c.params)
    return list(seen.values())
