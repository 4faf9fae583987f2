"""Every false credit of issue 19 ("The pre-read a TA can trust"), each a one-sentence probe against the frozen
H200 references the corpus was written against (tests/grading/explanation_corpus/references/). Several are
exactly the misconceptions the lessons teach against: each must now earn nothing (and, where the figure is
another method's, variant's or case's, be named misattributed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.grading.references import ReferenceStore
from autograder.preread import grade_explanation
from autograder.records import ExplanationGrade, FoundNumber
from autograder.spec import load_spec

REPO = Path(__file__).resolve().parents[2]
REFS = REPO / "tests" / "grading" / "explanation_corpus" / "references"


def frozen(refs: Path, names: tuple[str, ...]) -> dict[str, tuple[object, object]]:
    """Each named lesson's spec with its H200 reference from ``refs`` (a corpus's frozen references)."""
    store = ReferenceStore(refs)
    return {name: (load_spec(REPO / "source" / name / "lesson.toml"), store.load(name, "nvidia-h200"))
            for name in names}


@pytest.fixture(scope="module")
def lessons():
    return frozen(REFS, ("03_roofline", "04_fusion", "05_softmax"))


def grade(lessons, lesson: str, grade_id: str, text: str) -> ExplanationGrade:
    spec, ref = lessons[lesson]
    ex = next(x for x in spec.explanations if x.grade_id == grade_id)
    return grade_explanation(text, spec, ex, ref)


def the(g: ExplanationGrade, text: str) -> FoundNumber:
    hits = [f for f in g.found if f.text == text]
    assert len(hits) == 1, (text, [f.text for f in g.found], g.comment)
    return hits[0]


def test_a_wall_time_speedup_is_not_credited_as_the_gpu_time_one(lessons):
    g = grade(lessons, "04_fusion", "explain_headline", "The wall-time speedup is 3.9x.")
    f = the(g, "3.9x")
    assert f.verdict == "misattributed" and "gpu" in (f.actually or ""), g.comment
    # the right wall figure is credited
    ok = the(grade(lessons, "04_fusion", "explain_headline", "The wall-time speedup is 0.84x."), "0.84x")
    assert ok.verdict == "match" and "wall" in (ok.matches or "")


def test_the_model_launch_count_is_not_credited_where_the_profiler_counted_otherwise(lessons):
    g = grade(lessons, "05_softmax", "explain_long_rows", "torch.compile launches 1 kernel here.")
    assert the(g, "1 kernel").verdict != "match", g.comment
    ok = grade(lessons, "05_softmax", "explain_long_rows", "torch.compile launches 5 kernels here.")
    assert the(ok, "5 kernels").verdict == "match", ok.comment


def test_a_gpu_time_speedup_is_not_credited_as_the_traffic_ratio(lessons):
    g = grade(lessons, "05_softmax", "explain_fusion", "The GPU-time speedup is 4.0x.")
    f = the(g, "4.0x")
    assert f.verdict == "misattributed" and "traffic" in (f.actually or ""), g.comment
    ok = grade(lessons, "05_softmax", "explain_fusion", "The GPU-time speedup is 3.2x.")
    assert the(ok, "3.2x").verdict == "match"


def test_softmax_is_not_max_so_no_device_ceiling_matches(lessons):
    # 754.5 TFLOP/s is the fp16 matmul peak of the reference's device; "softmax" once read as "max"
    g = grade(lessons, "05_softmax", "explain_fusion", "The softmax runs at 750 TFLOP/s.")
    assert the(g, "750 TFLOP/s").verdict == "unmatched", g.comment


def test_a_power_of_two_inside_a_formula_does_not_move_the_case(lessons):
    g = grade(lessons, "03_roofline", "explain_intensity",
              "The multiply's intensity is 2n/(3s) = 8192/6 ≈ 1365 FLOP/B, far above the add's.")
    f = the(g, "1365 FLOP/B")
    assert f.verdict == "match" and "2^12" in (f.about or ""), g.comment


def test_at_this_size_keeps_the_dtype_the_sentence_named(lessons):
    # explain_small is bf16 at n = 1024; fp32's multiply there takes 59.6 µs of GPU time
    g = grade(lessons, "03_roofline", "explain_small", "In fp32 the multiply at this size takes 60 µs of GPU time.")
    f = the(g, "60 µs")
    assert f.verdict == "match" and "float32" in (f.about or ""), g.comment


def test_faster_is_not_credited_for_a_kernel_that_is_slower(lessons):
    # at one long row torch.softmax takes 207 µs and eager 27 µs: the library is 7.6x slower
    g = grade(lessons, "05_softmax", "explain_long_rows", "torch.softmax is 7.6x faster than eager.")
    assert the(g, "7.6x").verdict != "match", g.comment
    ok = grade(lessons, "05_softmax", "explain_long_rows", "torch.softmax is 7.6x slower than eager.")
    assert the(ok, "7.6x").verdict == "match", ok.comment


def test_closeness_to_a_ratio_nobody_asked_about_never_credits(lessons):
    # 1.35 is torch.softmax's GPU time over compiled's at 4096 x 4096: no quantity compares that pair, and
    # the sentence names neither of them nor time
    g = grade(lessons, "05_softmax", "explain_fusion", "The ratio is 1.35.")
    assert the(g, "1.35").verdict != "match", g.comment
    # said of the pair and of time, it is that figure
    ok = grade(lessons, "05_softmax", "explain_fusion", "In GPU time torch.softmax is 1.35x slower than the fused kernel.")
    assert the(ok, "1.35x").verdict == "match", ok.comment


def test_four_vs_one_is_read_as_two_launch_counts_and_their_ratio(lessons):
    g = grade(lessons, "04_fusion", "explain_headline", "Kernels, eager vs compiled: 4 vs 1, so 4.")
    assert [(f.text, f.kind, f.verdict) for f in g.found] == [
        ("4", "launches", "match"), ("1", "launches", "match"), ("4", "ratio", "match")], g.comment


def test_each_in_an_earlier_clause_does_not_make_a_total_per_kernel(lessons):
    g = grade(lessons, "04_fusion", "explain_headline",
              "Each of the 4 kernels reads and writes the whole tensor, so eager moves 64 MB.")
    f = the(g, "64 MB")
    assert f.verdict == "misattributed", g.comment
    ok = grade(lessons, "04_fusion", "explain_headline", "Eager launches 4 kernels and each one moves 64 MB.")
    assert the(ok, "64 MB").verdict == "match", ok.comment


def test_cpu_dispatch_per_launch_is_unchecked_and_does_not_cap_the_score(lessons):
    text = ("Eager runs 4 kernels and moves 268 MB; the fused kernel moves 67 MB, so the GPU speedup is 3.9x. "
            "Both stream near the copy roofline. Each call pays ~10 µs of CPU dispatch per launch.")
    g = grade(lessons, "04_fusion", "explain_headline", text)
    assert the(g, "10 µs").verdict == "unchecked", g.comment
    assert g.suggested_fraction == 1.0, g.comment


RIGHT_FIGURES = ("Eager runs 4 kernels and moves 268 MB; the fused kernel moves 67 MB in one launch, both near the "
                 "copy roofline. ")


def test_three_right_figures_with_a_wrong_conclusion_are_not_full_credit(lessons):
    wrong = grade(lessons, "04_fusion", "explain_headline",
                  RIGHT_FIGURES + "So per call the fused version is faster than eager.")
    assert "wrong_conclusion" in wrong.flags and wrong.suggested_fraction <= 0.5, wrong.comment
    assert "says compiled is faster than eager; by wall_per_call it is not" in wrong.comment
    right = grade(lessons, "04_fusion", "explain_headline",
                  RIGHT_FIGURES + "Per call the fused version is still slower than eager: dispatch dominates.")
    assert "wrong_conclusion" not in right.flags and right.suggested_fraction == 1.0, right.comment
    # in GPU time the fused kernel is faster: right
    gpu = grade(lessons, "04_fusion", "explain_headline",
                RIGHT_FIGURES + "In GPU time the fused kernel is faster; per call, dispatch hides it.")
    assert "wrong_conclusion" not in gpu.flags and gpu.suggested_fraction == 1.0, gpu.comment


def test_a_conclusion_the_methods_disagree_on_is_judged_only_when_the_sentence_names_one(lessons):
    # eager vs compiled: compiled is faster on the GPU, slower per call; "faster" alone is not judged
    g = grade(lessons, "04_fusion", "explain_headline", RIGHT_FIGURES + "The fused version is faster.")
    assert "wrong_conclusion" not in g.flags, g.comment


# ---------------------------------------------------------------------------------------------- ways of writing


@pytest.mark.parametrize(("text", "expected"), [
    (r"Eager moves $268\,\text{MB}$ in four kernels; fused $64\,\mathrm{MiB}$, so the GPU speedup is $3.9\times$.",
     ["match"] * 4),
    ("Eager bewegt 268 MB mit vier Kerneln; fused 67 MB. In GPU-Zeit ist fused 3,9-mal schneller.", ["match"] * 4),
    ("Eager déplace 256 Mo en 4 kernels; le noyau fused 64 Mo, à 3777 Go/s pour eager.", ["match"] * 4),
    ("Eager moves two hundred and sixty-eight MB, fused sixty-seven megabytes: three point nine times faster "
     "on the GPU.", ["match"] * 3),
    ("eager: 268\u202f435\u202f456 B, fused: 67\u202f108\u202f864 B", ["match"] * 2),
    ("```\nvariant   gpu_us   GB/s\neager     71.1     3777\ncompiled  18.4     3651\n```", ["match"] * 4),
    ("| | GPU time (µs) | traffic (MB) | kernels |\n|---|---|---|---|\n| eager | 71.1 | 268 | 4 |\n"
     "| compiled | 18.4 | 67 | 1 |", ["match"] * 6),
])
def test_every_way_a_student_writes_a_right_figure_is_credited(lessons, text, expected):
    g = grade(lessons, "04_fusion", "explain_headline", text)
    assert [f.verdict for f in g.found] == expected, g.comment
    for f in g.found:  # each finding points at what the student wrote
        assert f.span is not None and text[f.span[0]:f.span[1]] == f.text


def test_a_part_of_the_asked_explanation_left_out_costs_and_is_named(lessons):
    from autograder.spec import ExplanationPart

    spec, ref = lessons["04_fusion"]
    ex = next(x for x in spec.explanations if x.grade_id == "explain_headline")
    asked = ex.model_copy(update={"parts": [
        ExplanationPart(id="traffic", asks="the bytes each version moves", kinds=["bytes"]),
        ExplanationPart(id="wall", asks="why a single call is not faster", words=[r"\bwall", r"per[- ]call", "dispatch"]),
    ]})
    text = RIGHT_FIGURES + "In GPU time that is 3.9x."
    left_out = grade_explanation(text, spec, asked, ref)
    assert "missing_part" in left_out.flags and left_out.suggested_fraction == 0.75, left_out.comment
    assert "Missing from the asked explanation: why a single call is not faster" in left_out.comment
    whole = grade_explanation(text + " Per call, CPU dispatch hides it.", spec, asked, ref)
    assert "missing_part" not in whole.flags and whole.suggested_fraction == 1.0, whole.comment
    # without parts declared, the cell asks for nothing in particular
    assert grade_explanation(text, spec, ex.model_copy(update={"parts": []}), ref).suggested_fraction == 1.0


def test_a_part_that_cannot_be_checked_is_refused():
    from pydantic import ValidationError

    from autograder.spec import ExplanationPart

    with pytest.raises(ValidationError, match="give words or kinds"):
        ExplanationPart(id="x", asks="something")
    with pytest.raises(ValidationError, match="not a regular expression"):
        ExplanationPart(id="x", asks="something", words=["("])


def test_numbers_of_a_quoted_prompt_are_not_the_answers(lessons):
    text = ("> Explain why the GPU-time speedup is 3.9x while the traffic ratio is 4x.\n\n"
            "Eager moves 268 MB, fused 67 MB.")
    g = grade(lessons, "04_fusion", "explain_headline", text)
    assert [f.text for f in g.found] == ["268 MB", "67 MB"], g.comment
    # an answer written entirely as a quote is still the student's
    own = grade(lessons, "04_fusion", "explain_headline", "> Eager moves 268 MB, fused 67 MB.")
    assert [f.text for f in own.found] == ["268 MB", "67 MB"], own.comment


@pytest.mark.parametrize("text", [
    "twenty " * 300_000, "1,000" * 400_000, "| 1 | 2 |\n" * 200_000, ">" * 2_000_000, "speedup 1 " * 200_000,
    "eager faster than fused " * 100_000, "4x " + "(" * 2_000_000, "2^20 " + "row " * 500_000,
])
def test_a_hostile_answer_is_read_in_bounded_time(lessons, text):
    """Each pattern is linear in what it reads, which is at most MAX_READ characters (a regex that backtracks
    over a long run, "twenty twenty ...", once took minutes)."""
    import time

    from autograder.preread import MAX_READ

    for lesson, grade_id in (("05_softmax", "explain_fusion"), ("03_roofline", "explain_intensity")):
        started = time.process_time()
        g = grade(lessons, lesson, grade_id, text)
        assert time.process_time() - started < 10, (lesson, text[:40])
        assert ("truncated" in g.flags) == (len(text) > MAX_READ)



def test_an_answer_of_thousands_of_numbers_is_judged_on_its_first_ones_and_says_so(lessons):
    """A hostile answer of 10,000 numbers is judged on the first MAX_NUMBERS (each number is judged against
    every fact): the flag and the comment say how many were left; a real answer is far below the cap."""
    from autograder.preread.explanations import MAX_NUMBERS

    g = grade(lessons, "05_softmax", "explain_fusion", "speedup 1 " * 9_000)
    assert "too_many_numbers" in g.flags and len(g.found) <= MAX_NUMBERS
    assert f"Judged the first {MAX_NUMBERS:,} of 9,000 numbers" in g.comment
    ok = grade(lessons, "05_softmax", "explain_fusion", "speedup 1 " * 50)
    assert "too_many_numbers" not in ok.flags and "Judged the first" not in ok.comment

# ---------------------------------------------------------------------------------------------- second pass
# False credits found on the first blind set (benchmarks/explanation_heldout_blind/, now development data),
# each a cause in general, probed here with sentences of our own.


def test_a_wall_figure_said_of_gpu_time_is_named_not_loosely_credited(lessons):
    # 200 µs is the multiply's wall time per call to within 1 %; its GPU time (174 µs) is 15 % away
    g = grade(lessons, "03_roofline", "explain_intensity", "In GPU time the multiply took 200 µs.")
    f = the(g, "200 µs")
    assert f.verdict == "misattributed" and "wall_per_call" in (f.actually or ""), g.comment
    ok = grade(lessons, "03_roofline", "explain_intensity", "Per call the multiply took 200 µs.")
    assert the(ok, "200 µs").verdict == "match", ok.comment


def test_a_figure_written_to_three_digits_is_the_fact_it_equals(lessons):
    # 1.64 TB/s is the fused kernel's GPU-time bandwidth; eager's wall-time one is 2 % away
    g = grade(lessons, "05_softmax", "explain_fusion", "Eager moves 268 MB in 5 kernels at 1.64 TB/s.")
    f = the(g, "1.64 TB/s")
    assert f.verdict == "misattributed" and "compiled" in (f.actually or ""), g.comment
    ok = grade(lessons, "05_softmax", "explain_fusion", "Eager moves 268 MB in 5 kernels at 2.04 TB/s.")
    assert the(ok, "2.04 TB/s").verdict == "match", ok.comment


@pytest.mark.parametrize(("text", "number", "verdict"), [
    ("At 4096 TF32 is 6.9x slower than fp32.", "6.9x", "misattributed"),
    ("At 4096 TF32 is 6.9x faster than fp32.", "6.9x", "match"),
    # the ratio of TF32 to bf16 is not what a sentence comparing TF32 with fp32 says
    ("TF32 is 1.5x faster than fp32.", "1.5x", "unmatched"),
    # the lesson's bf16-over-fp32 ratio is not a ratio of the multiply and the add: named, not credited
    ("The multiply takes 15x longer than the add.", "15x", "misattributed"),
])
def test_a_ratio_of_two_dtypes_needs_the_other_dtype_and_the_right_direction(lessons, text, number, verdict):
    g = grade(lessons, "03_roofline", "explain_small", text)
    assert the(g, number).verdict == verdict, g.comment


def test_a_whole_calls_traffic_said_per_kernel_is_misattributed(lessons):
    g = grade(lessons, "05_softmax", "explain_long_rows", "El compilado lanza 5 kernels y mueve 4,2 MB por kernel.")
    f = the(g, "4,2 MB")
    assert f.verdict == "misattributed" and "one kernel" in (f.actually or ""), g.comment
    ok = grade(lessons, "05_softmax", "explain_long_rows", "El compilado lanza 5 kernels y mueve 4,2 MB en total.")
    assert the(ok, "4,2 MB").verdict == "match", ok.comment


def test_a_variant_named_in_german_is_checked_for_direction(lessons):
    # per call the fused version is 1.18x SLOWER; "fusionierte" names it
    g = grade(lessons, "04_fusion", "explain_headline",
              "Pro Aufruf (Wall-Zeit) ist die fusionierte Version 1,2-mal schneller.")
    assert the(g, "1,2-mal").verdict == "misattributed", g.comment
    ok = grade(lessons, "04_fusion", "explain_headline",
               "Pro Aufruf (Wall-Zeit) ist die fusionierte Version 1,2-mal langsamer.")
    assert the(ok, "1,2-mal").verdict == "match", ok.comment


def test_the_first_of_a_pair_is_the_subjects_when_the_other_is_named_after(lessons):
    # at 2^26 fused moves 268 MB; eager moves 1.07 GB there
    g = grade(lessons, "04_fusion", "explain_sweep", "From 2^26 the bytes dominate: eager moves 268 MB vs 67 MB for fused.")
    assert the(g, "268 MB").verdict == "misattributed", g.comment


def test_a_flop_rate_said_of_no_variant_is_not_the_memory_bound_kernels(lessons):
    # "Ridge = 669 GFLOP/s / 4,110 GB/s": a slip for the peak's TFLOP/s; the add's GPU-time rate (0.669 TFLOP/s)
    # is credited only where its sentence names the add (the fifth blind set's four false credits)
    g = grade(lessons, "03_roofline", "explain_intensity", "Ridge = 669 GFLOP/s / 4,110 GB/s, about 190.")
    assert the(g, "669 GFLOP/s").verdict == "unmatched", g.comment
    g = grade(lessons, "03_roofline", "explain_intensity", "The add only reaches 669 GFLOP/s of GPU time.")
    assert the(g, "669 GFLOP/s").verdict == "match", g.comment


def test_a_rounded_share_that_is_the_kernels_own_is_not_read_as_the_per_call_one(lessons):
    """Where the per-call (wall) share is nearer the figure than the GPU-time one and both round to it ("87 %":
    GPU time 87.3 %, per call moved to 87.0 %; on a CPU, or at a large size, the two are close), the figure is
    the share asked for, rounded: credited, not a per-call figure misread. Written to a digit more, it is the
    per-call one's exactly and the GPU-time one's not: still a per-call figure misread."""
    from autograder.records import summarize

    spec, ref = lessons["04_fusion"]
    gpu = next(m for m in ref.measurements if m.case.variant == "compiled" and m.method == "gpu_time"
               and m.case.params == {"dtype": "float16", "log2_n": 24})
    wall = next(m for m in ref.measurements if m.case.variant == "compiled" and m.method == "wall_per_call"
                and m.case.params == gpu.case.params)
    pct = round(100 * gpu.achieved_gbps / ref.device.copy_gbps)
    assert abs(100 * gpu.achieved_gbps / ref.device.copy_gbps - pct) > 0.1  # 87.3 %: not 87.0
    scale = wall.achieved_gbps / (pct / 100 * ref.device.copy_gbps)  # the per-call share moved to pct exactly
    moved = wall.model_copy(update={"samples_ms": [x * scale for x in wall.samples_ms],
                                    "stats": summarize([x * scale for x in wall.samples_ms])})
    near = ref.model_copy(update={"measurements": [moved if m is wall else m for m in ref.measurements]})
    ex = next(x for x in spec.explanations if x.grade_id == "explain_headline")
    g = grade_explanation(f"The compiled kernel reaches {pct} % of the copy roofline.", spec, ex, near)
    f = the(g, f"{pct} %")
    assert f.verdict == "match" and "gpu_time" in (f.matches or ""), g.comment
    g = grade_explanation(f"The compiled kernel reaches {pct}.0 % of the copy roofline.", spec, ex, near)
    assert the(g, f"{pct}.0 %").verdict == "misattributed", g.comment
