"""Bare numbers (rule ``number.bare_inferred``): a figure a student writes without its unit and without a word
that names it ("gpu 71.1 vs 18.4", "tf32 352") is read in every unit a student leaves off and credited only
to within rounding of a figure its sentence is about; one that is no figure is not reported, and the numbers
of formulas, sizes and settings are not read at all. Probed against the frozen H200 references of the corpus."""

from __future__ import annotations

import pytest

from autograder.records import ExplanationGrade

from .test_explanation_false_credits import grade, lessons  # noqa: F401 - the fixture


def verdicts(g: ExplanationGrade) -> dict[str, str | None]:
    return {f.text: f.verdict for f in g.found}


@pytest.mark.parametrize(("lesson", "grade_id", "text", "right"), [
    ("04_fusion", "explain_headline", "eager 268, fused 67; gpu 71.1 vs 18.4.",
     ["268", "67", "71.1", "18.4"]),
    ("03_roofline", "explain_intensity", "The peak is 785 and the copy roofline 4.11e3.", ["785", "4.11e3"]),
])
def test_a_bare_right_figure_is_credited(lessons, lesson, grade_id, text, right):  # noqa: F811
    g = grade(lessons, lesson, grade_id, text)
    got = verdicts(g)
    assert {t: got.get(t) for t in right} == {t: "match" for t in right}, g.comment


@pytest.mark.parametrize(("lesson", "grade_id", "text", "bare"), [
    # a formula's constants, a size, a setting, a list item's number, a number matching nothing
    ("04_fusion", "explain_headline", "relu(x*2+1)*0.5 runs as 4 kernels moving 268 MB.", ["2", "1", "0.5"]),
    ("04_fusion", "explain_headline", "With BLOCK_SIZE of 1024 and N = 4096 it moves 268 MB in 4 kernels.",
     ["1024", "4096"]),
    ("04_fusion", "explain_headline", "1. eager moves 268 MB in 4 kernels\n2. the seed was 333.", ["1", "2", "333"]),
    # the operands of a quotient whose result is stated: the result is the figure
    ("03_roofline", "explain_intensity", "ridge ≈ 785 / 4.11 ≈ 191 FLOP/byte", ["785", "4.11"]),
])
def test_a_bare_number_that_is_no_figure_is_not_reported(lessons, lesson, grade_id, text, bare):  # noqa: F811
    g = grade(lessons, lesson, grade_id, text)
    got = verdicts(g)
    assert not set(bare) & set(got), g.comment


def test_a_bare_figure_of_the_other_timing_method_is_misattributed(lessons):  # noqa: F811
    g = grade(lessons, "04_fusion", "explain_headline", "eager moves 268 MB in 4 kernels; wall 71.1 vs 18.4.")
    got = verdicts(g)
    assert got.get("71.1") == "misattributed" and got.get("18.4") != "match", g.comment


def test_a_small_bare_number_needs_its_words(lessons):  # noqa: F811
    """1 to 10 are in every formula and list: bare, they are a count only beside a kernel word, a ratio only
    right after a ratio's word."""
    g = grade(lessons, "04_fusion", "explain_headline", "eager moves 268 MB; ratio 4; we tried 4 configs and 1 won.")
    got = verdicts(g)
    assert got.get("4") == "match" and list(got).count("4") == 1 and "1" not in got, g.comment


@pytest.mark.parametrize(("lesson", "grade_id", "text", "right"), [
    # numbers in words that no unit follows, a decimal with its scale, "and a half", a fraction in words
    ("03_roofline", "explain_intensity",
     "The add does only about sixteen point eight million floating point operations, the ridge is roughly one "
     "hundred ninety-one, and the add is at one sixth of a FLOP per byte.",
     ["sixteen point eight million floating point operations", "one hundred ninety-one", "one sixth"]),
    # units in words: terabytes per second, gibibytes; a small number in words named a ratio
    ("04_fusion", "explain_headline",
     "Eager moves two hundred sixty-eight megabytes in four kernels at about three point seven seven terabytes per "
     "second; fused moves sixty-four mebibytes, so the traffic ratio is four.",
     ["two hundred sixty-eight megabytes", "three point seven seven terabytes per second", "sixty-four mebibytes",
      "four"]),
])
def test_a_number_in_words_is_read(lessons, lesson, grade_id, text, right):  # noqa: F811
    g = grade(lessons, lesson, grade_id, text)
    got = verdicts(g)
    assert {t: got.get(t) for t in right} == {t: "match" for t in right}, g.comment


def test_one_small_word_stays_a_word(lessons):  # noqa: F811
    g = grade(lessons, "04_fusion", "explain_headline", "One of the two kernels moves 268 MB; the ratio of the two is "
              "what matters.")
    assert set(verdicts(g)) == {"268 MB"}, g.comment


def test_figures_without_units_cost_a_quarter(lessons):  # noqa: F811
    """Right figures written as bare numbers are credited, but an answer of them is not a full one: the reader
    must guess every unit; the reason says so. The same figures with units get full credit."""
    bare = grade(lessons, "04_fusion", "explain_headline",
                 "eager 268, fused 67; gpu 71.1 vs 18.4, the traffic ratio 4; per call dispatch dominates, so the "
                 "wall time of one call hides what fusion saves on the GPU; both near the roofline.")
    units = grade(lessons, "04_fusion", "explain_headline",
                  "eager 268 MB, fused 67 MB; gpu 71.1 µs vs 18.4 µs, the traffic ratio 4; per call dispatch dominates, "
                  "so the wall time of one call hides what fusion saves on the GPU; both near the roofline.")
    assert "no_units" in bare.flags and "Figures without units" in bare.comment, bare.comment
    assert units.suggested_fraction == 1.0 and "no_units" not in units.flags, units.comment
    assert bare.suggested_fraction == 0.75, bare.comment


def test_pasted_key_value_output_keeps_each_value_its_own_key(lessons):  # noqa: F811
    """'bytes=100663296  flops=137438953472': the word after a value is the next key, not the value's unit."""
    g = grade(lessons, "03_roofline", "explain_intensity",
              "```\nmatmul  bytes=100,663,296  flops=137,438,953,472  launches=1\n```")
    got = verdicts(g)
    assert got.get("100,663,296") == "match" and got.get("137,438,953,472") == "match", g.comment


def test_launches_saved_are_no_variants_count(lessons):  # noqa: F811
    g = grade(lessons, "04_fusion", "explain_headline", "Eager runs 4 kernels; fusing means saving three kernel "
              "launches, so the fused call runs one kernel.")
    got = verdicts(g)
    assert not any(t.startswith("three") for t in got) and got.get("4 kernels") == "match", g.comment


def test_bare_numbers_in_a_table_are_not_figures_without_units(lessons):  # noqa: F811
    """A table's header says the units its cells leave off: no 'Figures without units' for a table."""
    g = grade(lessons, "04_fusion", "explain_headline",
              "| variant | MB | GPU |\n|---|---|---|\n| eager | 268 | 71.1 |\n| fused | 67 | 18.4 |\n\n"
              "The traffic ratio is 4; per call dispatch dominates.")
    assert "no_units" not in g.flags, g.comment
