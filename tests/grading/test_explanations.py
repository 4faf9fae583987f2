import pytest

from autograder.grading.explanations import extract_numbers, grade_explanation

GOOD = (
    "Eager launches four kernels and each reads and writes a 32 MB tensor, so it moves 268 MB; the fused "
    "kernel moves 64 MiB in one launch. That 4x cut in traffic explains the 3.9x GPU-time speedup: both run "
    "near the 4,200 GB/s copy roofline."
)
WRONG = "Fusing saves memory: eager moves 100 MB and compiled moves 10 MB, so it is 10x faster with 3 kernels."
ADJECTIVES = "The compiled version is much faster because fusion is more efficient and avoids waste."


def test_units_are_normalized():
    found = {f.text: f for f in extract_numbers("1.5 GB, 64 MiB, 3,700 GB/s, 80 µs, 2 ms, two kernels, 3.9×, 4x")}
    assert found["1.5 GB"].value == 1.5e9 and found["64 MiB"].value == 64 * 2**20
    assert found["3,700 GB/s"].kind == "bandwidth" and found["3,700 GB/s"].value == 3700
    assert found["80 µs"].value == pytest.approx(0.08) and found["2 ms"].value == 2.0
    assert found["two kernels"].value == 2 and found["3.9×"].kind == "ratio"


def test_good_explanation_matches_the_model(spec, h200):
    g = grade_explanation(GOOD, spec, spec.explanations[0], h200)
    labels = {f.matches for f in g.found if f.matches}
    assert any("unfused traffic 8·N·s" in lbl for lbl in labels)
    assert any("fused traffic 2·N·s" in lbl for lbl in labels)
    assert "eager kernel launches" in labels and "fused kernel launches" in labels
    assert g.suggested_fraction == 1.0 and not g.flags
    assert "Suggested 3.00/3" in g.comment


def test_wrong_numbers_are_reported_unmatched(spec, h200):
    g = grade_explanation(WRONG, spec, spec.explanations[0], h200)
    assert g.found and g.matched == 0 and "numbers_unmatched" in g.flags
    assert g.suggested_fraction == 0.25
    assert "100 MB (no match in the model)" in g.comment


def test_adjectives_only_is_flagged(spec, h200):
    g = grade_explanation(ADJECTIVES, spec, spec.explanations[0], h200)
    assert g.flags == ["no_numbers"] and g.suggested_fraction == 0.0
    assert "adjectives" in g.comment


def test_blank_answer(spec, h200):
    assert grade_explanation("YOUR ANSWER HERE", spec, spec.explanations[0], h200).flags == ["blank"]
