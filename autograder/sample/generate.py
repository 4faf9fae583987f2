"""A synthetic class: N realistic submissions of a released assignment, without running a kernel each.

Each notebook is the real release with predictions filled in and the outputs the Lesson API would have
written (the same ledger bundle, the same chain functions), measured values taken from a reference run
plus noise. The mix: careful students, typical ones (log-normal spread, the classic "wall speedup = 4x"
misconception), adjectives-only explanations, blanks, late submissions, revisions after measuring, and a
forged output. Deterministic for a given seed.
"""

from __future__ import annotations

import copy
import math
import random
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import nbformat

from ..ledger import append, genesis
from ..lesson._output import ledger_bundle
from ..records import LEDGER_MIME, LedgerEntry, ReferenceRun
from ..spec import LessonSpec
from .fill import fill_explanations, fill_predictions

__all__ = ["PERSONAS", "Persona", "generate_class", "make_submission"]


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

_GOOD = {
    "explain_headline": (
        "Eager launches four kernels; each reads and writes one {mb:.0f} MB tensor, so it moves "
        "{eager:.0f} MB, while the fused kernel reads {mb:.0f} MB and writes {mb:.0f} MB: "
        "{fused:.0f} MB in one launch. That is a 4x cut in traffic, and the GPU-time speedup of "
        "{gpu:.1f}x is close to it because both run near the {roof:,.0f} GB/s copy roofline."
    ),
    "explain_sweep": (
        "At 2^12 the work is 8 KB, so every call is launch overhead: 4 kernels against 1 plus "
        "guard checks, about {small:.0f} µs per call either way. By 2^26 the tensors are hundreds "
        "of MB and both versions are memory-bound, so the speedup flattens at the 4x traffic ratio."
    ),
}
_WRONG = {
    "explain_headline": "Fusing saves memory: eager moves 100 MB and compiled moves 10 MB, so it is 10x faster "
    "with 3 kernels instead of 2.",
    "explain_sweep": "The GPU warms up at larger sizes, reaching 900 GB/s; small sizes are slow because of caches.",
}
_ADJ = {
    "explain_headline": "The compiled version is much faster because fusion is more efficient and avoids "
    "unnecessary memory traffic.",
    "explain_sweep": "Small tensors have too much overhead, and big ones are limited by memory, so the curve flattens.",
}


def _truth(ref: ReferenceRun) -> dict[str, float | str]:
    return {q: v.value for q, v in ref.quantities.items()}


def _predicted(spec: LessonSpec, truth: dict[str, float | str], p: Persona, rng: random.Random) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for q in spec.quantities:
        t = truth.get(q.id)
        if q.kind == "direction":
            out[q.id] = t if rng.random() < 0.6 else rng.choice(["higher", "lower", "same"])
            continue
        assert isinstance(t, float)
        if p.misconception and q.method == "wall_per_call":
            out[q.id] = round(rng.choice([4.0, 3.5, 4.0]), 2)
        else:
            out[q.id] = round(t * math.exp(rng.gauss(0.0, p.sigma)), 2)
    return out


def _explanations(spec: LessonSpec, ref: ReferenceRun, p: Persona) -> dict[str, str]:
    if p.explanation == "blank":
        return {}
    ex = spec.explanations[0]
    n = 1 << ex.log2_n
    mb = n * 2 / 1e6
    small = next(
        (
            m.stats.median * 1e3
            for m in ref.measurements
            if m.case.log2_n == min(ref.sizes.get("float16", [12]))
            and m.case.variant == "eager"
            and m.case.dtype == "float16"
            and m.method == "wall_per_call"
        ),
        80.0,
    )
    gpu = ref.quantities.get(spec.quantities[0].id)
    values = dict(
        mb=mb, eager=8 * mb, fused=2 * mb, roof=ref.device.copy_gbps, small=small, gpu=gpu.ratio if gpu else 4.0
    )
    table = {"good": _GOOD, "wrong": _WRONG, "adjectives": _ADJ}[p.explanation]
    return {e.grade_id: table.get(e.grade_id, _ADJ["explain_headline"]).format(**values) for e in spec.explanations}


def _measured(truth: dict[str, float | str], rng: random.Random) -> dict[str, float | str]:
    return {q: (round(v * math.exp(rng.gauss(0, 0.03)), 4) if isinstance(v, float) else v) for q, v in truth.items()}


def make_submission(
    release_nb: Any, spec: LessonSpec, ref: ReferenceRun, persona: Persona, seed: int, start: datetime
) -> Any:
    """One executed-looking notebook for ``persona``: sources filled, ledger outputs in place."""
    rng = random.Random(seed)
    nb = copy.deepcopy(release_nb)
    truth = _truth(ref)
    preds = {} if persona.blank else _predicted(spec, truth, persona, rng)
    fill_predictions(nb, {q: (v, f"my traffic model for {q}") for q, v in preds.items()})
    fill_explanations(nb, _explanations(spec, ref, persona))
    measured = _measured(truth, rng)
    t = start + timedelta(minutes=rng.randint(0, 600))
    chain: list[LedgerEntry] = [genesis(spec.id, secrets.token_hex(16) if seed < 0 else f"{seed:032x}", t)]
    device = {"device_key": ref.device.key, "device_name": ref.device.name}

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
        for q in spec.quantities:
            if f'"{q.id}"' in src and ".predict(" in src and q.id in preds:
                chain.append(append(chain, "prediction", q.id, preds[q.id], tick(), f"my traffic model for {q.id}"))
                cell.outputs.append(out(f"committed {q.id}"))
        if ".measure(" in src or ".sweep(" in src:
            for q in spec.quantities:
                covered = (f'"{q.dtype}", {q.log2_n}' in src) or (".sweep(" in src and f'"{q.dtype}"' in src)
                if covered:
                    chain.append(append(chain, "measurement", q.id, measured[q.id], tick(), meta=device))
            cell.outputs.append(out("measured"))
    if persona.revise and preds:
        qid = spec.quantities[0].id
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
) -> list[str]:
    """Write ``submitted/<student>/<assignment>/`` for ``students`` synthetic students; returns their ids."""
    rng = random.Random(seed)
    release = nbformat.read(str(release_nb_path), as_version=4)
    due = due or datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
    start = due - timedelta(days=3)
    ids = []
    weights = [p.weight for p in PERSONAS]
    for i in range(students):
        persona = rng.choices(PERSONAS, weights)[0]
        sid = f"s{i:04d}_{persona.name}"
        nb = make_submission(release, spec, ref, persona, seed * 100003 + i, start)
        folder = Path(course_root) / "submitted" / sid / spec.id
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(folder / spec.notebook))
        stamp = due + timedelta(hours=rng.randint(1, 30)) if persona.late else due - timedelta(hours=rng.randint(1, 60))
        (folder / "timestamp.txt").write_text(stamp.strftime("%Y-%m-%d %H:%M:%S.%f %Z"), encoding="utf-8")
        ids.append(sid)
    return ids
