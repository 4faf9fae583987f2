"""What the spent ninth blind set (benchmarks/explanation_heldout_v9) still showed after preread8, each probed
with sentences of our own against the frozen H200 references of the development corpus
(tests/grading/explanation_corpus/references/): numbers named misattributed that are right figures of what
their sentence is about."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_explanation_false_credits import frozen, grade, lessons, the  # noqa: F401 - the fixture

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ninth():
    """The fusion lesson against the ninth blind set's frozen H200 references (its sweep's per-call figures)."""
    return frozen(REPO / "benchmarks" / "explanation_heldout_v9" / "references", ("04_fusion",))


def test_a_bare_ratio_right_before_a_number_is_that_ratio_not_an_earlier_speedup(lessons):  # noqa: F811
    g = grade(lessons, "05_softmax", "explain_fusion",
              "Eager: 5 kernels, 268 MB. Compiled: 1 kernel, 67 MB. Speedup 3.2 < ratio 4 (the fused kernel is "
              "less efficient).")
    assert the(g, "4").verdict == "match" and "traffic" in (the(g, "4").matches or ""), g.comment
    timed = grade(lessons, "05_softmax", "explain_fusion",
                  "The compiled one reads x once and writes once: 67.1 MB, ratio 4.0. Times in GPU time: 131.5 µs "
                  "vs 41.1 µs.")
    assert the(timed, "4.0").verdict == "match", timed.comment
    # a speedup said as one is still not the traffic ratio
    said = grade(lessons, "05_softmax", "explain_fusion",
                 "Eager moves 268 MB in 5 kernels, compiled 67 MB in 1, so the compiled one is 4x faster.")
    assert the(said, "4x").verdict == "misattributed", said.comment


def test_a_ratio_said_of_flops_is_the_ratio_of_the_two_kernels_flops(lessons):  # noqa: F811
    g = grade(lessons, "03_roofline", "explain_intensity",
              "Both kernels move 100.7 MB, but the multiply does 137 GFLOP and the add 16.8 MFLOP, 8192 times "
              "more arithmetic.")
    f = the(g, "8192 times")
    assert f.verdict == "match" and "FLOPs over" in (f.matches or ""), g.comment
    # the FLOP ratio said as the ratio of times is the misconception, never credited
    timed = grade(lessons, "03_roofline", "explain_intensity",
                  "The multiply does 137.4 GFLOP vs 16.8 MFLOP for the add, so the multiply should take 8192 times "
                  "longer: time scales with FLOPs.")
    assert the(timed, "8192 times").verdict != "match", timed.comment


def test_a_case_named_after_a_new_statement_is_not_the_numbers(ninth):
    g = grade(ninth, "04_fusion", "explain_sweep",
              "At 2^12 the GPU time is tiny. Per call, though, both take about 75 µs (76 µs eager, 74 µs compiled): "
              "that is Python dispatch and launch latency, so the wall speedup is about 1.0x, and in the middle "
              "(2^16–2^22) it even drops to 0.67x.")
    assert the(g, "74 µs").verdict == "match", g.comment
    assert the(g, "1.0x").verdict != "misattributed", g.comment
    # a case right after its number in the same clause is still the number's
    tail = grade(ninth, "04_fusion", "explain_sweep", "The compiled call takes 74 µs per call at 2^12.")
    assert the(tail, "74 µs").verdict == "match", tail.comment


def test_a_ratios_own_than_right_after_it_names_what_it_is_set_against(lessons):  # noqa: F811
    g = grade(lessons, "05_softmax", "explain_long_rows",
              "The compiled version launches 5 kernels, but every one spreads across the SMs, so it is 2.7x faster "
              "than eager and 21x faster than the library.")
    assert the(g, "2.7x").verdict == "match", g.comment
    f = the(g, "21x")
    assert f.verdict == "match" and "torch_softmax" in (f.matches or ""), g.comment
    # the other way round is still named so
    wrong = grade(lessons, "05_softmax", "explain_long_rows", "The library is 21x faster than the compiled version.")
    assert the(wrong, "21x").verdict != "match", wrong.comment
