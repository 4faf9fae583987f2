"""What the spent eleventh blind set (benchmarks/explanation_heldout_v11) and the sets before it still showed after
preread10, each probed with sentences of our own against the eleventh set's frozen H200 references: figures of
another case, dtype or method credited because they lay within the loose tolerance of this case's (a speedup of
fp32 quoted as fp16's, float32's ridge point in a bf16 cell, 2048's rate as the peak), a ratio of FLOPs said as one
of times, a per-call time read against the peak, and a pair's first number whose variant was dropped."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.preread.explanations import NONE_DERIVED, NONE_MISSING, suggest
from autograder.records import FoundNumber

from .test_explanation_false_credits import frozen, grade, the

REPO = Path(__file__).resolve().parents[2]
LESSONS = ("03_roofline", "04_fusion", "05_softmax", "06_fused_kernel")


@pytest.fixture(scope="module")
def eleventh():
    """Every lesson against the eleventh blind set's frozen H200 references."""
    return frozen(REPO / "benchmarks" / "explanation_heldout_v11" / "references", LESSONS)


def test_a_three_digit_speedup_of_another_dtype_is_misattributed_not_credited(eleventh):
    # fp16 at 2^24: GPU-time speedup 3.97; fp32's is 3.671, quoted to its last digit
    g = grade(eleventh, "04_fusion", "explain_headline", "The GPU-time speedup came out at 3.67x at 2^24.")
    f = the(g, "3.67x")
    assert f.verdict == "misattributed" and "fp32" in (f.actually or ""), g.comment
    # the case's own figure, and a rounded one near it, are still credited
    for said in ("The GPU-time speedup came out at 3.97x at 2^24.", "The GPU-time speedup is about 3.9x."):
        g = grade(eleventh, "04_fusion", "explain_headline", said)
        assert g.found[0].verdict == "match", g.comment


def test_a_per_call_speedup_of_the_other_dtype_in_a_sweep_is_misattributed(eleventh):
    # fp16 2^28 per call: 3.44; fp32's reference wall speedup at 2^28 is 3.08
    g = grade(eleventh, "04_fusion", "explain_sweep", "At the top it is flat: 3.08x per call at 2^28 in fp16.")
    assert the(g, "3.08x").verdict == "misattributed", g.comment
    ok = grade(eleventh, "04_fusion", "explain_sweep", "At the top it is flat: 3.44x per call at 2^28 in fp16.")
    assert the(ok, "3.44x").verdict == "match", ok.comment


def test_another_dtypes_ridge_point_is_credited_only_where_the_sentence_names_that_dtype(eleventh):
    g = grade(eleventh, "03_roofline", "explain_intensity", "The ridge is about 12 FLOP/B, so the add is memory-bound.")
    f = the(g, "12 FLOP/B")
    assert f.verdict == "misattributed" and "float32" in (f.actually or ""), g.comment
    named = grade(eleventh, "03_roofline", "explain_intensity", "In float32 the ridge is about 12 FLOP/B.")
    assert the(named, "12 FLOP/B").verdict == "match", named.comment
    own = grade(eleventh, "03_roofline", "explain_intensity", "The ridge is about 180 FLOP/B.")
    assert the(own, "180 FLOP/B").verdict == "match", own.comment


def test_another_sizes_measured_rate_is_not_credited_as_the_peak(eleventh):
    g = grade(eleventh, "03_roofline", "explain_small",
              "The bf16 multiply at 1024 reaches 94 % of the peak (697 TFLOP/s), so it does not fall short.")
    assert the(g, "697 TFLOP/s").verdict == "misattributed", g.comment
    peak = grade(eleventh, "03_roofline", "explain_small", "The bf16 peak is 743 TFLOP/s.")
    assert the(peak, "743 TFLOP/s").verdict == "match", peak.comment


def test_a_ratio_of_flops_said_as_a_ratio_of_times_is_not_credited(eleventh):
    g = grade(eleventh, "03_roofline", "explain_intensity",
              "The multiply does 8192 times more FLOPs, so it should take 8192x longer.")
    assert the(g, "8192 times").verdict == "match", g.comment
    assert the(g, "8192x").verdict != "match", g.comment


def test_a_per_call_time_read_against_the_peak_with_a_number_before_peak_is_the_misconception(eleventh):
    g = grade(eleventh, "03_roofline", "explain_small",
              "I timed the 1024 multiply with CUDA events around a call: 42.3 µs, i.e. 2.15 GFLOP / 42.3 µs = "
              "51 TFLOP/s, only 7 % of the 743 TFLOP/s peak.")
    assert [f.verdict for f in g.found if f.text in ("42.3 µs", "51 TFLOP/s", "7 %")] == ["misattributed"] * 4, \
        g.comment


def test_the_first_number_of_a_pair_after_its_variant_and_verb_is_that_variants(eleventh):
    g = grade(eleventh, "04_fusion", "explain_headline",
              "Eager moves 268 MB; in GPU time fused took 65 µs against 262 µs.")
    assert the(g, "65 µs").verdict != "match", g.comment  # not eager's 69 µs: fused's is 17 µs
    ok = grade(eleventh, "04_fusion", "explain_headline", "Eager moves 268 MB; in GPU time fused took 17.4 µs against 69 µs.")
    assert the(ok, "17.4 µs").verdict == "match" and the(ok, "17.4 µs").of == "compiled", ok.comment


def _found(verdict: str, matches: str | None = None) -> FoundNumber:
    return FoundNumber(text="1", value=1.0, unit="", kind="ratio", about="x", span=(0, 1), verdict=verdict,
                       matches=matches)


def test_a_misattribution_with_most_of_the_asked_explanation_left_out_is_suggested_none():
    right = [_found("match", f"fact {i}") for i in range(NONE_DERIVED + 1)]
    assert suggest([*right[:2], _found("misattributed")], missing=NONE_MISSING)[0] == 0.0
    assert suggest([*right[:NONE_DERIVED], _found("misattributed")], missing=NONE_MISSING)[0] == 0.0
    # one part fewer left out, no misattribution (an unmatched figure), or more right facts: still some credit
    assert suggest([*right[:2], _found("unmatched")], missing=NONE_MISSING)[0] == 0.25
    assert suggest([*right[:2], _found("misattributed")], missing=NONE_MISSING - 1)[0] == 0.25
    assert suggest(right[:2], missing=NONE_MISSING)[0] == 0.25
    assert suggest([*right, _found("misattributed")], missing=NONE_MISSING)[0] == 0.25


def test_a_part_the_answer_says_it_leaves_out_is_missing(eleventh):
    said = ("Eager: 268 MB, 4 launches. Compiled: 67 MB, 1 launch. GPU-time speedup 3.97x, the traffic ratio 4; "
            "per call 0.93x because a call pays CPU-side launch cost that a graph replay does not.")
    g = grade(eleventh, "04_fusion", "explain_headline", said + " (No bandwidth given.)")
    assert "missing_part" in g.flags and "bandwidth" in g.comment, g.comment
    ok = grade(eleventh, "04_fusion", "explain_headline", said + " Both reach about the same bandwidth.")
    assert "missing_part" not in ok.flags and ok.suggested_fraction == 1.0, ok.comment
    assert g.suggested_fraction == 0.75, g.comment


def test_a_bound_said_as_an_adjective_is_of_the_variant_right_after_it(eleventh):
    g = grade(eleventh, "03_roofline", "explain_intensity",
              "The multiply has 1365 FLOP/B and the add 0.17 FLOP/B against a ridge of 180. Compute-bound multiply, "
              "memory-bound add.")
    assert "wrong_conclusion" not in g.flags, g.comment
    wrong = grade(eleventh, "03_roofline", "explain_intensity",
                  "The multiply has 1365 FLOP/B and the add 0.17 FLOP/B against a ridge of 180. Memory-bound multiply, "
                  "compute-bound add.")
    assert "wrong_conclusion" in wrong.flags, wrong.comment
