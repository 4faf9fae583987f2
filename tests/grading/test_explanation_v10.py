"""What the spent tenth blind set (benchmarks/explanation_heldout_v10) and the sets before it still showed after
preread9, each probed with sentences of our own against the tenth set's frozen H200 references: right figures
named misattributed (a variant carried from an earlier clause, a timing method that labels another number, a
table row's label, a quoted prompt's dtype, a sweep's point), a model count restated, and parts of the asked
explanation that an answer leaves out while still using their words."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_explanation_false_credits import frozen, grade, the

REPO = Path(__file__).resolve().parents[2]
LESSONS = ("03_roofline", "04_fusion", "05_softmax", "06_fused_kernel")


@pytest.fixture(scope="module")
def tenth():
    """Every lesson against the tenth blind set's frozen H200 references."""
    return frozen(REPO / "benchmarks" / "explanation_heldout_v10" / "references", LESSONS)


def test_one_row_times_2_20_in_a_table_corner_is_the_long_row_case(tenth):
    g = grade(tenth, "05_softmax", "explain_long_rows",
              "| 1 row × 2^20 fp16 | launches | GPU time |\n|---|---|---|\n| eager | 5 | 27.3 µs |\n"
              "| compiled | 5 | 9.96 µs |\n")
    for text in ("27.3 µs", "9.96 µs"):
        f = the(g, text)
        assert f.verdict == "match" and "cols=2^20/rows=2^0" in (f.matches or ""), g.comment
    spec = tenth["05_softmax"][0]
    # "1 row" is one row, never a row one element long
    assert not any(m.params and m.params.get("log2_cols") == 0 for m in spec.workload.mentions("the 1 row case"))


def test_a_variant_carried_from_an_earlier_clause_names_no_misattribution(tenth):
    g = grade(tenth, "05_softmax", "explain_long_rows",
              "torch_softmax 206 vs eager 27 vs compiled 10; launches 1, 5, 5.")
    assert [f.verdict for f in g.found if f.text == "5"] == ["unmatched", "unmatched"], g.comment
    # the variant named in the number's own clause, by name, pronoun or label, still does
    said = grade(tenth, "05_softmax", "explain_long_rows",
                 "The compiled softmax is fused, so it launches 1 kernel and moves 4.2 MB.")
    assert the(said, "1 kernel").verdict == "misattributed", said.comment
    labelled = grade(tenth, "05_softmax", "explain_fusion", "Eager: 5 kernels, 268 MB; compiled: 5 kernels, 67 MB.")
    assert [f.verdict for f in labelled.found if f.text == "5 kernels"] == ["match", "misattributed"]


def test_a_count_of_one_kind_of_kernel_is_unchecked_and_an_expected_count_is_the_model(tenth):
    g = grade(tenth, "05_softmax", "explain_long_rows",
              "Compiled splits each reduction into a partial and a final pass plus one pointwise kernel.")
    assert the(g, "one pointwise kernel").verdict == "unchecked", g.comment
    expected = grade(tenth, "05_softmax", "explain_long_rows",
                     "For the compiled version I expected a single fused kernel, but the profiler shows 5.")
    assert the(expected, "a single fused kernel").verdict == "given", expected.comment


def test_a_timing_method_right_after_a_number_labels_that_number(tenth):
    g = grade(tenth, "04_fusion", "explain_sweep",
              "At 2^28 the speedup is 3.4x per call and 4.07x in GPU time.")
    assert the(g, "3.4x").verdict == "match" and "wall" in (the(g, "3.4x").matches or ""), g.comment
    f = the(g, "4.07x")
    assert f.verdict == "match" and "gpu_time" in (f.matches or ""), g.comment
    # a cue that labels both sides of a pair still carries ("268 µs in GPU time and eager 89 µs")
    both = grade(tenth, "04_fusion", "explain_sweep", "At 2^28 in GPU time eager took 1.04 ms and compiled 255 µs.")
    assert the(both, "255 µs").verdict == "match" and "gpu_time" in (the(both, "255 µs").matches or "")


def test_a_table_column_naming_a_timing_method_is_its_cells_method(tenth):
    g = grade(tenth, "04_fusion", "explain_sweep",
              "| N | wall eager/compiled | GPU eager/compiled | regime |\n|---|---|---|---|\n"
              "| 2^12 | 1.03x | 4.2x | launch/dispatch |\n| 2^20 | 0.67x | 2.8x | dispatch (wall) |\n")
    for text in ("4.2x", "2.8x"):
        f = the(g, text)
        assert f.verdict == "match" and "gpu_time" in (f.matches or ""), g.comment
    assert "wall" in (the(g, "0.67x").matches or ""), g.comment


def test_a_case_named_in_a_quoted_prompt_is_not_the_answers(tenth):
    g = grade(tenth, "03_roofline", "explain_small",
              '> "explaining why the 1024 multiply falls so far short of the peak although its intensity is above '
              'the ridge point, and why TF32 sits between bf16 and float32."\n\n'
              "Intensity 341 > ridge 180; the kernel is at 47 % of peak because the matrix is small.")
    assert the(g, "47 %").verdict == "match" and "bf16" in (the(g, "47 %").matches or ""), g.comment
    assert the(g, "341").verdict == "match", g.comment


def test_the_ridge_point_by_its_other_names(tenth):
    g = grade(tenth, "03_roofline", "explain_small",
              "À n = 1024, la multiplication bf16 fait 2,15 GFLOP pour 6,3 Mo, soit une intensité de 341 FLOP/octet, "
              "au-dessus du point d'équilibre (180 FLOP/octet).")
    f = the(g, "180 FLOP/octet")
    assert f.verdict == "match" and "ridge" in (f.matches or ""), g.comment


def test_a_speedup_at_a_sweeps_point_equal_to_the_traffic_ratio_is_unsure(tenth):
    g = grade(tenth, "04_fusion", "explain_sweep",
              "GPU time does not see dispatch: the speedup rises and flattens at 4.06x from 2^26 on.")
    assert the(g, "4.06x").verdict != "misattributed", g.comment
    # a speedup said at the cell's case, no trend, is still the traffic ratio misattributed
    said = grade(tenth, "05_softmax", "explain_fusion",
                 "Eager moves 268 MB in 5 kernels, compiled 67 MB in 1, so the compiled one is 4x faster.")
    assert the(said, "4x").verdict == "misattributed", said.comment


def test_why_tf32_sits_between_needs_a_reason_not_its_name(tenth):
    restated = grade(tenth, "03_roofline", "explain_small",
                     "It is above the ridge (341 vs 180 FLOP/byte) but reaches only 0.47 of peak: 64 output tiles are "
                     "too few for 132 SMs. TF32 sits between bf16 and float32.")
    assert "missing_part" in restated.flags and "TF32" in restated.comment, restated.comment
    reasoned = grade(tenth, "03_roofline", "explain_small",
                     "It is above the ridge (341 vs 180 FLOP/byte) but reaches only 0.47 of peak: 64 output tiles are "
                     "too few for 132 SMs. TF32 sits between because it runs on the tensor cores with a 10-bit "
                     "mantissa but reads fp32-sized operands.")
    assert "missing_part" not in reasoned.flags, reasoned.comment


@pytest.mark.parametrize(("lesson", "grade_id", "text"), [
    ("05_softmax", "explain_fusion", "Eager launches 5 kernels and moves 268 MB; the compiled one launches 1 and "
     "moves 67 MB. The traffic ratio is 4x but the speedup only 3.2x because the fused kernel reduces each row."),
    ("04_fusion", "explain_headline", "Eager moves 268 MB in 4 launches, the compiled one 67 MB in 1. In GPU time "
     "the speedup is 3.97x, near the traffic ratio; per call it is 0.93x because dispatch and guards dominate."),
    ("06_fused_kernel", "explain_kernel", "My kernel moves 268 MB in 1 launch, eager 1074 MB in 4. The speedup is "
     "4.02x, the traffic ratio, because both are memory-bound."),
])
def test_the_bandwidth_a_prompt_asks_for_is_a_part(tenth, lesson, grade_id, text):
    g = grade(tenth, lesson, grade_id, text)
    assert "missing_part" in g.flags and "bandwidth" in g.comment, g.comment


def test_a_ratio_said_of_bytes_equal_to_a_speedup_is_unsure(tenth):
    g = grade(tenth, "05_softmax", "explain_fusion",
              "Eager takes 157 µs per call and the compiled kernel 109 µs, so fusion only gives 1.44x although it "
              "cuts the traffic by 4x.")
    assert the(g, "1.44x").verdict != "misattributed", g.comment


def test_what_each_program_does_and_a_case_compared_with_name_no_case(tenth):
    g = grade(tenth, "05_softmax", "explain_fusion",
              "The compiled one is a single kernel where each program does one row, so 67 MB. GPU times were "
              "131.5 µs and 41.1 µs.")
    assert the(g, "41.1 µs").verdict == "match", g.comment
    compared = grade(tenth, "05_softmax", "explain_long_rows",
                     "One big row: the compiled softmax fuses everything into 1 kernel as in the 4096 x 4096 case, "
                     "so it moves only 4.2 MB instead of 16.8 MB.")
    assert the(compared, "4.2 MB").verdict == "match" and "cols=2^20" in (the(compared, "4.2 MB").matches or "")


def test_in_an_answer_walking_a_sweep_another_sizes_figure_needs_a_size_in_its_sentence(tenth):
    walk = ("At 2^12 both take about 75 µs per call, at 2^20 the compiled call is slower (0.67x), and at 2^28 the "
            "kernels dominate (3.44x per call). ")
    g = grade(tenth, "04_fusion", "explain_sweep",
              walk + "In GPU time the kernels alone are tiny but the ratio is already there: 4.6 µs for the 4 eager "
              "kernels against 1.1 µs for the fused one.")
    assert the(g, "4.6 µs").verdict != "misattributed" and the(g, "1.1 µs").verdict != "misattributed", g.comment
    # a size in the number's sentence still names it
    named = grade(tenth, "04_fusion", "explain_sweep",
                  walk + "At the top, 2^28, eager moves 8.6 GB and fused 2.15 GB.")
    assert the(named, "8.6 GB").verdict == "misattributed", named.comment


def test_pasted_output_under_an_interpreter_prompt_is_a_table_with_its_header(tenth):
    g = grade(tenth, "04_fusion", "explain_sweep",
              '```\n>>> L.sweep("float16")\nlog2_n   eager wall   fused wall   speedup(wall)   speedup(gpu)\n'
              "12       76.1 µs      73.6 µs      1.03            4.20\n"
              "20       74.8 µs      111.6 µs     0.67            2.82\n```\nSmall: dispatch dominates the wall time.")
    assert [f.text for f in g.found] == ["76.1 µs", "73.6 µs", "1.03", "4.20", "74.8 µs", "111.6 µs", "0.67", "2.82"]
    assert all(f.verdict == "match" for f in g.found), g.comment
    assert "gpu_time" in (the(g, "4.20").matches or "") and "wall" in (the(g, "1.03").matches or "")


def test_a_row_of_pasted_output_that_names_its_method_keeps_it(tenth):
    g = grade(tenth, "04_fusion", "explain_headline",
              '```\n>>> L.compare("float16", 24)\nvariant   launches  bytes_MB  gpu_us   wall_us\n'
              "eager     4         268.4     69.42    91.10\ncompiled  1         67.1      17.48    97.90\n"
              "speedup gpu 3.97x  wall 0.93x\n```")
    assert the(g, "0.93x").verdict == "match" and "wall" in (the(g, "0.93x").matches or ""), g.comment
    assert the(g, "3.97x").verdict == "match" and "gpu_time" in (the(g, "3.97x").matches or ""), g.comment


def test_a_speedups_symbol_before_its_value(tenth):
    g = grade(tenth, "04_fusion", "explain_sweep",
              "N=4.1e3: wall 7.61e-5 s vs 7.36e-5 s -> S=1.03 (launch-bound). N=1.05e6: S_wall=6.7e-1. "
              "N=2.68e8: S_wall=3.44.")
    for text in ("1.03", "6.7e-1", "3.44"):
        f = the(g, text)
        assert f.verdict == "match" and "wall_per_call" in (f.matches or ""), g.comment
    # the symbol names only the value right after its '=' ("S = t_e / t_c = 3.20": the operands are no ratio)
    formula = grade(tenth, "05_softmax", "explain_fusion", "S = 131.5 / 41.1 = 3.20 < 4.")
    assert [f.text for f in formula.found if f.kind == "ratio"] != ["131.5"], formula.comment


def test_a_size_said_before_the_ratio_keeps_a_wall_speedup_misattributed_in_a_trend_sentence():
    blind = frozen(REPO / "benchmarks" / "explanation_heldout" / "references", ("04_fusion",))
    g = grade(blind, "04_fusion", "explain_sweep",
              "At 2^24 eager moves 67 MB per call and the fused kernel 67 MB. At 2^12 the per-call wall speedup is "
              "3.6×; at 2^28 fused moves 268 MB and the speedup is flat.")
    assert the(g, "3.6×").verdict == "misattributed", g.comment


def test_a_per_call_rate_an_earlier_sentence_timed_and_this_one_sets_against_a_ceiling(tenth):
    g = grade(tenth, "06_fused_kernel", "explain_kernel",
              "Per call my kernel takes 118 µs and eager 279 µs, so the speedup is 2.36x, well below the 4x traffic "
              "ratio. So my kernel is not on the roofline; I estimate it at 2266 GB/s.")
    assert the(g, "2266 GB/s").verdict == "misattributed", g.comment
    # the same figure said per call, with what a call pays, is the call's own
    said = grade(tenth, "06_fused_kernel", "explain_kernel",
                 "Per call, with the launch overhead, my kernel's effective bandwidth is 2266 GB/s.")
    assert the(said, "2266 GB/s").verdict != "misattributed", said.comment


def test_a_figure_of_the_next_size_to_within_its_digits_loosely_this_ones_is_misattributed(tenth):
    g = grade(tenth, "03_roofline", "explain_intensity",
              "Same bytes for both kernels, 100.7 MB. Measured: matmul 24.6 µs at 697 TFLOP/s, add 7.1 µs.")
    f = the(g, "697 TFLOP/s")
    assert f.verdict == "misattributed" and "2^11" in (f.actually or ""), g.comment
    # a dtype named without a size leaves the size unsure: not named so
    dtype = grade(tenth, "03_roofline", "explain_small",
                  "n=2048: 24.6 us, 94 %. TF32 384 TFLOP/s vs fp32 51 TFLOP/s, 7.5x.")
    assert the(dtype, "384 TFLOP/s").verdict != "misattributed", dtype.comment


def test_launch_overhead_named_as_why_a_speedup_of_long_kernels_is_short_is_a_wrong_conclusion(tenth):
    figures = ("Eager: 5 kernels, 268 MB, 131 µs, 2,040 GB/s. Compiled: 1 kernel, 67 MB, 41 µs, 1,630 GB/s. ")
    wrong = grade(tenth, "05_softmax", "explain_fusion", figures + "The traffic ratio is 4 but the speedup is 3.19 "
                  "because the compiled kernel still pays the launch overhead of the kernels it replaced.")
    assert "wrong_conclusion" in wrong.flags and wrong.suggested_fraction <= 0.5, wrong.comment
    right = grade(tenth, "05_softmax", "explain_fusion", figures + "The traffic ratio is 4 but the speedup is 3.19 "
                  "because the fused kernel, which reduces each row before writing it, runs at a lower share of the "
                  "roofline.")
    assert "wrong_conclusion" not in right.flags, right.comment
    # per call, launch overhead is the right reason
    wall = grade(tenth, "04_fusion", "explain_headline", "Eager moves 268 MB, the compiled one 67 MB, near the "
                 "roofline. Per call the speedup is only 0.93x because of the launch overhead and guards.")
    assert "wrong_conclusion" not in wall.flags, wall.comment


def test_limited_by_memory_traffic_is_a_bound_claim(tenth):
    g = grade(tenth, "03_roofline", "explain_intensity",
              "Both kernels move 100.7 MB; the multiply does 137 GFLOP, the add 16.8 MFLOP: 1365 vs 0.17 FLOP per "
              "byte, ridge 180. The multiply has to re-read A and B many times, so it is really limited by memory "
              "traffic too.")
    assert "wrong_conclusion" in g.flags and "intensity" in g.comment, g.comment
