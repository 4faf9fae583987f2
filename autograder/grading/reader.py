"""Read a submitted notebook into what grading needs, before anything (ClearOutput) wipes it.

Never raises on student input: a file that is not a notebook is a reading with errors, not an exception.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from typing import Any

from pydantic import Field

from ..files.safe_read import MAX_SUBMISSION_BYTES
from ..ledger import verify_chains
from ..records import LEDGER_MIME, ChainVerdict, LedgerEntry
from ..records._base import Record
from ..spec import LessonSpec
from .checksum import cell_checksum

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_LEDGER_ENTRIES",
    "MAX_NOTEBOOK_BYTES",
    "NOTEBOOK_KEYS",
    "SubmissionReading",
    "answer_sources",
    "normalized_cells",
    "parse_notebook_bytes",
    "read_notebook_bytes",
    "read_notebook_node",
]

MAX_NOTEBOOK_BYTES = MAX_SUBMISSION_BYTES
#: entries one ledger output may hold: a lesson records one per prediction, measurement or restart (tens);
#: verifying 300,000 would take most of a submission's deadline
MAX_LEDGER_ENTRIES = 20_000
#: a cell longer than this is not parsed for the literal of its predict() call (a prediction cell is a few
#: lines; parsing megabytes of code costs seconds and memory)
MAX_PREDICTION_SOURCE = 64 << 10
MAX_JSON_DEPTH = 64  # a real notebook nests about 8 deep; nbformat's validator recurses per level
_CELL_ID = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")
#: the top-level keys nbformat 4's schema allows (``additionalProperties: false``)
NOTEBOOK_KEYS = frozenset({"cells", "metadata", "nbformat", "nbformat_minor"})


class SubmissionReading(Record):
    sha256: str | None = None
    verdict: ChainVerdict = ChainVerdict(status="missing")
    entries: list[LedgerEntry] = Field(default_factory=list)
    source_values: dict[str, str] = Field(default_factory=dict, description="quantity -> literal in the cell source")
    explanations: dict[str, str] = Field(default_factory=dict, description="grade_id -> markdown text")
    answers: dict[str, str] = Field(default_factory=dict, description="grade_id -> code of a student variant's cell")
    tampered_cells: list[str] = Field(default_factory=list)
    unanswered_cells: list[str] = Field(default_factory=list, description="solution cells left as released")
    duplicate_cells: list[str] = Field(default_factory=list)
    missing_cells: list[str] = Field(default_factory=list)
    student_device: str | None = None
    student_device_name: str | None = None
    student_meta: dict[str, str] = Field(
        default_factory=dict, description="what the student's last measurement recorded of their setup"
    )
    errors: list[str] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list, description="flags of the file itself, for the record")
    problem: str | None = Field(
        default=None,
        description="kind of malformed file (empty | too_large | refused | not_utf8 | not_json | too_deep | "
        "not_notebook | old_format | new_format | invalid_cell_ids); None for a well-formed notebook",
    )

    @property
    def unreadable(self) -> bool:
        """The notebook cannot be graded from its content: it is graded as the released notebook handed in
        untouched, with this reading's errors (both grading paths; see grading/state.py)."""
        return self.problem not in (None, "invalid_cell_ids")


def _ledger_copies(nb: Any, lesson_id: str) -> tuple[list[Any], list[str], list[int]]:
    """(the chain of every ledger output of this lesson, problems of the others, lengths of chains too long
    to be read)."""
    copies: list[Any] = []
    problems: list[str] = []
    oversized: list[int] = []
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
            chain = payload.get("chain")
            if isinstance(chain, list) and len(chain) > MAX_LEDGER_ENTRIES:
                oversized.append(len(chain))
                continue
            copies.append(chain)
    return copies, problems, oversized


def _source_values(nb: Any) -> dict[str, str]:
    """Literal values in ``*.predict("quantity", VALUE, ...)`` calls of the cell sources."""
    out: dict[str, str] = {}
    for cell in nb.get("cells", []):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else str(src)
        if "predict" not in src or len(src) > MAX_PREDICTION_SOURCE:
            continue
        try:
            tree = ast.parse(src)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
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


def _meta(cell: Any) -> dict[str, Any]:
    meta = cell.get("metadata", {}) if isinstance(cell, dict) else {}
    nbg = meta.get("nbgrader", {}) if isinstance(meta, dict) else {}
    return nbg if isinstance(nbg, dict) else {}


def _source(cell: dict[str, Any]) -> str:
    src = cell.get("source", "")
    if isinstance(src, list):
        return "".join(x for x in src if isinstance(x, str))
    return src if isinstance(src, str) else ""


def _first_by_grade_id(cells: list[Any]) -> tuple[dict[str, dict[str, Any]], list[str], list[str]]:
    """(grade_id -> the student's first cell with it, every grade_id seen, grade_ids seen twice or more)."""
    first: dict[str, dict[str, Any]] = {}
    seen: list[str] = []
    duplicates: set[str] = set()
    for cell in cells:
        gid = _meta(cell).get("grade_id")
        if not isinstance(gid, str):
            continue
        if gid in first:
            duplicates.add(gid)
            continue
        first[gid] = cell
        seen.append(gid)
    return first, seen, sorted(duplicates)


def _extra_cells(cells: list[Any], release: Any) -> dict[str | None, list[dict[str, Any]]]:
    """The student's own cells (no grade_id, not a copy of a released cell), rebuilt as fresh valid cells and
    keyed by the grade_id of the answer or test cell they followed (None: before any)."""
    released_ids = {c.get("id") for c in release.get("cells", []) if isinstance(c, dict)}
    known = {g for g in (_meta(c).get("grade_id") for c in release.get("cells", [])) if isinstance(g, str)}
    out: dict[str | None, list[dict[str, Any]]] = {}
    after: str | None = None
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        gid = _meta(cell).get("grade_id")
        if isinstance(gid, str):
            if gid in known:
                after = gid
            continue
        if cell.get("id") in released_ids and isinstance(cell.get("id"), str):
            continue
        kind = cell.get("cell_type")
        if kind == "code":
            out.setdefault(after, []).append(_fresh_cell("code", _source(cell)))
        elif kind == "markdown":
            out.setdefault(after, []).append(_fresh_cell("markdown", _source(cell)))
    return out


def normalized_cells(nb: Any, release: Any) -> list[dict[str, Any]]:
    """The notebook as both grading paths judge (and the native path executes) it: the released cells in
    the released order, each answer cell holding the student's text (from the first cell with its grade_id),
    every other released cell as released, and the student's own extra cells after the graded cell they
    followed. Reordered, duplicated, renamed, deleted or junk cells therefore get one policy: answers count
    where they are found, tests run in the released order, and a deleted or renamed test cell still scores
    0 (SubmissionReading.missing_cells)."""
    cells = nb.get("cells") if isinstance(nb, dict) else None
    cells = cells if isinstance(cells, list) else []
    first, _, _ = _first_by_grade_id(cells)
    extra = _extra_cells(cells, release)
    out: list[dict[str, Any]] = list(extra.get(None, []))
    for rcell in release.get("cells", []):
        cell = json.loads(json.dumps(rcell))
        meta = _meta(rcell)
        gid = meta.get("grade_id")
        if meta.get("solution") and not meta.get("locked") and isinstance(gid, str) and gid in first:
            cell["source"] = _source(first[gid])
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
        out.append(cell)
        out.extend(extra.get(gid, []) if isinstance(gid, str) else [])
    return out


def _cells(
    nb: Any, spec: LessonSpec, release: Any | None
) -> tuple[dict[str, str], list[str], list[str], list[str], list[str]]:
    expected = set(spec.grade_ids.values()) | {e.grade_id for e in spec.explanations}
    explanation_ids = {e.grade_id for e in spec.explanations}
    raw = [c for c in nb.get("cells", []) if isinstance(c, dict)]
    first, seen, duplicates = _first_by_grade_id(raw)
    tampered = []
    for gid, cell in first.items():
        meta = _meta(cell)
        if meta.get("locked") and meta.get("checksum") and not _same_checksum(cell, meta["checksum"]):
            tampered.append(gid)
    judged = normalized_cells(nb, release) if release is not None else list(first.values())
    texts: dict[str, str] = {}
    unanswered: list[str] = []
    for cell in judged:
        meta = _meta(cell)
        cid = meta.get("grade_id")
        if not isinstance(cid, str):
            continue
        gid = cid
        if gid in explanation_ids and (release is None or gid in first):
            texts[gid] = _source(cell)
        if meta.get("solution") and meta.get("checksum") and _same_checksum(cell, meta["checksum"]):
            unanswered.append(gid)
    return texts, sorted(tampered), sorted(expected - set(seen)), sorted(unanswered), duplicates


def _same_checksum(cell: dict[str, Any], checksum: Any) -> bool:
    try:
        return bool(cell_checksum({**cell, "source": _source(cell)}) == checksum)
    except Exception:
        return False


def _fresh_cell(kind: str, source: str) -> dict[str, Any]:
    """A valid nbformat 4.5 cell of the student's text (what nbformat.v4.new_*_cell make, without importing
    nbformat: a student's `autograder check` must start fast)."""
    import uuid

    cell: dict[str, Any] = {"cell_type": kind, "id": uuid.uuid4().hex[:8], "metadata": {}, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _bad_cell_ids(cells: list[Any]) -> list[int]:
    """Indices of cells whose nbformat 4.5 id is not 1-64 of [a-zA-Z0-9-_] or repeats an earlier id."""
    bad: list[int] = []
    ids: set[str] = set()
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict) or "id" not in cell:
            continue
        cid = cell["id"]
        if not isinstance(cid, str) or not _CELL_ID.match(cid) or cid in ids:
            bad.append(i)
        else:
            ids.add(cid)
    return bad


def _depth_over(value: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if d > limit:
            return True
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values() if isinstance(x, (dict, list)))
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v if isinstance(x, (dict, list)))
    return False


def _refused(sha256: str | None, problem: str, message: str) -> SubmissionReading:
    return SubmissionReading(sha256=sha256, problem=problem, errors=[message])


def read_notebook_node(
    nb: Any, spec: LessonSpec, sha256: str | None = None, release: Any | None = None
) -> SubmissionReading:
    """Everything grading needs from a parsed notebook (a dict or NotebookNode). With the ``release``
    notebook, answer cells are judged as in :func:`normalized_cells` (what the native path executes)."""
    if not isinstance(nb, dict):
        return _refused(sha256, "not_notebook", "the file is JSON but not a Jupyter notebook (not a JSON object)")
    major, minor = nb.get("nbformat"), nb.get("nbformat_minor")
    if isinstance(major, int) and not isinstance(major, bool) and major != 4:
        shown = f"{major}.{minor}" if isinstance(minor, int) else str(major)
        if major < 4:
            return _refused(
                sha256, "old_format",
                f"notebook format {shown} is too old (nbformat 4 is required); open it in Jupyter and save it again",
            )
        return _refused(sha256, "new_format", f"notebook format {shown} is newer than this grader reads (nbformat 4)")
    if not isinstance(nb.get("cells"), list):
        return _refused(sha256, "not_notebook", "the file is JSON but not a Jupyter notebook (no cell list)")
    errors: list[str] = []
    flags: list[str] = []
    problem = None
    extra = sorted(str(k) for k in nb if k not in NOTEBOOK_KEYS)
    if extra:
        flags.append("notebook_extra_keys")
        named = ", ".join(ascii(k)[:40] for k in extra[:5]) + (", …" if len(extra) > 5 else "")
        errors.append(
            f"the notebook has top-level key(s) nbformat 4 does not allow ({named}; only "
            f"{', '.join(sorted(NOTEBOOK_KEYS))}): they were ignored"
        )
    if major is None:
        errors.append("the notebook does not say its format version (nbformat); read as version 4")
    bad_ids = _bad_cell_ids(nb["cells"])
    if bad_ids:
        problem = "invalid_cell_ids"
        errors.append(
            f"{len(bad_ids)} cell id(s) are invalid or repeated (cells {', '.join(map(str, bad_ids[:5]))}): "
            "graded with the released cell ids"
        )
    copies, problems, oversized = _ledger_copies(nb, spec.id)
    verdict, entries = verify_chains(copies)
    if oversized:
        verdict, entries = ChainVerdict(status="broken", reasons=[
            f"a ledger output holds {max(oversized):,} entries, more than the {MAX_LEDGER_ENTRIES:,} a lesson "
            "ever records, so it was not read: the chain cannot be trusted"
        ]), []
        flags.append("ledger_too_long")
    elif problems and verdict.status == "ok":
        verdict = verdict.model_copy(update={"reasons": problems})
    texts, tampered, missing, unanswered, duplicates = _cells(nb, spec, release)
    device = device_name = None
    meta: dict[str, str] = {}
    for e in entries:
        if e.kind in ("measurement", "genesis") and e.meta.get("device_key"):
            device, device_name = e.meta["device_key"], e.meta.get("device_name")
            meta = {k: str(v) for k, v in e.meta.items() if k != "method"}
    return SubmissionReading(
        sha256=sha256,
        verdict=verdict,
        entries=entries,
        source_values=_source_values(nb),
        explanations=texts,
        answers=answer_sources(nb, spec, release),
        tampered_cells=tampered,
        missing_cells=missing,
        unanswered_cells=unanswered,
        duplicate_cells=duplicates,
        student_device=device,
        student_device_name=device_name,
        student_meta=meta,
        errors=errors,
        flags=flags,
        problem=problem,
    )


def parse_notebook_bytes(data: bytes, sha: str) -> Any | SubmissionReading:
    """The JSON of a notebook file, or the reading that says why it is not one (each kind its own verdict)."""
    if not data.strip():
        return _refused(sha, "empty", "the notebook file is empty")
    if len(data) > MAX_NOTEBOOK_BYTES:
        return _refused(
            sha, "too_large", f"the notebook is {len(data) >> 20} MiB, over the {MAX_NOTEBOOK_BYTES >> 20} MiB limit"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _refused(sha, "not_utf8", f"the notebook file is not UTF-8 text (byte {exc.start} is not)")
    try:
        raw = json.loads(text)
    except RecursionError:
        return _refused(sha, "too_deep", f"the notebook's JSON is nested too deeply (over {MAX_JSON_DEPTH} levels)")
    except ValueError as exc:
        where = f" (line {exc.lineno}, column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else ""
        return _refused(sha, "not_json", f"the notebook file is not valid JSON{where} (is it a notebook?)")
    if _depth_over(raw, MAX_JSON_DEPTH):
        return _refused(sha, "too_deep", f"the notebook's JSON is nested too deeply (over {MAX_JSON_DEPTH} levels)")
    return raw


def read_notebook_bytes(data: bytes, spec: LessonSpec, release: Any | None = None) -> SubmissionReading:
    sha = hashlib.sha256(data).hexdigest()
    raw = parse_notebook_bytes(data, sha)
    if isinstance(raw, SubmissionReading):
        return raw
    return read_notebook_node(raw, spec, sha, release)


def answer_sources(nb: Any, spec: LessonSpec, release: Any | None) -> dict[str, str]:
    """grade_id -> the source of the student variant's answer cell, as both paths judge the notebook (the
    first cell with that grade_id; :func:`normalized_cells` with the release)."""
    sv = spec.student_variant
    if sv is None or not isinstance(nb, dict):
        return {}
    cells = normalized_cells(nb, release) if release is not None else nb.get("cells", [])
    for cell in cells if isinstance(cells, list) else []:
        meta = cell.get("metadata", {}) if isinstance(cell, dict) else {}
        nbg = meta.get("nbgrader", {}) if isinstance(meta, dict) else {}
        if isinstance(nbg, dict) and nbg.get("grade_id") == sv.answer_cell and cell.get("cell_type") == "code":
            src = cell.get("source", "")
            return {sv.answer_cell: "".join(src) if isinstance(src, list) else str(src)}
    return {}
