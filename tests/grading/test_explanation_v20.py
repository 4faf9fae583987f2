"""What the spent twentieth blind set (benchmarks/explanation_heldout_v20) showed after its first run, probed
with sentences of our own against its frozen H200 references: a time or a byte count written to three digits
that is no figure of this lesson but one of a case another lesson explains (04's compiled 2^24 kernel, "17.4 µs";
its fused traffic, "67.1 MB", quoted in 03) is that lesson's figure, named misattributed
(rule ``subject.other_lesson_case_figure``); two digits say nothing of whose it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.preread import grade_explanation

from .test_explanation_false_credits import frozen, the

REPO = Path(__file__).resolve().parents[2]
LESSONS = ("03_roofline", "04_fusion", "05_softmax", "06_fused_kernel")


def grade(lessons, lesson: str, grade_id: str, text: str):
    """One explanation graded as formgrader does: with the course's other lessons' references beside its own."""
    spec, ref = lessons[lesson]
    ex = next(x for x in spec.explanations if x.grade_id == grade_id)
    others = {name: r for name, (_, r) in lessons.items() if name != lesson}
    return grade_explanation(text, spec, ex, ref, others=others)


@pytest.fixture(scope="module")
def twentieth():
    """Every lesson against the twentieth blind set's frozen H200 references."""
    return frozen(REPO / "benchmarks" / "explanation_heldout_v20" / "references", LESSONS)


def test_the_fusion_lessons_time_and_bytes_in_the_roofline_lesson_are_named_another_lessons(twentieth):
    g = grade(twentieth, "03_roofline", "explain_intensity",
              "The add is memory-bound: it moves 67.1 MB and takes 17.4 µs, far below the multiply's intensity.")
    for figure in ("67.1 MB", "17.4 µs"):
        f = the(g, figure)
        assert f.verdict == "misattributed" and "04_fusion" in (f.actually or ""), g.comment


def test_two_digits_say_nothing_of_whose_figure_it_is(twentieth):
    g = grade(twentieth, "03_roofline", "explain_intensity",
              "The add is memory-bound: it moves 67 MB and takes 17 µs, far below the multiply's intensity.")
    for figure in ("67 MB", "17 µs"):
        assert the(g, figure).verdict == "unmatched", g.comment


def test_the_lessons_own_figures_stay_credited(twentieth):
    g = grade(twentieth, "03_roofline", "explain_intensity",
              "The add is memory-bound: it moves 100.7 MB and takes 25.0 µs, far below the multiply's intensity.")
    assert the(g, "100.7 MB").verdict == "match", g.comment
    assert the(g, "25.0 µs").verdict == "match", g.comment


def test_the_roofline_lessons_bytes_in_the_fusion_lesson_are_named_another_lessons(twentieth):
    # 03's bf16 4096² add moves three 33.5 MB matrices: 100.7 MB, no figure of 04's cases
    g = grade(twentieth, "04_fusion", "explain_headline",
              "Eager moves 268 MB in 4 kernels; the fused kernel moves 100.7 MB in one.")
    f = the(g, "100.7 MB")
    assert f.verdict == "misattributed" and "03_roofline" in (f.actually or ""), g.comment


def test_a_speedup_or_traffic_ratio_called_fewer_flops_is_not_credited(twentieth):
    # the chain does the same arithmetic either way: "4x fewer FLOPs" is the traffic ratio (or the speedup)
    # written as a ratio of FLOPs, the misconception (rule cue.flop_ratio_after)
    g = grade(twentieth, "04_fusion", "explain_headline",
              "The fused kernel is faster because it does 4x fewer FLOPs than the eager chain.")
    f = the(g, "4x")
    assert f.verdict == "misattributed" and "FLOPs" in (f.actually or ""), g.comment
    ok = grade(twentieth, "04_fusion", "explain_headline",
               "The fused kernel is faster because it moves 4x fewer bytes than the eager chain.")
    assert the(ok, "4x").verdict == "match", ok.comment
