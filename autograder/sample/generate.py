"""A synthetic class: N realistic submissions of a released assignment, without running a kernel each.

Each notebook is the real release with predictions filled in and the outputs the Lesson API would have
written (the same ledger bundle, the same chain functions), measured values taken from a reference run
plus noise.  Everything lesson-specific comes from the lesson itself: which cells predict and measure what
(read from the cells' code), the values (the reference and the work model), the explanations (the
solution cells of the source notebook).  The mix: careful students, typical ones (log-normal spread),
ones who answer with the work model where the measurement disagrees, adjectives-only explanations, blanks,
late submissions, revisions after measuring, and a forged output.  Deterministic for a given seed.
"""

from __future__ import annotations

import ast
import copy
import math
import random
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import nbformat

from ..kinds import kind_of
from ..ledger import append, genesis
from ..lesson._output import ledger_bundle
from ..records import LEDGER_MIME, Case, LedgerEntry, ReferenceRun
from ..spec import LessonSpec
from .fill import fill_explanations, fill_predictions

__all__ = ["PERSONAS", "Persona", "generate_class", "make_submission", "solution_texts"]


@dataclass(frozen=True)
class Persona:
    name: str
    weight: float
    sigma: float  # log-normal spread of predictions around the reference
    explanation: str  # good | wrong | adjectives | blank
    blank: bool = False
    late: bool = False
    revise: bool = False
    forge: bool = False
    misconception: bool = False


PERSONAS = [
    Persona("careful", 0.25, 0.12, "good"),
    Persona("typical", 0.30, 0.45, "good"),
    Persona("misconception", 0.12, 0.2, "wrong", misconception=True),
    Persona("adjectives", 0.10, 0.6, "adjectives"),
    Persona("reviser", 0.07, 0.5, "good", revise=True),
    Persona("late", 0.06, 0.4, "good", late=True),
    Persona("blank", 0.06, 0.0, "blank", blank=True),
    Persona("forger", 0.04, 0.9, "wrong", forge=True),
]

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def solution_texts(source_nb: Any, spec: LessonSpec) -> dict[str, str]:
    """The instructor's answers to the explanation cells (the source notebook's solution cells)."""
    ids = {e.grade_id for e in spec.explanations}
    ids |= {spec.student_variant.answer_cell} if spec.student_variant is not None else set()  # the kernel
    out = {}
    for cell in source_nb.get("cells", []) if source_nb is not None else []:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if gid in ids:
            out[gid] = cell["source"]
    return out


def _wrong(text: str) -> str:
    """Right words, wrong numbers: every number scaled by 3 (what a student who misread units writes)."""
    return _NUMBER.sub(lambda m: _scaled(m.group(0)), text)


def _scaled(num: str) -> str:
    try:
        v = float(num.replace(",", ""))
    except ValueError:
        return num
    return f"{v * 3:g}"


def _adjectives(spec: LessonSpec) -> str:
    variants = spec.workload.variants
    faster = variants[1] if len(variants) > 1 else variants[0]
    return (
        f"The {faster} version is much faster because it is more efficient and avoids unnecessary work; "
        "small sizes have too much overhead and large ones are limited by the hardware, so the curve flattens."
    )


def _predicted(spec: LessonSpec, truth: dict[str, float | str], p: Persona, rng: random.Random) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for q in spec.quantities:
        t = truth.get(q.id)
        kind = kind_of(q)
        if t is None:
            continue
        if isinstance(t, str):
            options = list(getattr(kind, "choices", ("higher", "lower", "same")))
            out[q.id] = t if rng.random() < 0.6 else rng.choice(options)
            continue
        model = kind.model_value(q, spec.workload) if p.misconception else None
        if kind.name == "count":
            out[q.id] = (
                model if isinstance(model, float) else max(0.0, t + rng.choice([0, 0, 0, 1, -1, 2]) * (p.sigma > 0.3))
            )
        elif isinstance(model, float) and abs(math.log(model / t)) > 0.3:
            out[q.id] = round(model, 2)
        else:
            out[q.id] = round(t * math.exp(rng.gauss(0.0, p.sigma)), 2 if t < 100 else 0)
    return out


def _explanations(spec: LessonSpec, p: Persona, solutions: dict[str, str]) -> dict[str, str]:
    if p.explanation == "blank":
        return {}
    out = {}
    for e in spec.explanations:
        good = solutions.get(e.grade_id)
        if p.explanation == "adjectives" or good is None:
            out[e.grade_id] = _adjectives(spec)
        elif p.explanation == "wrong":
            out[e.grade_id] = _wrong(good)
        else:
            out[e.grade_id] = good
    return out


def _measured(truth: dict[str, float | str], rng: random.Random) -> dict[str, float | str]:
    return {q: (round(v * math.exp(rng.gauss(0, 0.03)), 4) if isinstance(v, float) else v) for q, v in truth.items()}


def _calls(src: str, method: str) -> list[ast.Call]:
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == method
    ]


def _literal_args(call: ast.Call) -> tuple[list[Any], dict[str, Any]]:
    args = [ast.literal_eval(a) for a in call.args]
    kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
    return args, kwargs


def measured_cases(src: str, spec: LessonSpec, device_kind: str) -> list[Case]:
    """The cases a cell's ``.measure(...)``/``.sweep(...)`` calls measure (what the Lesson API would)."""
    wl = spec.workload
    out: list[Case] = []
    for call in _calls(src, "measure"):
        params = wl.case_params(*_literal_args(call))
        out += [Case(variant=v, params=params) for v in wl.variants]
    for call in _calls(src, "sweep"):
        fixed = wl.case_params(*_literal_args(call))
        out += spec.grid_cases("cuda" if device_kind == "cuda" else "cpu", fixed)
    return out


def make_submission(
    release_nb: Any,
    spec: LessonSpec,
    ref: ReferenceRun,
    persona: Persona,
    seed: int,
    start: datetime,
    solutions: dict[str, str] | None = None,
) -> Any:
    """One executed-looking notebook for ``persona``: sources filled, ledger outputs in place."""
    rng = random.Random(seed)
    nb = copy.deepcopy(release_nb)
    truth = {q: v.value for q, v in ref.quantities.items()}
    preds = {} if persona.blank else _predicted(spec, truth, persona, rng)
    fill_predictions(nb, {q: (v, f"my work model for {q}") for q, v in preds.items()})
    fill_explanations(nb, _explanations(spec, persona, solutions or {}))
    kernel = spec.student_variant.answer_cell if spec.student_variant is not None else None
    if kernel in (solutions or {}) and not persona.blank:  # a lesson's own kernel cell: the instructor's
        fill_explanations(nb, {kernel: (solutions or {})[kernel]})
    measured = _measured(truth, rng)
    t = start + timedelta(minutes=rng.randint(0, 600))
    chain: list[LedgerEntry] = [genesis(spec.id, secrets.token_hex(16) if seed < 0 else f"{seed:032x}", t)]
    device = {"device_key": ref.device.key, "device_name": ref.device.name}
    done: set[str] = set()
    recorded: set[str] = set()

    def tick() -> datetime:
        nonlocal t
        t += timedelta(seconds=rng.randint(20, 400))
        return t

    def out(text: str) -> Any:
        return nbformat.v4.new_output("display_data", data=ledger_bundle(spec.id, list(chain), text))

    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.outputs = []
        src = cell.source
        if "Lesson.load" in src:
            cell.outputs.append(out("new ledger started"))
        for call in _calls(src, "predict"):
            qid = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
            if qid in preds:
                chain.append(append(chain, "prediction", qid, preds[qid], tick(), f"my work model for {qid}"))
                cell.outputs.append(out(f"committed {qid}"))
        cases = measured_cases(src, spec, ref.device.kind)
        touched = {c.key for c in cases}
        if touched:
            done |= touched
            for q in spec.quantities:
                keys = {c.key for c in kind_of(q).cases(q)}
                if kind_of(q).touched_by(q, cases) and keys <= done and q.id in measured:
                    chain.append(append(chain, "measurement", q.id, measured[q.id], tick(), meta=device))
                    recorded.add(q.id)
            cell.outputs.append(out("measured"))
    if persona.revise and preds:
        qid = next((q.id for q in spec.quantities if q.id in recorded and q.id in preds), spec.quantities[0].id)
        chain.append(append(chain, "prediction", qid, truth[qid], tick(), "after seeing the measurement"))
        for cell in nb.cells:
            if cell.cell_type == "code" and f'"{qid}"' in cell.source and ".predict(" in cell.source:
                cell.source = cell.source.replace(f"{preds[qid]!r}, because=", f"{truth[qid]!r}, because=", 1)
                cell.outputs = [out(f"committed {qid} (revised)")]
    if persona.forge:
        for cell in nb.cells:
            for o in cell.get("outputs", []):
                data = o.get("data", {})
                if LEDGER_MIME in data:
                    for e in data[LEDGER_MIME]["chain"]:
                        if e["kind"] == "prediction" and isinstance(e["value"], float):
                            e["value"] = truth[e["quantity"]]
    return nb


def generate_class(
    course_root: str | Path,
    spec: LessonSpec,
    ref: ReferenceRun,
    release_nb_path: str | Path,
    students: int,
    seed: int = 0,
    due: datetime | None = None,
    names: list[str] | None = None,
) -> list[str]:
    """Write ``submitted/<student>/<assignment>/`` for ``students`` synthetic students; returns their ids.

    ``names`` gives the students' ids (the same class across the lessons of a course); by default each id
    says its persona."""
    rng = random.Random(seed)
    release = nbformat.read(str(release_nb_path), as_version=4)
    source_path = Path(course_root) / "source" / spec.id / spec.notebook
    source = nbformat.read(str(source_path), as_version=4) if source_path.is_file() else None
    solutions = solution_texts(source, spec)
    due = due or datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
    start = due - timedelta(days=3)
    ids = []
    weights = [p.weight for p in PERSONAS]
    for i in range(students):
        persona = rng.choices(PERSONAS, weights)[0]
        sid = names[i] if names else f"s{i:04d}_{persona.name}"
        nb = make_submission(release, spec, ref, persona, seed * 100003 + i, start, solutions)
        folder = Path(course_root) / "submitted" / sid / spec.id
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(folder / spec.notebook))
        stamp = due + timedelta(hours=rng.randint(1, 30)) if persona.late else due - timedelta(hours=rng.randint(1, 60))
        (folder / "timestamp.txt").write_text(stamp.strftime("%Y-%m-%d %H:%M:%S.%f %Z"), encoding="utf-8")
        ids.append(sid)
    return ids
