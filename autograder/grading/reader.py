"""Read a submitted notebook into what grading needs, before anything (ClearOutput) wipes it.

Never raises on student input: a file that is not a notebook is a reading with errors, not an exception.
"""

from __future__ import annotations

import ast
import hashlib
import json
from typing import Any

from pydantic import Field

from ..ledger import verify_chains
from ..records import LEDGER_MIME, ChainVerdict, LedgerEntry
from ..records._base import Record
from ..spec import LessonSpec
from .checksum import cell_checksum

__all__ = ["MAX_NOTEBOOK_BYTES", "SubmissionReading", "read_notebook_bytes", "read_notebook_node"]

MAX_NOTEBOOK_BYTES = 200 << 20


class SubmissionReading(Record):
    sha256: str | None = None
    verdict: ChainVerdict = ChainVerdict(status="missing")
    entries: list[LedgerEntry] = Field(default_factory=list)
    source_values: dict[str, str] = Field(default_factory=dict, description="quantity -> literal in the cell source")
    explanations: dict[str, str] = Field(default_factory=dict, description="grade_id -> markdown text")
    tampered_cells: list[str] = Field(default_factory=list)
    unanswered_cells: list[str] = Field(default_factory=list, description="solution cells left as released")
    duplicate_cells: list[str] = Field(default_factory=list)
    missing_cells: list[str] = Field(default_factory=list)
    student_device: str | None = None
    student_device_name: str | None = None
    errors: list[str] = Field(default_factory=list)


def _ledger_copies(nb: Any, lesson_id: str) -> tuple[list[Any], list[str]]:
    copies: list[Any] = []
    problems: list[str] = []
    for cell in nb.get("cells", []):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        outputs = cell.get("outputs", [])
        if not isinstance(outputs, list):
            continue
        for out in outputs:
            data = out.get("data") if isinstance(out, dict) else None
            if not isinstance(data, dict) or LEDGER_MIME not in data:
                continue
            payload = data[LEDGER_MIME]
            if isinstance(payload, str):
                try:
                    payload = json.loads(payload)
                except ValueError:
                    problems.append("a ledger output is not valid JSON")
                    continue
            if not isinstance(payload, dict):
                problems.append("a ledger output is not an object")
                continue
            if payload.get("lesson") != lesson_id:
                problems.append(f"a ledger output belongs to lesson {payload.get('lesson')!r}, not {lesson_id!r}")
                continue
            copies.append(payload.get("chain"))
    return copies, problems


def _source_values(nb: Any) -> dict[str, str]:
    """Literal values in ``*.predict("quantity", VALUE, ...)`` calls of the cell sources."""
    out: dict[str, str] = {}
    for cell in nb.get("cells", []):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else str(src)
        if "predict" not in src:
            continue
        try:
            tree = ast.parse(src)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "predict"
                and len(node.args) >= 2
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                try:
                    out[node.args[0].value] = repr(ast.literal_eval(node.args[1]))
                except (ValueError, TypeError, SyntaxError, RecursionError):
                    out[node.args[0].value] = ast.unparse(node.args[1])[:80]
    return out


def _cells(nb: Any, spec: LessonSpec) -> tuple[dict[str, str], list[str], list[str], list[str], list[str]]:
    expected = set(spec.grade_ids.values()) | {e.grade_id for e in spec.explanations}
    explanation_ids = {e.grade_id for e in spec.explanations}
    texts: dict[str, str] = {}
    tampered: list[str] = []
    unanswered: list[str] = []
    seen: set[str] = set()
    duplicates: set[str] = set()
    for cell in nb.get("cells", []):
        if not isinstance(cell, dict):
            continue
        meta = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell.get("metadata"), dict) else {}
        if not isinstance(meta, dict):
            continue
        gid = meta.get("grade_id")
        if not isinstance(gid, str):
            continue
        if gid in seen:
            duplicates.add(gid)
        seen.add(gid)
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else str(src)
        if gid in explanation_ids:
            texts[gid] = src
        if not meta.get("checksum"):
            continue
        try:
            same = cell_checksum({**cell, "source": src}) == meta["checksum"]
        except Exception:
            same = False
        if meta.get("locked") and not same:
            tampered.append(gid)
        elif meta.get("solution") and same:
            unanswered.append(gid)
    return texts, sorted(tampered), sorted(expected - seen), sorted(unanswered), sorted(duplicates)


def read_notebook_node(nb: Any, spec: LessonSpec, sha256: str | None = None) -> SubmissionReading:
    """Everything grading needs from a parsed notebook (a dict or NotebookNode)."""
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        return SubmissionReading(sha256=sha256, errors=["the file is JSON but not a Jupyter notebook (no cell list)"])
    errors: list[str] = []
    major = nb.get("nbformat")
    if not isinstance(major, int) or major < 4:
        errors.append(f"notebook format {major!r} is too old (nbformat 4 is required); re-save it in Jupyter")
    copies, problems = _ledger_copies(nb, spec.id)
    verdict, entries = verify_chains(copies)
    if problems and verdict.status == "ok":
        verdict = verdict.model_copy(update={"reasons": problems})
    texts, tampered, missing, unanswered, duplicates = _cells(nb, spec)
    device = device_name = None
    for e in entries:
        if e.kind in ("measurement", "genesis") and e.meta.get("device_key"):
            device, device_name = e.meta["device_key"], e.meta.get("device_name")
    return SubmissionReading(
        sha256=sha256,
        verdict=verdict,
        entries=entries,
        source_values=_source_values(nb),
        explanations=texts,
        tampered_cells=tampered,
        missing_cells=missing,
        unanswered_cells=unanswered,
        duplicate_cells=duplicates,
        student_device=device,
        student_device_name=device_name,
        errors=errors,
    )


def read_notebook_bytes(data: bytes, spec: LessonSpec) -> SubmissionReading:
    sha = hashlib.sha256(data).hexdigest()
    if not data.strip():
        return SubmissionReading(sha256=sha, errors=["the notebook file is empty"])
    if len(data) > MAX_NOTEBOOK_BYTES:
        return SubmissionReading(
            sha256=sha, errors=[f"the notebook is {len(data) >> 20} MiB, over the {MAX_NOTEBOOK_BYTES >> 20} MiB limit"]
        )
    try:
        raw = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        return SubmissionReading(sha256=sha, errors=["the notebook file is not UTF-8 text"])
    except (ValueError, RecursionError):
        return SubmissionReading(sha256=sha, errors=["the notebook file is not valid JSON (is it a notebook?)"])
    return read_notebook_node(raw, spec, sha)
