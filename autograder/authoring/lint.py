"""Checks that a lesson's ``lesson.toml``, workload and notebook agree: pure over files, one finding a line.

Errors make a lesson unusable (a quantity nobody can predict, a grade cell nbgrader cannot find); warnings
are what must still happen before students see it (a reference measured on the device of record).
"""

from __future__ import annotations

import ast
import difflib
import json
import tomllib
from pathlib import Path
from typing import Any

from ..errors import AutograderError
from ..kinds import kind_of
from ..preread import work_model_problems
from ..records import Quantity
from ..spec import SPEC_FILENAME, LessonSpec, load_spec
from .findings import Finding
from .reveals import executed_reveals, reveal_order

__all__ = ["PEAK_NAMES", "Finding", "bench_command", "lint_lesson", "unknown_peak"]


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
    known |= set(spec.student_variant.credit_grade_ids()) if spec.student_variant is not None else set()
    for gid in sorted(set(grade_cells) - known):
        out.append(Finding("error", f"graded cell {gid!r} is not named in lesson.toml"))
    return out


def bench_command(lesson: str, device: str) -> str:
    """The command that measures ``lesson``'s reference for the device key ``device``, where it runs."""
    if device == "cpu":
        return f"`autograder bench {lesson} --device cpu` (on any machine)"
    return f"`autograder bench {lesson}` on the {device} and commit references/"


def _references(spec: LessonSpec, references: Path, device_of_record: str) -> list[Finding]:
    p = references / spec.id / f"{device_of_record}.json"
    if not p.is_file():
        return [
            Finding(
                "warning",
                f"no reference for {device_of_record!r} yet: run "
                f"{bench_command(spec.id, device_of_record)}",
            )
        ]
    try:
        quantities = json.loads(p.read_text(encoding="utf-8")).get("quantities", {})
    except (OSError, ValueError) as exc:
        return [Finding("error", f"{p}: unreadable reference ({exc})")]
    bad_peak = {q.id for q in spec.quantities if unknown_peak(q)}
    return [
        Finding(
            "error",
            f"the {device_of_record} reference has no value for {q.id!r}: "
            + (
                "fix its peak name (above), then run " if q.id in bad_peak
                else "it was measured before this quantity was added or changed; run "
            )
            + bench_command(spec.id, device_of_record),
        )
        for q in spec.quantities
        if q.id not in quantities and not spec.about_student(q)  # the student's kernel: measured at grading
    ]


#: the ceilings `autograder bench` measures (autograder.bench.fingerprint.measure_peaks; a test keeps
#: the two lists equal): the copy roofline, and the dense matmul rate of each dtype
MATMUL_PEAK_DTYPES = {"cuda": ("bfloat16", "float16", "float32", "tf32"), "cpu": ("float32", "bfloat16")}
PEAK_NAMES = ("copy_gbps", *(f"matmul_tflops:{d}" for d in MATMUL_PEAK_DTYPES["cuda"]))


def unknown_peak(q: Quantity) -> str | None:
    """What to write instead, when ``q`` is a peak_fraction naming a ceiling the bench does not measure."""
    if kind_of(q).name != "peak_fraction" or q.args.get("peak_case") is not None:
        return None
    peak = str(q.args.get("peak", "copy_gbps"))
    if peak in PEAK_NAMES:
        return None
    close = difflib.get_close_matches(peak, PEAK_NAMES, n=1, cutoff=0.6)
    hint = f"did you mean peak = {close[0]!r}?" if close else f"use one of {', '.join(PEAK_NAMES)}"
    return (
        f"quantity {q.id!r}: peak {peak!r} is not a ceiling `autograder bench` measures: {hint} "
        "(or set peak_case to use the lesson's own best case)"
    )


def _peak_names(spec: LessonSpec) -> list[Finding]:
    """A peak_fraction quantity must name a ceiling the bench measures (a misspelled one would give the
    quantity no value, and bench would store the reference without it)."""
    out = []
    for q in spec.quantities:
        problem = unknown_peak(q)
        if problem:
            out.append(Finding("error", problem))
            continue
        peak = str(q.args.get("peak", ""))
        if kind_of(q).name == "peak_fraction" and peak.startswith("matmul_tflops:") and "cpu" in spec.sweep:
            dtype = peak.split(":", 1)[1]
            cpu_dtype = spec.substitute("cpu", {"dtype": dtype}).get("dtype")
            if cpu_dtype == dtype and dtype not in MATMUL_PEAK_DTYPES["cpu"] and q.args.get("peak_case") is None:
                out.append(Finding("warning", f"quantity {q.id!r}: a CPU measures no {peak} peak (only "
                                              f"{', '.join(MATMUL_PEAK_DTYPES['cpu'])}), so on a CPU it has no "
                                              "value: substitute its dtype under [devices.cpu] or set peak_case"))
    return out


_SLOWER = ("slowdown", "slower", "longer")


def _wording(spec: LessonSpec) -> list[Finding]:
    """A quantity whose label says it is not what its kind asks for by default (a slowdown asked for as "the
    speedup as a factor") must say in ``prompt`` what to write."""
    out = []
    for q in spec.quantities:
        kind = kind_of(q)
        label = q.label.lower()
        if kind.name == "ratio" and not q.prompt and "speedup" not in label and any(w in label for w in _SLOWER):
            slow, fast = kind.cases(q)
            what = f"{slow.variant} time ÷ {fast.variant} time" if slow.variant != fast.variant else "slow ÷ fast"
            out.append(Finding("warning", f"quantity {q.id!r} ({q.label}) is asked for as {kind.asks_for!r}: say "
                                          f'what to write with prompt = "the slowdown as a factor ({what}), e.g. 2"'))
    return out


def _toml_shape(path: Path) -> list[Finding]:
    """Mistakes in lesson.toml that would otherwise surface as a validation error: one line each, saying
    what to add or remove."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []  # load_spec says why, in one line
    quantities = [q for q in raw.get("quantities", []) if isinstance(q, dict)]
    ids = [str(q.get("id", "")) for q in quantities]
    grade_ids = raw.get("grade_ids", {})
    if not isinstance(grade_ids, dict):
        return [Finding("error", "lesson.toml: [grade_ids] must be a table: quantity id = \"grade id of its cell\"")]
    out: list[Finding] = []
    for i, q in enumerate(quantities, 1):
        for key in ("id", "title", "kind"):
            if key not in q:
                out.append(Finding("error", f"lesson.toml: quantity #{i} has no {key} = ...: add it"))
    for qid in ids:
        if qid and qid not in grade_ids:
            out.append(Finding("error", f"quantity {qid!r} has no grade id: add \"{qid}\" = \"grade_...\" under "
                                        "[grade_ids] in lesson.toml (the grade_id of its graded cell)"))
    for qid in grade_ids:
        if qid not in ids:
            out.append(Finding("error", f"[grade_ids] names {qid!r}, which is no quantity's id: fix the spelling "
                                        "or remove it"))
    return out


def _reveal_order(spec: LessonSpec, path: Path) -> list[Finding]:
    """Each measurement cell after the prediction cells of what it reveals (``reveals.reveal_order``)."""
    try:
        cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if isinstance(c, dict)]
    except (OSError, ValueError, KeyError, TypeError):
        return []  # _notebook says why
    return reveal_order(spec, cells)


def lint_lesson(
    folder: str | Path, references: str | Path, device_of_record: str, execute: bool = False
) -> list[Finding]:
    """Every problem of the lesson in ``folder`` (``source/NAME``), errors first. ``execute``: also run
    the blank release top to bottom in a kernel here (``reveals.executed_reveals``)."""
    folder = Path(folder)
    shape = _toml_shape(folder / SPEC_FILENAME)
    if shape:
        return shape
    try:
        spec = load_spec(folder)
    except AutograderError as exc:
        return [Finding("error", str(exc))]
    out = [Finding("error", p) for p in spec.problems()]
    out += [Finding("error", p) for p in work_model_problems(spec)] if not out else []
    out += _tolerances(spec)
    out += _peak_names(spec)
    out += _wording(spec)
    nb = folder / spec.notebook
    out += _notebook(spec, nb) if nb.is_file() else [Finding("error", f"no notebook {spec.notebook} in {folder}")]
    out += _reveal_order(spec, nb) if nb.is_file() else []
    if execute and nb.is_file() and not any(f.level == "error" for f in out):
        out += executed_reveals(folder)
    out += _references(spec, Path(references), device_of_record)
    return sorted(out, key=lambda f: f.level != "error")
