"""Checks that need the whole class: a commitment chain found in two students' notebooks was copied."""

from __future__ import annotations

from collections import defaultdict

from ..records import SubmissionGrade

__all__ = ["flag_shared_chains"]

FLAG = "chain_shared_with"


def flag_shared_chains(records: list[SubmissionGrade]) -> list[SubmissionGrade]:
    """Records whose flags change: every student whose chain's genesis (a random nonce) also appears in
    another student's notebook gets ``chain_shared_with:<the others>``. Flag only: who copied whom is
    for the instructor to decide."""
    by_genesis: dict[str, list[str]] = defaultdict(list)
    for r in records:
        if r.chain.genesis:
            by_genesis[r.chain.genesis].append(r.student)
    changed = []
    for r in records:
        others = sorted(s for s in by_genesis.get(r.chain.genesis or "", []) if s != r.student)
        flags = [f for f in r.flags if not f.startswith(FLAG + ":")]
        if others:
            flags.append(f"{FLAG}:{','.join(others)}")
        if flags != r.flags:
            changed.append(r.model_copy(update={"flags": flags}))
    return changed
