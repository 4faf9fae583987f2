"""What the seventh blind set (benchmarks/explanation_heldout_v7/) showed: a full answer's one or two slips among
many right figures, which a TA forgives."""

from __future__ import annotations

from autograder.preread.explanations import FORGIVING_FROM, SLIPS_PER_FACTS, suggest
from autograder.records import FoundNumber


def _found(verdict: str, matches: str | None = None) -> FoundNumber:
    return FoundNumber(text="1", value=1.0, unit="", kind="ratio", about="x", span=(0, 1), verdict=verdict,
                       matches=matches)


def test_one_slip_is_forgiven_per_three_right_facts_above_seven():
    """First 4 and 5 (measured on v3-v7); re-measured over all 21 spent sets with FACTS_FOR_FULL
    (benchmarks/suggestion_fit.py): one slip forgiven per three right facts above seven."""
    right = [_found("match", f"fact {i}") for i in range(9)]
    assert SLIPS_PER_FACTS == 3 and FORGIVING_FROM == 7
    assert suggest([*right[:8], _found("unmatched")])[0] == 1.0
    assert suggest([*right, _found("unmatched"), _found("misattributed"), _found("unmatched")])[0] == 1.0
    assert suggest([*right[:8], _found("unmatched"), _found("misattributed"), _found("unmatched")])[0] == 0.75
    # seven right facts and a wrong number: still partial (as five were, and the development corpus's wrongnum
    # entries)
    assert suggest([*right[:7], _found("unmatched")])[0] == 0.75
    assert suggest([*right[:5], _found("unmatched")])[0] == 0.75
