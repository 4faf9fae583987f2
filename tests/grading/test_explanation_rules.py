"""Every named rule of the pre-reader (autograder/preread/rules.py and the modules that register theirs) against
its own examples, one test per example: each example must be found by the rule's pattern, no counter-example
may be. A rule without examples, or two rules of one name, fail here."""

from __future__ import annotations

import pytest

import autograder.preread  # noqa: F401 - registers every rule
from autograder.preread.rules import RULES

CASES = [(r.name, text, True) for r in RULES.values() for text in r.examples]
CASES += [(r.name, text, False) for r in RULES.values() for text in r.counter]


def test_every_rule_has_a_name_a_purpose_and_examples():
    assert len(RULES) >= 60
    for r in RULES.values():
        assert r.name and "." in r.name and r.purpose and r.examples, r


@pytest.mark.parametrize(("name", "text", "found"), CASES, ids=[f"{n}:{'+' if f else '-'}{t!r}" for n, t, f in CASES])
def test_rule_example(name: str, text: str, found: bool) -> None:
    rule = RULES[name]
    assert (rule.search(text) is not None) == found, f"{name} ({rule.purpose}) on {text!r}"
