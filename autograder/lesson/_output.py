"""Emitting ledger outputs: a rich display in Jupyter (own MIME type + text), plain print elsewhere."""

from __future__ import annotations

from typing import Any

from ..records import LEDGER_MIME, LedgerEntry

try:  # IPython is there wherever Jupyter is; without it (a plain script) the API prints
    from IPython import get_ipython
    from IPython.display import display
except ImportError:  # pragma: no cover - every environment of this project has IPython
    get_ipython = None

__all__ = ["SHOWN_KEY", "ledger_bundle", "show_ledger", "show_text"]


#: output metadata key under which a measurement display lists the cases it shows (what
#: ``autograder lint --execute`` reads back from an executed notebook)
SHOWN_KEY = "autograder_shown"


def _display(bundle: dict[str, Any], metadata: dict[str, Any] | None = None) -> bool:
    if get_ipython is None or get_ipython() is None:
        return False
    display(bundle, raw=True, metadata=metadata)
    return True


def ledger_bundle(lesson_id: str, chain: list[LedgerEntry], text: str) -> dict[str, Any]:
    """The display data of one ledger output: the whole chain so far (so a re-run cell never loses
    history) under the ledger MIME type, and the message for the student."""
    return {LEDGER_MIME: {"lesson": lesson_id, "chain": [e.model_dump(mode="json") for e in chain]}, "text/plain": text}


def show_ledger(
    lesson_id: str, chain: list[LedgerEntry], text: str, shown: dict[str, Any] | None = None
) -> None:
    """``shown``: for a measurement, the device kind and cases it displays (kept in the output's metadata)."""
    bundle = ledger_bundle(lesson_id, chain, text)
    if not _display(bundle, {SHOWN_KEY: shown} if shown is not None else None):
        print(text)


def show_text(text: str) -> None:
    print(text)
