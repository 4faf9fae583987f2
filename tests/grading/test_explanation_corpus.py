"""The pre-reader against hand-written explanations of every explanation cell (tests/grading/
explanation_corpus/): each annotated number gets the credit a careful TA gives it, nothing else is read as
a number, and the suggested score lands in the TA's band. ``python benchmarks/explanation_matching.py``
prints precision and recall of the same corpus (and of the pre-reader before it read context)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from autograder.grading.references import ReferenceStore
from autograder.preread import grade_explanation
from autograder.spec import load_spec
from tests.grading.explanation_corpus import corpus, credit_checks, grade_of

REPO = Path(__file__).resolve().parents[2]
ENTRIES = corpus()
CATEGORIES = {"good", "partial", "wrong_numbers", "wrong_attribution", "adjectives", "unitless", "spellings",
              "wrong_conclusion", "context"}


@pytest.fixture(scope="module")
def lessons():
    # the H200 references the corpus was written against, frozen (the live ones in references/ get re-measured)
    store = ReferenceStore(REPO / "tests" / "grading" / "explanation_corpus" / "references")
    out = {}
    for lesson in sorted({e.lesson for e in ENTRIES}):
        spec = load_spec(REPO / "source" / lesson / "lesson.toml")
        out[lesson] = (spec, store.load(lesson, "nvidia-h200"))
    return out


def _grade(entry, lessons):
    spec, ref = lessons[entry.lesson]
    ex = next(x for x in spec.explanations if x.grade_id == entry.grade_id)
    # this corpus's grades judge the figures, not the parts the prompt asks (README: full = 3 right figures and
    # no wrong one), so it is read without the cell's parts; what a missing part costs is tested on its own
    # (test_explanation_false_credits.py, test_explanation_parts.py)
    return grade_explanation(entry.text, spec, ex.model_copy(update={"parts": []}), ref)


LESSONS = sorted(p.parent.name for p in (REPO / "source").glob("*/lesson.toml"))
BUNDLED = ("03_roofline", "04_fusion", "05_softmax")  # the lessons this repository ships: a corpus is required


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_explanation_cell_has_forty_entries_of_every_category(lesson):
    cells = Counter((e.lesson, e.grade_id) for e in ENTRIES)
    if lesson not in BUNDLED and lesson not in {e.lesson for e in ENTRIES}:
        pytest.skip(f"{lesson}: a course's own lesson without a hand-written explanation corpus "
                    f"(tests/grading/explanation_corpus/{lesson}.*.txt): its pre-read is not checked against one")
    for ex in load_spec(REPO / "source" / lesson / "lesson.toml").explanations:
        assert cells[(lesson, ex.grade_id)] >= 40, (
            f"{lesson} {ex.grade_id}: {cells[(lesson, ex.grade_id)]} hand-written explanations; a bundled lesson "
            f"needs 40 in tests/grading/explanation_corpus/{lesson}.{ex.grade_id}.txt (format: README.md there)"
        )
        kinds = {e.category for e in ENTRIES if (e.lesson, e.grade_id) == (lesson, ex.grade_id)}
        assert kinds == CATEGORIES, (lesson, ex.grade_id, CATEGORIES - kinds)
    assert len({e.name for e in ENTRIES}) == len(ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_each_number_gets_the_credit_a_ta_gives_it(entry, lessons):
    g = _grade(entry, lessons)
    wrong = [c for c in credit_checks(entry, g) if not c.ok]
    assert not wrong, "\n".join(
        f"{c.span.text if c.span else 'unannotated'}: TA {c.span.label if c.span else '-'}, pre-read {c.verdict}"
        for c in wrong
    ) + "\n" + g.comment
    assert grade_of(g.suggested_fraction) == entry.grade, g.comment


def test_misattributions_are_named_as_such(lessons):
    """Most numbers a TA calls misattributed are flagged as another variant's or case's figure (the rest
    earn nothing as unmatched); the floor is what benchmarks/explanation_matching.py measured."""
    labelled = flagged = 0
    for e in ENTRIES:
        g = _grade(e, lessons)
        for s in e.spans:
            if s.label == "misattributed":
                labelled += 1
                hit = [f for f in g.found if f.span and f.span[0] < s.end and s.start < f.span[1]]
                flagged += bool(hit) and hit[0].verdict == "misattributed"
    assert labelled >= 50 and flagged / labelled >= 0.95, (flagged, labelled)
