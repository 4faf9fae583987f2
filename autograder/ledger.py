"""The commitment chain: pure functions to extend it, verify it and read the predictions that count.

Each ledger output in a notebook carries the *whole* chain so far, so re-running a cell (which replaces
its old output) never loses history: the longest chain holds everything, and every other copy must be a
prefix of it.  Hashes make edits evident, not impossible: the student owns the file (docs/reliability.md).

Starting over is a link too (``restart``): it never removes anything. Predictions before the last restart
no longer count, while every measurement stays visible, so a prediction committed after starting over for
a quantity the student had already measured is marked ``started_over_after_measurement`` — unless it is
the very value they had committed before first measuring it (re-running an unchanged cell costs nothing).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from .records import ChainVerdict, LedgerEntry, Prediction

__all__ = [
    "GENESIS_PREV",
    "append",
    "committed_predictions",
    "entry_hash",
    "genesis",
    "measured_values",
    "restart_entries",
    "set_aside_predictions",
    "start_over",
    "verify_chains",
]

GENESIS_PREV = "0" * 64


def _canonical(fields: dict[str, Any]) -> bytes:
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str).encode()


def entry_hash(entry: LedgerEntry | dict[str, Any]) -> str:
    """sha256 over every field but ``hash`` itself, in canonical JSON (timestamps as ISO strings)."""
    data = entry.model_dump(mode="json") if isinstance(entry, LedgerEntry) else dict(entry)
    data.pop("hash", None)
    return hashlib.sha256(_canonical(data)).hexdigest()


def _make(**fields: Any) -> LedgerEntry:
    draft = LedgerEntry(hash="", **fields)
    return draft.model_copy(update={"hash": entry_hash(draft)})


def genesis(lesson_id: str, nonce: str, at: datetime) -> LedgerEntry:
    """First link; the random ``nonce`` makes every student's chain unique, so copies are detectable."""
    return _make(seq=0, kind="genesis", at=at, meta={"lesson": lesson_id, "nonce": nonce}, prev=GENESIS_PREV)


def append(
    chain: Sequence[LedgerEntry],
    kind: str,
    quantity: str | None,
    value: float | str | None,
    at: datetime,
    because: str | None = None,
    meta: dict[str, str] | None = None,
) -> LedgerEntry:
    """The next link after ``chain[-1]`` (the chain itself is not modified)."""
    if not chain:
        raise ValueError("append needs a chain that starts with a genesis entry")
    last = chain[-1]
    return _make(
        seq=last.seq + 1,
        kind=kind,
        quantity=quantity,
        value=value,
        because=because,
        at=at,
        meta=meta or {},
        prev=last.hash,
    )


def start_over(chain: Sequence[LedgerEntry], at: datetime, because: str | None = None) -> LedgerEntry:
    """The restart link after ``chain[-1]``: later predictions are committed afresh; nothing is removed."""
    return append(chain, "restart", None, None, at, because or None)


def restart_entries(chain: Sequence[LedgerEntry]) -> list[LedgerEntry]:
    return [e for e in chain if e.kind == "restart"]


def set_aside_predictions(chain: Sequence[LedgerEntry]) -> dict[str, Prediction]:
    """The predictions that counted just before the last restart (empty when the student never started
    over): what a student who did not commit a quantity again is told no longer counts."""
    last = max((i for i, e in enumerate(chain) if e.kind == "restart"), default=None)
    return {} if last is None else committed_predictions(chain[:last])


def _parse(raw: Any) -> tuple[list[LedgerEntry] | None, str | None]:
    if not isinstance(raw, list):
        return None, "a ledger output does not hold a list of entries"
    out: list[LedgerEntry] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            return None, f"ledger entry {i} is not an object"
        try:
            out.append(LedgerEntry.model_validate(item))
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"])
            return None, f"ledger entry {i} is malformed ({loc}: {first['msg']})"
    return out, None


def verify_chains(copies: Iterable[Any]) -> tuple[ChainVerdict, list[LedgerEntry]]:
    """Verify every ledger copy found in one notebook; return the verdict and the longest chain.

    The chain is returned even when it fails verification (the grading policy decides what an untrusted
    chain costs); it is empty only when nothing parseable was found. Never raises.
    """
    parsed: list[list[LedgerEntry]] = []
    for raw in copies:
        chain, err = _parse(raw)
        if err is not None:
            return ChainVerdict(status="broken", reasons=[err]), []
        assert chain is not None
        if chain:
            parsed.append(chain)
    if not parsed:
        return ChainVerdict(status="missing", reasons=["the notebook holds no committed predictions"]), []
    longest = max(parsed, key=len)
    reasons: list[str] = []
    if longest[0].kind != "genesis" or longest[0].prev != GENESIS_PREV or longest[0].seq != 0:
        reasons.append("the chain does not start with a genesis entry")
    for i, e in enumerate(longest):
        if e.seq != i:
            reasons.append(f"entry {i} has sequence number {e.seq}: entries were removed or reordered")
            break
        if i and e.prev != longest[i - 1].hash:
            reasons.append(f"entry {i} does not link to entry {i - 1}: the chain was spliced")
            break
        if i and e.kind == "genesis":
            reasons.append(f"entry {i} is a second genesis entry: two chains were joined")
            break
        if e.kind == "restart" and (e.quantity is not None or e.value is not None):
            reasons.append(f"entry {i} is a restart that carries a quantity or value: it was not made by start_over")
            break
        if e.kind in ("prediction", "measurement") and e.quantity is None:
            reasons.append(f"entry {i} is a {e.kind} of no quantity: it was not made by the lesson")
            break
    restarts = sum(e.kind == "restart" for e in longest)
    if reasons:
        return ChainVerdict(
            status="broken", entries=len(longest), genesis=longest[0].hash, restarts=restarts, reasons=reasons
        ), longest
    forged = [e.seq for e in longest if entry_hash(e) != e.hash]
    if forged:
        return ChainVerdict(
            status="forged",
            entries=len(longest),
            genesis=longest[0].hash,
            restarts=restarts,
            reasons=[f"entry {forged[0]} was edited after it was committed (its hash does not match)"],
        ), longest
    hashes = [e.hash for e in longest]
    for other in parsed:
        if [e.hash for e in other] != hashes[: len(other)]:
            return ChainVerdict(
                status="inconsistent",
                entries=len(longest),
                genesis=longest[0].hash,
                restarts=restarts,
                reasons=["two ledger outputs disagree: outputs from different runs or notebooks were mixed"],
            ), longest
    return ChainVerdict(status="ok", entries=len(longest), genesis=longest[0].hash, restarts=restarts), longest


def committed_predictions(chain: Sequence[LedgerEntry]) -> dict[str, Prediction]:
    """The last prediction per quantity since the last restart (the student's latest start).

    It is marked ``revised_after_measurement`` when a prediction committed after the quantity's first
    measurement since that start changed the value (re-running an unchanged cell is not a revision), and
    ``started_over_after_measurement`` when the quantity was measured before the restart and the value
    is not the one committed before its very first measurement.
    """
    missing = object()
    sealed: dict[str, object] = {}  # quantity -> the value in force when it was first measured, ever
    measured_ever: set[str] = set()
    measured_before_start: set[str] = set()
    first_measured: dict[str, int] = {}
    counts: dict[str, int] = {}
    latest: dict[str, LedgerEntry] = {}
    before: dict[str, float | str | None] = {}
    revised: set[str] = set()
    late_first: set[str] = set()
    for e in chain:
        if e.kind == "restart":
            measured_before_start |= measured_ever
            first_measured, counts, latest, before = {}, {}, {}, {}
            revised, late_first = set(), set()
            continue
        if e.quantity is None:
            continue
        q = e.quantity
        if e.kind == "measurement":
            if q not in measured_ever:
                sealed[q] = latest[q].value if q in latest else missing
                measured_ever.add(q)
            first_measured.setdefault(q, e.seq)
        elif e.kind == "prediction":
            counts[q] = counts.get(q, 0) + 1
            if q not in first_measured:
                before[q] = e.value
            elif q not in before or e.value != before[q]:
                revised.add(q)
                if q not in before:
                    late_first.add(q)
            latest[q] = e
    out: dict[str, Prediction] = {}
    for q, e in latest.items():
        out[q] = Prediction(
            quantity=q,
            value=e.value,
            because=e.because or "",
            at=e.at,
            seq=e.seq,
            revisions=counts[q] - 1,
            revised_after_measurement=q in revised,
            first_committed_after_measurement=q in late_first,
            started_over_after_measurement=q in measured_before_start and sealed.get(q, missing) != e.value,
        )
    return out


def measured_values(chain: Sequence[LedgerEntry]) -> dict[str, LedgerEntry]:
    """The latest measurement entry per quantity (what the student saw on their own device)."""
    out: dict[str, LedgerEntry] = {}
    for e in chain:
        if e.kind == "measurement" and e.quantity is not None:
            out[e.quantity] = e
    return out
