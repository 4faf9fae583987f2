"""What the sixth blind set (benchmarks/explanation_heldout_v6/) showed, each probed with sentences of our own
against the frozen H200 references of the corpus (tests/grading/explanation_corpus/references/): another dtype's
figure at the size where the lesson compares dtypes, factors and shares in words that compare no time or
traffic."""

from __future__ import annotations

from .test_explanation_false_credits import grade, lessons, the  # noqa: F401 - the fixture


def test_a_dtype_named_without_a_size_is_that_dtype_where_the_lesson_compares_dtypes(lessons):  # noqa: F811
    """explain_small is about n = 1024 in bf16 and asks why TF32 sits between bf16 and fp32: the lesson compares
    dtypes at n = 4096 (its quantity bf16_vs_fp32@4096), so "TF32 gets 348 TFLOP/s" is TF32's figure there."""
    g = grade(lessons, "03_roofline", "explain_small", "TF32 gets 348 TFLOP/s on the tensor cores, fp32 only 51 TFLOP/s.")
    assert the(g, "348 TFLOP/s").verdict == "match" and "tf32/2^12" in (the(g, "348 TFLOP/s").matches or "")
    assert the(g, "51 TFLOP/s").verdict == "match" and "fp32/2^12" in (the(g, "51 TFLOP/s").matches or "")
    # its figure at the cell's own size is still credited there
    assert "tf32/2^10" in (the(grade(lessons, "03_roofline", "explain_small", "TF32 gets 150 TFLOP/s."),
                               "150 TFLOP/s").matches or "")
    # a size the sentence names is not moved: 4096's figure said of 1024 is another case's
    named = grade(lessons, "03_roofline", "explain_small", "TF32 at n = 1024 gets 348 TFLOP/s.")
    assert the(named, "348 TFLOP/s").verdict == "misattributed", named.comment
    # a bare number is not moved to the compared size unless it is that figure to within a bare number's
    # tolerance, and never to a per-call (wall) figure there
    bare = grade(lessons, "03_roofline", "explain_small", "The tf32 peak is 495.")
    assert all(f.verdict != "match" for f in bare.found), bare.comment


def test_factors_and_shares_in_words_compare_times_or_traffic_only(lessons):  # noqa: F811
    g = grade(lessons, "03_roofline", "explain_small",
              "TF32 rounds operands that are half as many bytes as float32, and twice as wide as bf16's.")
    assert not [f for f in g.found if f.text in ("half", "twice")], g.comment
    fast = grade(lessons, "04_fusion", "explain_headline", "In GPU time the fused chain is almost four times faster.")
    assert the(fast, "four times").verdict == "match", fast.comment
