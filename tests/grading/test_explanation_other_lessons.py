"""Another lesson's headline figure, or this lesson's at another case, quoted as this case's (the sixteenth blind
set's misattributions that went unnamed): named misattributed, with what it is, where it matches nothing here;
and the references of the other lessons reach the pre-read on the grading path (``ReferenceSet``)."""

from __future__ import annotations

import shutil

from autograder.grading.policy import GradingPolicy
from autograder.grading.references import ReferenceSet, ReferenceStore
from autograder.preread import grade_explanation

from .test_explanation_false_credits import REFS, frozen, the


def _grade(lessons, lesson: str, grade_id: str, text: str, with_others: bool = True):
    spec, ref = lessons[lesson]
    ex = next(x for x in spec.explanations if x.grade_id == grade_id)
    others = {k: r for k, (_, r) in lessons.items() if k != lesson} if with_others else None
    return grade_explanation(text, spec, ex, ref, others=others)


def _lessons():
    return frozen(REFS, ("03_roofline", "04_fusion", "05_softmax"))


def test_another_lessons_speedup_is_named_so():
    lessons = _lessons()
    text = "The GPU-time speedup of the fused chain is 6.95x."  # 03's matmul-over-add ratio (6.9523)
    g = _grade(lessons, "04_fusion", "explain_headline", text)
    f = the(g, "6.95x")
    assert f.verdict == "misattributed" and "03_roofline's matmul_vs_add@bf16,4096" in (f.actually or ""), g.comment
    # without the other lessons' references the same figure is merely unmatched (and never credited)
    alone = the(_grade(lessons, "04_fusion", "explain_headline", text, with_others=False), "6.95x")
    assert alone.verdict == "unmatched"


def test_a_figure_near_another_lessons_but_not_to_its_digits_is_not_named():
    lessons = _lessons()
    # 7.3 is 5 % from 03's 6.95: no quote of it
    f = the(_grade(lessons, "04_fusion", "explain_headline", "The GPU-time speedup is 7.3x."), "7.3x")
    assert f.verdict == "unmatched"
    # one significant digit ("7x") is no quote of anything
    f = the(_grade(lessons, "04_fusion", "explain_headline", "The GPU-time speedup is 7x."), "7x")
    assert f.verdict == "unmatched"


def test_this_lessons_figure_of_another_case_is_named_so():
    lessons = _lessons()
    # 05's compiled speedup at 4096 x 4096 (3.2272) said of the one long row (eager/compiled there: ~2.4)
    text = "For this row compiled takes 11 µs against eager's 27 µs, a 3.23x speedup."
    f = the(_grade(lessons, "05_softmax", "explain_long_rows", text), "3.23x")
    assert f.verdict == "misattributed" and "compiled_speedup@fp16,4096x4096" in (f.actually or ""), f


def test_the_other_lessons_references_reach_the_grading_path(tmp_path):
    store = tmp_path / "references"
    shutil.copytree(REFS, store)
    (store / "notes").mkdir()  # a folder without a reference of the device: left out
    (store / "05_softmax" / "nvidia-h200.json").write_text("{not json", encoding="utf-8")  # unreadable: left out
    refs = ReferenceSet(ReferenceStore(store), "04_fusion", GradingPolicy())
    others = refs.of_other_lessons("nvidia-h200")
    assert sorted(others) == ["03_roofline"]
    assert others["03_roofline"].assignment == "03_roofline"
    assert refs.of_other_lessons("nvidia-h200") is others  # read once
    assert refs.of_other_lessons("nvidia-a100") == {}


def test_headroom_claimed_for_a_kernel_at_its_ceiling_is_a_wrong_conclusion():
    lessons = _lessons()
    figures = "Eager moves 268 MB in 4 kernels, fused 67 MB in 1; GPU time 69.4 µs vs 17.5 µs, 3.97x. "
    g = _grade(lessons, "04_fusion", "explain_headline", figures + "There is still a lot left on the table: a "
               "better kernel could be much faster.")
    assert "wrong_conclusion" in g.flags and "no headroom" in g.comment, g.comment
    assert g.suggested_fraction <= 0.5
    # denied, it is the right conclusion
    ok = _grade(lessons, "04_fusion", "explain_headline", figures + "There is nothing left on the table: both "
                "run at the copy roofline.")
    assert "wrong_conclusion" not in ok.flags, ok.comment
    # where the kernels are far from their ceilings (05's 4096 x 4096: about half the roofline) it is no misconception
    g5 = _grade(lessons, "05_softmax", "explain_fusion", "The compiled kernel moves 67 MB in 41 µs, 1,640 GB/s, "
                "far from the roofline: there is plenty of room to improve.")
    assert "no headroom" not in g5.comment, g5.comment
