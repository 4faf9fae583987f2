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


def test_a_per_call_ratio_said_to_be_the_roofline_s_prediction_is_the_misconception(lessons):  # noqa: F811
    g = grade(lessons, "03_roofline", "explain_intensity",
              "I timed them with time.perf_counter around one call: 224 µs for the multiply and 40 µs for the add, "
              "so the multiply is 5.6x slower, which is the ratio the roofline predicts.")
    assert [f.verdict for f in g.found] == ["misattributed"] * 3, g.comment
    assert all("per-call wall figure" in (f.actually or "") for f in g.found), g.comment


def test_a_time_the_kernel_took_is_gpu_time(lessons):  # noqa: F811
    g = grade(lessons, "04_fusion", "explain_headline", "The fused kernel took 115 µs.")
    f = the(g, "115 µs")
    assert f.verdict == "misattributed" and "wall" in (f.actually or ""), g.comment


def test_the_model_s_launch_count_restated_is_no_credit_and_a_count_per_reduction_no_slip(lessons):  # noqa: F811
    g = grade(lessons, "05_softmax", "explain_long_rows",
              "The compiled version splits each reduction across many blocks: two kernels per reduction plus one "
              "pointwise pass, 5 kernels instead of the model's 1.")
    assert the(g, "5 kernels").verdict == "match", g.comment
    assert the(g, "1").verdict == "given" and "model" in (the(g, "1").matches or ""), g.comment
    assert the(g, "two kernels").verdict == "unchecked", g.comment
    # "each" after a count is the variant's kernels, one by one: still its count
    each = grade(lessons, "05_softmax", "explain_long_rows", "Eager's 5 kernels each spread the row over the GPU.")
    assert the(each, "5 kernels").verdict == "match", each.comment


def test_a_tile_shape_a_few_words_after_tiles_names_no_case(lessons):  # noqa: F811
    g = grade(lessons, "03_roofline", "explain_small",
              "cuBLAS cuts C into tiles, and if they are 128 by 128 that is 64 tiles for 132 SMs. That explains "
              "the 45 % of the peak.")
    assert all("2^7" not in f.about for f in g.found), g.comment
    spanish = grade(lessons, "03_roofline", "explain_small", "La salida son 64 bloques (tiles) de 128 x 128 para "
                    "132 SM, y alcanza el 45 % del pico.")
    assert the(spanish, "45 %").verdict == "match", spanish.comment
    # a real size is still a case where tiles are named after it
    at = grade(lessons, "03_roofline", "explain_small", "At 2048 it is split into 256 tiles and reaches 88 %.")
    assert "2^11" in the(at, "88 %").about, at.comment


def test_a_dtype_something_is_rounded_from_does_not_move_the_case(lessons):  # noqa: F811
    g = grade(lessons, "03_roofline", "explain_small",
              "TF32: tensor cores on rounded fp32, ~2x slower than bf16 here but far faster than fp32.")
    f = the(g, "2x")
    assert f.verdict == "match" and "tf32" in (f.matches or ""), g.comment


def test_a_factor_right_before_a_dtype_is_read(lessons):  # noqa: F811
    g = grade(lessons, "03_roofline", "explain_small", "TF32 gets 348 TFLOP/s, 6.8x fp32, on the tensor cores.")
    assert the(g, "6.8x").verdict == "match", g.comment
    typo = grade(lessons, "03_roofline", "explain_small", "There are 64 output tiels of 128x128 for 132 SMs. TF32 runs "
                 "at 348 TFLOP/s, 6.8x fp32.")
    assert the(typo, "6.8x").verdict == "match", typo.comment


def test_the_compiled_one_launches_is_a_pronoun_and_a_verb(lessons):  # noqa: F811
    g = grade(lessons, "05_softmax", "explain_long_rows",
              "The compiled one launches more kernels because it splits the reductions.")
    assert not g.found, g.comment
    count = grade(lessons, "04_fusion", "explain_headline", "The fused chain is one launch; its kernel runs in one launch.")
    assert [f.text for f in count.found].count("one launch") == 2, count.comment
