"""Emitting ledger outputs: a rich display in Jupyter (own MIME type + text), plain print elsewhere."""

from __future__ import annotations

from typing import Any

from ..records import LEDGER_MIME, LedgerEntry

__all__ = ["ledger_bundle", "show_ledger", "show_text"]


def _display(bundle: dict[str, Any]) -> bool:
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        return False
    if get_ipython() is None:
        return False
    display(bundle, raw=True)
    return True


def ledger_bundle(lesson_id: str, chain: list[LedgerEntry], text: str) -> dict[str, Any]:
    """The display data of one ledger output: the whole chain so far (so a re-run cell never loses
    history) under the ledger MIME type, and the message for the student."""
    return {LEDGER_MIME: {"lesson": lesson_id, "chain": [e.model_dump(mode="json") for e in chain]}, "text/plain": text}


def show_ledger(lesson_id: str, chain: list[LedgerEntry], text: str) -> None:
    bundle = ledger_bundle(lesson_id, chain, text)
    if not _display(bundle):
        print(text)


def show_text(text: str) -> None:
    print(text)
