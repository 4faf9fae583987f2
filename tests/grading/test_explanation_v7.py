"""What the seventh blind set (benchmarks/explanation_heldout_v7/) showed: a full answer's one or two slips among
many right figures, which a TA forgives."""

from __future__ import annotations

from autograder.preread.explanations import FORGIVING_FROM, SLIPS_PER_FACTS, suggest
from autograder.records import FoundNumber


def _found(verdict: str, matches: str | None = None) -> FoundNumber:
    return FoundNumber(text="1", value=1.0, unit="", kind="ratio", about="x", span=(0, 1), verdict=verdict,
                       matches=matches)


def test_one_slip_is_forgiven_per_four_right_facts_above_five():
    right = [_found("match", f"fact {i}") for i in range(8)]
    assert SLIPS_PER_FACTS == 4 and FORGIVING_FROM == 5
    assert suggest([*right[:6], _found("unmatched")])[0] == 1.0
    assert suggest([*right, _found("unmatched"), _found("misattributed")])[0] == 1.0
    assert suggest([*right, _found("unmatched"), _found("misattributed"), _found("unmatched")])[0] == 0.75
    # five right facts and a wrong number: still partial (the development corpus's wrongnum entries)
    assert suggest([*right[:5], _found("unmatched")])[0] == 0.75
