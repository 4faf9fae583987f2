"""What the spent fifteenth blind set (benchmarks/explanation_heldout_v15), with every earlier set, showed after
preread14, each probed with sentences of our own against the fifteenth set's frozen H200 references: a variant's
launch count that is no count of it here but the count the work model of another lesson of the course gives the
variant of that name is that lesson's, quoted as this one's (misattributed, not merely wrong)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_explanation_false_credits import frozen, grade, the

REPO = Path(__file__).resolve().parents[2]
LESSONS = ("03_roofline", "04_fusion", "05_softmax", "06_fused_kernel")


@pytest.fixture(scope="module")
def fifteenth():
    """Every lesson against the fifteenth blind set's frozen H200 references."""
    return frozen(REPO / "benchmarks" / "explanation_heldout_v15" / "references", LESSONS)


def test_the_softmax_lessons_eager_count_in_the_fusion_lesson_is_named_another_lessons(fifteenth):
    # the fusion lesson's eager chain launches 4 kernels; 5 is the composed softmax's
    g = grade(fifteenth, "04_fusion", "explain_headline",
              "The unfused chain: eager runs 5 kernels for 268 MB, the compiled one 1 kernel for 67 MB.")
    f = the(g, "5 kernels")
    assert f.verdict == "misattributed" and "05_softmax" in (f.actually or ""), g.comment
    assert the(g, "268 MB").verdict == "match", g.comment
    # its own count stays credited
    ok = grade(fifteenth, "04_fusion", "explain_headline",
               "The unfused chain: eager runs 4 kernels for 268 MB, the compiled one 1 kernel for 67 MB.")
    assert the(ok, "4 kernels").verdict == "match", ok.comment


def test_the_fusion_lessons_eager_count_in_the_softmax_lesson_is_named_another_lessons(fifteenth):
    g = grade(fifteenth, "05_softmax", "explain_fusion",
              "Composed softmax: eager needs 4 launches and 268 MB; torch.compile needs one launch and 67 MB.")
    assert the(g, "4 launches").verdict == "misattributed", g.comment
    ok = grade(fifteenth, "05_softmax", "explain_fusion",
               "Composed softmax: eager needs 5 launches and 268 MB; torch.compile needs one launch and 67 MB.")
    assert the(ok, "5 launches").verdict == "match", ok.comment


def test_the_fused_kernel_lesson_names_the_softmax_count_too(fifteenth):
    g = grade(fifteenth, "06_fused_kernel", "explain_kernel",
              "My Triton kernel reads and writes 268 MB in a single launch, while eager issues 5 kernels.")
    assert the(g, "5 kernels").verdict == "misattributed", g.comment


def test_a_count_no_lesson_has_stays_merely_wrong(fifteenth):
    # 7 is nobody's count: wrong, not misattributed
    g = grade(fifteenth, "05_softmax", "explain_fusion", "Eager issues 7 kernels; the compiled one issues 1.")
    assert the(g, "7 kernels").verdict == "unmatched", g.comment


def test_a_difference_of_counts_is_no_lessons_count(fifteenth):
    # "four extra kernels" is how many more eager launches than compiled, not eager's whole count
    g = grade(fifteenth, "05_softmax", "explain_fusion",
              "Eager pays four extra eager kernels over the compiled one, which moves 67 MB.")
    assert all(f.verdict != "misattributed" for f in g.found if "kernels" in f.text), g.comment


def test_a_count_without_its_variant_in_the_clause_is_left_alone(fifteenth):
    # no variant named in the count's clause: unsure whose count it is, not named
    g = grade(fifteenth, "04_fusion", "explain_headline", "Fusion matters. There are 5 kernels in the profile.")
    assert all(f.verdict != "misattributed" for f in g.found), g.comment
