"""What a number is said of, as the fourth blind set (benchmarks/explanation_heldout_v4/) showed it missed, each
probed with a sentence of our own against the frozen H200 references of the corpus: a parenthesis after a
variant's name, Italian names of the variants, a misspelt tiling, a row's bytes, a size in e-notation, and a
per-call figure read as the kernel's own (the lesson's misconception)."""

from __future__ import annotations

import pytest

from autograder.records import ExplanationGrade

from .test_explanation_false_credits import grade, lessons  # noqa: F401 - the fixture


def verdicts(g: ExplanationGrade) -> dict[str, str | None]:
    return {f.text: f.verdict for f in g.found}


@pytest.mark.parametrize(("lesson", "grade_id", "text", "right"), [
    # figures in a parenthesis opened right after a variant's name are that variant's
    ("04_fusion", "explain_headline", "The fused call is faster than eager (71.1 µs, 4 kernels, 268 MB) in GPU time.",
     ["71.1 µs", "4 kernels", "268 MB"]),
    # Italian names of the variants
    ("04_fusion", "explain_headline", "La versione eager lancia 4 kernel e sposta 268 MB; quella fusa legge e scrive "
     "una sola volta: 67 MB in 1 lancio.", ["4 kernel", "268 MB", "67 MB", "1 lancio"]),
    # a misspelt tiling is no case: the figures stay the cell's (n = 1024)
    ("03_roofline", "explain_small", "With 128x128 tiels only a few SMs work, and the kernal is only 6.1 µs long.",
     ["6.1 µs"]),
    # sizes in e-notation after 'N =' are the sweep's cases
    ("04_fusion", "explain_sweep", "N = 4.096e3: eager 6.55e4 B, fused 1.64e4 B. N = 2.68e8: eager 4.29e9 B.",
     ["6.55e4 B", "1.64e4 B", "4.29e9 B"]),
])
def test_said_of_the_right_subject(lessons, lesson, grade_id, text, right):  # noqa: F811
    g = grade(lessons, lesson, grade_id, text)
    got = verdicts(g)
    assert {t: got.get(t) for t in right} == {t: "match" for t in right}, g.comment


def test_a_rows_bytes_name_no_case(lessons):  # noqa: F811
    """'a row of 8 KB' is bytes, not a softmax of 8 columns: the figures after it stay the cell's case."""
    g = grade(lessons, "05_softmax", "explain_fusion",
              "Each program loads a row of 8 KB. Eager moves 268 MB in 5 kernels, compiled 67 MB in 1.")
    got = verdicts(g)
    assert got.get("268 MB") == "match" and got.get("67 MB") == "match", g.comment


def test_a_per_call_figure_read_as_the_kernels_is_misattributed(lessons):  # noqa: F811
    """The lesson's misconception: a call timed with events, its time read against the roofline as the
    kernel's. The same figure said of the call, with what the call pays besides its kernel, is right."""
    g = grade(lessons, "04_fusion", "explain_headline", "I timed one call of the fused version with CUDA events and "
              "it reaches only 582 GB/s against the 4180 GB/s roofline, so it is not memory-bound.")
    assert verdicts(g).get("582 GB/s") == "misattributed", g.comment
    ok = grade(lessons, "04_fusion", "explain_headline", "Per call the fused one only reaches 582 GB/s, since the "
               "call is mostly CPU dispatch overhead around an 18 µs kernel.")
    assert verdicts(ok).get("582 GB/s") == "match", ok.comment


@pytest.mark.parametrize(("lesson", "grade_id", "text", "wrong"), [
    # a GPU-time speedup at a size whose kernels run for tens of µs, explained by the launches saved: wrong
    ("04_fusion", "explain_headline", "Eager moves 268 MB in 4 kernels, fused 67 MB in 1. The 3.9x speedup comes "
     "from saving three kernel launches, which is what makes the fused version faster.", True),
    # the same words said of the small sizes, or of the per-call time, are right
    ("04_fusion", "explain_sweep", "At small sizes the fused one is faster in GPU time only because it saves "
     "three launches.", False),
    ("04_fusion", "explain_headline", "Eager moves 268 MB in 4 kernels. Per call the fused version is faster "
     "mostly from saving three launches of dispatch.", False),
])
def test_launches_saved_do_not_explain_a_long_kernels_speedup(lessons, lesson, grade_id, text, wrong):  # noqa: F811
    g = grade(lessons, lesson, grade_id, text)
    assert ("wrong_conclusion" in g.flags) is wrong, g.comment


@pytest.mark.parametrize(("text", "wrong"), [
    ("At n = 1024 the multiply does 341 FLOP/byte, above the 191 ridge; it misses L2, so the multiply becomes "
     "memory-bound.", True),
    ("At n = 1024 the multiply does 341 FLOP/byte, above the 191 ridge, so it is compute-bound; the add is "
     "memory-bound.", False),
    ("At n = 1024 the multiply does 341 FLOP/byte; it is not memory-bound, but the add would be.", False),
])
def test_a_bound_the_roofline_contradicts_is_a_wrong_conclusion(lessons, text, wrong):  # noqa: F811
    g = grade(lessons, "03_roofline", "explain_small", text)
    assert ("wrong_conclusion" in g.flags) is wrong, g.comment


def test_a_dtype_describing_inputs_does_not_move_the_case(lessons):  # noqa: F811
    """'TF32 ... on rounded float32 inputs: 352 TFLOP/s': TF32's figure, the float32 only says what it rounds."""
    g = grade(lessons, "03_roofline", "explain_small",
              "TF32 uses the tensor cores on rounded float32 inputs: 352 TFLOP/s at 4096.")
    assert verdicts(g).get("352 TFLOP/s") == "match", g.comment


def test_a_factor_that_is_a_power_of_two_names_no_case(lessons):  # noqa: F811
    """'a factor of 8192 between them' is a ratio's value: the figures after it stay at the cell's n = 4096."""
    g = grade(lessons, "03_roofline", "explain_intensity",
              "1365 FLOP/B vs 0.167 FLOP/B, a factor of 8192 between them. The add is 1/6 flop/byte and the multiply "
              "moves 100.7 MB.")
    got = verdicts(g)
    assert got.get("1/6 flop/byte") == "match" and got.get("100.7 MB") == "match", g.comment


def test_dispatch_said_gone_names_no_per_call_time(lessons):  # noqa: F811
    """'Now GPU time: here dispatch is gone, ... 71.1 µs': the GPU-time figure, not the per-call one; and a gain
    denied right after a sentence about the per-call time is about that time."""
    g = grade(lessons, "04_fusion", "explain_headline",
              "Now GPU time: here dispatch is gone, so eager takes 71.1 µs for four kernels.")
    assert verdicts(g).get("71.1 µs") == "match", g.comment
    per_call = grade(lessons, "04_fusion", "explain_headline",
                     "Per call (wall) eager moves 268 MB in 4 kernels. Those come out about equal, so fusion doesn't "
                     "help at all here.")
    assert "wrong_conclusion" not in per_call.flags, per_call.comment


def test_a_sentence_opening_with_a_pronoun_is_about_the_variant_before(lessons):  # noqa: F811
    """'The multiply ... It runs at 346 GFLOP/s': the multiply's rate (1000x off), never the add's 0.3 TFLOP/s."""
    g = grade(lessons, "03_roofline", "explain_small",
              "At n = 1024 the multiply does 341 FLOP/byte. It runs at 346 GFLOP/s, 45 % of the peak.")
    assert verdicts(g).get("346 GFLOP/s") != "match", g.comment


def test_a_topic_said_before_the_ratios_clause_rules_no_statistic_out(lessons):  # noqa: F811
    """'where eager moves 268 MB and fused 67 MB, I get 0.84x per call': the bytes are another clause's; the ratio
    is the measured (per-call) speedup."""
    g = grade(lessons, "04_fusion", "explain_headline",
              "At this size, where eager moves 268 MB and fused 67 MB, I get 0.84x per call.")
    assert verdicts(g).get("0.84x") == "match", g.comment


@pytest.mark.parametrize(("lesson", "grade_id", "text", "number", "verdict"), [
    # a variant's intensity over the ridge point, and one variant's over another's, are figures of the work model
    ("03_roofline", "explain_small", "At n = 1024 the multiply does 341 FLOP/byte, about 1.8x the ridge.", "1.8x",
     "match"),
    ("03_roofline", "explain_intensity", "1365 FLOP/B vs 0.167 FLOP/B, a factor of 8192 between the intensities.",
     "8192", "match"),
    # ... but not a ratio of times: said so, the intensity ratio is not credited
    ("03_roofline", "explain_intensity", "The ratio of times should be the ratio of the intensities: 1365 FLOP/byte "
     "/ 0.17 FLOP/byte ≈ 8000x.", "8000x", "unmatched"),
])
def test_ratios_of_intensities(lessons, lesson, grade_id, text, number, verdict):  # noqa: F811
    g = grade(lessons, lesson, grade_id, text)
    assert verdicts(g).get(number) == verdict, g.comment
