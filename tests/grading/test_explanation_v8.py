"""What the spent blind sets v3-v8 (benchmarks/explanation_heldout_v3 ... _v8) still showed after preread7, each
probed with sentences of our own against the frozen H200 references of the development corpus
(tests/grading/explanation_corpus/references/): numbers named misattributed that are right figures of what
their sentence is about, conclusions a TA marks down, and formats not read."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_explanation_false_credits import frozen, grade, lessons, the  # noqa: F401 - the fixture

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def kernel():
    """The four lessons against the seventh blind set's frozen H200 references (the development corpus has none
    of lesson 06)."""
    return frozen(REPO / "benchmarks" / "explanation_heldout_v7" / "references",
                  ("03_roofline", "04_fusion", "05_softmax", "06_fused_kernel"))


def test_a_launch_count_is_not_read_across_a_verb_a_joint_or_a_sentence_end(lessons):  # noqa: F811
    g = grade(lessons, "05_softmax", "explain_long_rows", "The compiled one has 5 launches.")
    assert [f.text for f in g.found] == ["5 launches"] and g.found[0].verdict == "match", g.comment
    sm = grade(lessons, "05_softmax", "explain_long_rows",
               "torch.softmax takes 208 µs on 1 SM. Eager launches 5 kernels.")
    assert "1 SM. Eager launches" not in [f.text for f in sm.found], sm.comment
    assert the(sm, "5 kernels").verdict == "match", sm.comment
    pronoun = grade(lessons, "05_softmax", "explain_long_rows",
                    "Eager: 5 kernels, and each one launches plenty of blocks over the row.")
    assert [f.text for f in pronoun.found] == ["5 kernels"], pronoun.comment


def test_a_count_set_against_another_is_the_model_s_count_restated_not_misattributed(lessons, kernel):  # noqa: F811
    for text in ("The compiled version splits each reduction (partials, then combine), hence 5 kernels, not 1.",
                 "La versione compilata divide ogni riduzione tra più blocchi: 5 kernel invece di 1."):
        g = grade(lessons, "05_softmax", "explain_long_rows", text)
        assert the(g, "1").verdict == "given" and "model" in (the(g, "1").matches or ""), g.comment
    # where the count is the variant's measured one too it is still credited (06: the fused kernel launches 1)
    own = grade(kernel, "06_fused_kernel", "explain_kernel", "Eager needs 4 kernels; my kernel 1 launch instead of 4.")
    assert the(own, "1 launch").verdict == "match", own.comment


def test_a_ratio_s_value_a_split_of_the_work_and_an_element_count_name_no_case(lessons):  # noqa: F811
    g = grade(lessons, "03_roofline", "explain_intensity",
              "The multiply does 137.4 GFLOP vs 16.8 MFLOP for the add, so the multiply should take 8192 times "
              "longer. Intensity 1365 vs 0.17 FLOP/B.")
    assert all("2^13" not in (f.about or "") for f in g.found), g.comment
    assert the(g, "137.4 GFLOP").verdict == the(g, "1365").verdict == "match", g.comment
    split = grade(lessons, "05_softmax", "explain_fusion",
                  "The compiled version does it all in one kernel per call, one row per program: 67.1 MB. Times in "
                  "GPU time: 131.5 µs vs 41.1 µs.")
    assert [f.verdict for f in split.found] == ["match"] * 4, split.comment


def test_a_launch_count_is_the_same_whichever_way_the_call_is_timed(lessons):  # noqa: F811
    g = grade(lessons, "05_softmax", "explain_long_rows",
              "Per call (wall) the compiled one is 145 us because of 5 launches plus guards.")
    assert the(g, "5 launches").verdict == "match", g.comment


def test_a_time_said_of_what_a_call_pays_besides_its_kernels_is_its_wall_time_less_its_gpu_time(kernel):
    """v7's compiled 2^24 call: 97.9 µs per call, 17.5 µs of GPU time; 80 µs is what it pays besides the kernel."""
    for text in ("Per call it is 0.93x: the compiled call pays about 80 us of python dispatch and guard checks on "
                 "top of the kernel.",
                 "The fused call spends ~80 us on the host (dispatch, guards) before its 17 us kernel."):
        g = grade(kernel, "04_fusion", "explain_headline", text)
        f = the(g, "80 us")
        assert f.verdict == "match" and "overhead" in (f.matches or "") and f.of == "compiled", g.comment
    # a time that is no such difference is not credited so, and one said of no overhead is judged as before
    off = grade(kernel, "04_fusion", "explain_headline", "The compiled call pays about 50 us of python dispatch.")
    assert the(off, "50 us").verdict != "match", off.comment
    plain = grade(kernel, "04_fusion", "explain_headline", "The compiled kernel takes 80 us.")
    assert the(plain, "80 us").verdict != "match", plain.comment


def test_a_figure_in_parentheses_after_a_variant_s_noun_phrase_is_that_variant_s(lessons):  # noqa: F811
    g = grade(lessons, "05_softmax", "explain_fusion", "It is 3.2x, because the fused kernel reaches a lower share of "
              "the roofline (38 %) than eager's simple streaming passes (48 %).")
    assert the(g, "38 %").verdict == the(g, "48 %").verdict == "match", g.comment
    italian = grade(lessons, "05_softmax", "explain_long_rows",
                    "torch.softmax prende 206 µs, 7,6 volte più lento dei 27,3 µs di eager.")
    assert the(italian, "27,3 µs").verdict == "match", italian.comment


def test_a_right_figure_of_a_case_its_sentence_names_is_never_misattributed(kernel):
    """explain_small asks why TF32 sits between bf16 and float32: "TF32 ... float32 ...: it ran at 384 TFLOP/s"
    is TF32's figure, though float32 was the last dtype named before it; the case a clause names itself wins."""
    g = grade(kernel, "03_roofline", "explain_small",
              "TF32 sits between bf16 and float32 because it still uses the tensor cores on rounded operands: at "
              "n = 4096 it ran at 384 TFLOP/s, about half of bf16's 761 and 7.5x plain float32's 51 TFLOP/s.")
    assert the(g, "384 TFLOP/s").verdict == "match" and "tf32" in (the(g, "384 TFLOP/s").matches or ""), g.comment
    tail = grade(kernel, "03_roofline", "explain_small",
                 "TF32 at 384 TFLOP/s sits between bf16 and fp32 (51 TFLOP/s).")
    assert the(tail, "384 TFLOP/s").verdict == "match", tail.comment
    possessive = grade(kernel, "03_roofline", "explain_small",
                       "TF32 at 4096: 358 µs vs float32's 2.69 ms and bf16's 180 µs.")
    assert [f.verdict for f in possessive.found] == ["match"] * 3, possessive.comment
    # a clause that names its own dtype keeps it: TF32's figure said of bf16 is still misattributed
    swapped = grade(kernel, "03_roofline", "explain_small", "At n = 4096 bf16 runs at 384 TFLOP/s, unlike TF32.")
    assert the(swapped, "384 TFLOP/s").verdict != "match", swapped.comment


def test_a_formula_s_value_after_equals_names_no_case(lessons):  # noqa: F811
    g = grade(lessons, "03_roofline", "explain_intensity",
              "The multiply does 137.4 GFLOP (2·4096³ = 2^37). The multiply is compute-bound (180 µs).")
    assert all("2^37" not in (f.about or "") for f in g.found), g.comment


def test_the_kernels_in_parentheses_are_gpu_time_and_said_per_call_a_kernel_s_time_is_wall(kernel):
    g = grade(kernel, "04_fusion", "explain_sweep",
              "At 2^28 per call it's 3.44x there, because the kernels (1.04 ms vs 0.26 ms) outlast the dispatch.")
    assert the(g, "1.04 ms").verdict == the(g, "0.26 ms").verdict == "match", g.comment
    per_call = grade(kernel, "06_fused_kernel", "explain_kernel",
                     "Per call my kernel takes 118 µs against eager's 279 µs, so my speedup is 2.36x.")
    assert the(per_call, "118 µs").verdict == "match" and "wall" in (the(per_call, "118 µs").matches or ""), \
        per_call.comment
    # "dispatch takes longer than the 17.5 µs kernel": the kernel's own time, GPU time
    kern = grade(kernel, "04_fusion", "explain_headline",
                 "Per call it is 0.93x, because the CPU dispatch and the guards take longer than the 17.5 us kernel.")
    assert the(kern, "17.5 us").verdict == "match" and "gpu" in (the(kern, "17.5 us").matches or ""), kern.comment


def test_a_ratio_that_moves_around_is_no_traffic(kernel):
    g = grade(kernel, "04_fusion", "explain_headline",
              "So wall time measures the CPU, and the 0.93x per call moves around from run to run with the dispatch.")
    assert the(g, "0.93x").verdict == "match", g.comment


def test_both_said_memory_bound_where_one_is_above_the_ridge_is_a_wrong_conclusion(kernel):
    g = grade(kernel, "03_roofline", "explain_intensity",
              "Both kernels move 100.7 MB; the multiply's intensity is 1365 FLOP/B, the add's 0.17 FLOP/B, the ridge "
              "~180 FLOP/B. Since they move the same bytes, both are memory-bound and the 7.2x ratio comes from the "
              "access pattern.")
    assert "wrong_conclusion" in g.flags and "compute-bound" in g.comment and g.suggested_fraction <= 0.5, g.comment
    right = grade(kernel, "03_roofline", "explain_intensity",
                  "The multiply's intensity is 1365 FLOP/B, the add's 0.17 FLOP/B, the ridge ~180 FLOP/B: the "
                  "multiply is compute-bound, the add memory-bound, so the multiply takes 7.2x longer.")
    assert "wrong_conclusion" not in right.flags, right.comment


def test_a_speedup_said_to_be_the_launch_ratio_where_kernels_are_long_is_the_misconception(kernel):
    g = grade(kernel, "06_fused_kernel", "explain_kernel",
              "My kernel moves 268 MB in 1 launch and eager 1,074 MB in 4. Mine took 65.2 µs, eager 262 µs, a 4.02x "
              "speedup. Each launch costs the same time, so the speedup is the launch ratio.")
    assert "wrong_conclusion" in g.flags and "bytes do" in g.comment, g.comment
    traffic = grade(kernel, "06_fused_kernel", "explain_kernel",
                    "My kernel moves 268 MB in 1 launch and eager 1,074 MB in 4. Mine took 65.2 µs, eager 262 µs, a "
                    "4.02x speedup: the speedup is the traffic ratio.")
    assert "wrong_conclusion" not in traffic.flags, traffic.comment


def test_a_wall_figure_given_as_the_figure_without_saying_per_call_is_misattributed(kernel):
    """v7's softmax 4096 x 4096: eager 157 µs and compiled 109 µs per call, 131.5 / 41.1 µs of GPU time. Given as
    the time and the speedup with no word of per call, the wall figures are not the kernels' (the prompt's
    speedup is GPU time)."""
    g = grade(kernel, "05_softmax", "explain_fusion",
              "Eager moves 268 MB in 5 launches and compiled 67 MB in 1. Eager takes 157 µs and the compiled one "
              "109 µs, a speedup of only 1.44x, far below the traffic ratio 4x.")
    for text in ("157 µs", "109 µs", "1.44x"):
        f = the(g, text)
        assert f.verdict == "misattributed" and "does not say is per call" in (f.actually or ""), g.comment
    # said per call, in the sentence or earlier in its paragraph, they are right figures
    said = grade(kernel, "05_softmax", "explain_fusion",
                 "Timed per call, eager takes 157 µs. The compiled one takes 109 µs, so 1.44x.")
    assert [f.verdict for f in said.found] == ["match"] * 3, said.comment
    # a GPU-time cue named after the per-call one takes over
    gpu = grade(kernel, "05_softmax", "explain_fusion",
                "Per call eager takes 157 µs; in GPU time it is 131.5 µs. The compiled one takes 109 µs.")
    assert the(gpu, "109 µs").verdict == "misattributed", gpu.comment
    # pasted output is named by its header, not judged so
    pasted = grade(kernel, "05_softmax", "explain_fusion", "```\neager    wall_us 157.0\ncompiled wall_us 109.0\n```\n"
                   "Fusion removes three quarters of the bytes.")
    assert all(f.verdict != "misattributed" for f in pasted.found), pasted.comment


def test_latex_subscripts_and_other_languages_name_the_timing_method(kernel):
    g = grade(kernel, "04_fusion", "explain_sweep", r"Middle: $S_{\text{wall}}(2^{20}) = 0.67$; $S_{\text{GPU}} = 2.82$.")
    assert [f.verdict for f in g.found] == ["match", "match"], g.comment
    assert "wall" in (g.found[0].matches or "") and "gpu" in (g.found[1].matches or ""), g.comment


def test_half_of_a_ceiling_or_of_a_named_figure_is_a_share_of_one_half(kernel):
    """Read as a bare number is (to within rounding: 'about half' of a 0.485 share is not checked)."""
    g = grade(kernel, "03_roofline", "explain_small",
              "At n = 4096 TF32 ran at 384 TFLOP/s, about half of bf16's 761.")
    assert the(g, "half").verdict == "match", g.comment
    # not a share of anything the lessons measure
    idle = grade(kernel, "03_roofline", "explain_small", "64 tiles leave about half of the 132 SMs empty.")
    assert all(f.text != "half" for f in idle.found), idle.comment


def test_a_figure_in_a_unit_a_thousand_off_is_wrong_not_another_variant_s(kernel):
    """v7's rs12: the 1024 multiply's 360 TFLOP/s written GFLOP/s was named the add's FLOP rate."""
    g = grade(kernel, "03_roofline", "explain_small", "The multiply reaches 360 GFLOP/s, 47 % of peak.")
    f = the(g, "360 GFLOP/s")
    assert f.verdict == "unmatched" and f.actually is None, g.comment
    right = grade(kernel, "03_roofline", "explain_intensity", "The multiply reaches 760 TFLOP/s at n = 4096.")
    assert the(right, "760 TFLOP/s").verdict == "match", right.comment


def test_a_count_of_elements_written_otherwise_names_the_case_the_lesson_reads_in_n_elements(kernel):
    for text in ("Start tiny: 4096 fp16 elements is 8 KB. In GPU time eager is 4.56 µs and fused 1.09 µs.",
                 "Bei 4096 Elementen ist alles Startaufwand. In GPU-Zeit braucht eager 4.56 µs und fused 1.09 µs.",
                 "At 4096 elemnts both are launch-bound. In GPU time eager is 4.56 µs and fused 1.09 µs."):
        g = grade(kernel, "04_fusion", "explain_sweep", text)
        assert the(g, "4.56 µs").verdict == the(g, "1.09 µs").verdict == "match", g.comment
        assert "2^12" in (the(g, "4.56 µs").about or ""), g.comment
    # a lesson that reads no case in "N elements" gets none (03's n is a matrix's side)
    mm = grade(kernel, "03_roofline", "explain_intensity", "Each of the 4096 elements is 2 bytes; the multiply takes "
               "180 µs.")
    assert "2^12" in (the(mm, "180 µs").about or "") and the(mm, "180 µs").verdict == "match", mm.comment


def test_a_kernel_of_so_many_microseconds_is_gpu_time_in_any_language(kernel):
    g = grade(kernel, "04_fusion", "explain_headline",
              "Par appel, l'appel fusionné coûte 97,9 µs (répartition CPU, gardes) pour un noyau de 17,5 µs.")
    assert the(g, "17,5 µs").verdict == "match" and "gpu" in (the(g, "17,5 µs").matches or ""), g.comment
    assert the(g, "97,9 µs").verdict == "match" and "wall" in (the(g, "97,9 µs").matches or ""), g.comment


def test_a_cue_that_labels_its_own_number_does_not_carry_to_the_next_clause(kernel):
    g = grade(kernel, "04_fusion", "explain_headline",
              "bytes 268 vs 67, speedup gpu 3.97, wall 0.93, bandwidth 3867 / 3840. wall includes dispatch.")
    assert the(g, "3867").verdict == "match" and "gpu" in (the(g, "3867").matches or ""), g.comment
    assert the(g, "0.93").verdict == "match" and "wall" in (the(g, "0.93").matches or ""), g.comment


def test_a_formula_s_symbol_names_the_quantity_of_its_bare_value(kernel):
    """v7's rs06: '$F = 2n^3 = 2.15\\times10^{9}$, $B = 3n^2 s = 6.29\\times10^{6}$' states FLOPs and bytes."""
    g = grade(kernel, "03_roofline", "explain_small",
              r"$F = 2n^3 = 2.15\times10^{9}$, $B = 3n^2 s = 6.29\times10^{6}$, so the intensity is high.")
    assert [(f.kind, f.verdict) for f in g.found] == [("flops", "match"), ("bytes", "match")], g.comment
    # a lower-case b or f is no such symbol
    plain = grade(kernel, "03_roofline", "explain_small", "Take b = 2 and f = 3 for the example.")
    assert not plain.found, plain.comment
