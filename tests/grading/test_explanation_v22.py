"""What the spent twenty-second blind set (benchmarks/explanation_heldout_v22) showed after its first run, probed with
sentences of our own against its frozen H200 references: a call's whole traffic said of each of its kernels after
"4 launches, each moving", and another lesson's bandwidth quoted to its digits."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.preread import grade_explanation

from .test_explanation_false_credits import frozen

REPO = Path(__file__).resolve().parents[2]
LESSONS = ("03_roofline", "04_fusion", "05_softmax", "06_fused_kernel")


@pytest.fixture(scope="module")
def twentysecond():
    return frozen(REPO / "benchmarks" / "explanation_heldout_v22" / "references", LESSONS)


def grade(lessons, lesson, grade_id, text):
    spec, ref = lessons[lesson]
    ex = next(x for x in spec.explanations if x.grade_id == grade_id)
    return grade_explanation(text, spec, ex, ref, others={k: r for k, (_, r) in lessons.items() if k != lesson})


def verdict(g, text):
    return next((f.verdict, f.actually or f.matches) for f in g.found if f.text == text)


@pytest.mark.parametrize("text", [
    "Eager: 4 launches, each moving 268 MB.",
    "Eager runs 4 kernels, each reading and writing 268 MB.",
    "Eager launches 4 kernels, each moves about 268 MB.",
])
def test_the_whole_calls_traffic_said_of_each_kernel_is_misattributed(twentysecond, text):
    v, why = verdict(grade(twentysecond, "04_fusion", "explain_headline", text), "268 MB")
    assert v == "misattributed" and "the whole call's figure, not one kernel's" in why


def test_one_kernels_traffic_after_each_is_credited_as_per_kernel(twentysecond):
    v, what = verdict(grade(twentysecond, "04_fusion", "explain_headline", "Eager: 4 launches, each moving 67 MB."),
                      "67 MB")
    assert v == "match" and "per kernel" in what
    # and without "each" the whole call's traffic is the whole call's
    v, what = verdict(grade(twentysecond, "04_fusion", "explain_headline", "Eager launches 4 kernels and moves 268 MB."),
                      "268 MB")
    assert v == "match" and "per kernel" not in what


def test_another_lessons_bandwidth_to_its_digits_is_named(twentysecond):
    g = grade(twentysecond, "05_softmax", "explain_fusion", "The compiled kernel moves 67 MB at 4,117 GB/s.")
    v, why = verdict(g, "4,117 GB/s")
    assert v == "misattributed" and why.startswith("06_fused_kernel's compiled achieved bandwidth"), g.comment
    # this case's own bandwidth is credited; two digits are nobody's in particular
    assert verdict(grade(twentysecond, "05_softmax", "explain_fusion", "The compiled kernel moves 67 MB at 1,640 GB/s."),
                   "1,640 GB/s")[0] == "match"
    assert verdict(grade(twentysecond, "05_softmax", "explain_fusion", "The compiled kernel moves 67 MB at 4.1 TB/s."),
                   "4.1 TB/s")[0] != "misattributed"
