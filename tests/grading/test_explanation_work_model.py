"""A lesson whose work model raises is a bug of the lesson: `autograder lint` names it, and the pre-read
raises WorkModelError (one line) at a case the lesson measures or asks about, instead of silently judging
every number there as unmatched. A case only the text invents ("at 2^40") is still just nothing to match."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder.authoring import lint_lesson
from autograder.errors import AutograderError
from autograder.grading.references import ReferenceStore
from autograder.preread import WorkModelError, check_work_model, grade_explanation, work_model_problems
from autograder.spec import load_spec

REPO = Path(__file__).resolve().parents[2]
REFS = REPO / "tests" / "grading" / "explanation_corpus" / "references"


@pytest.fixture
def broken(tmp_path):
    folder = tmp_path / "source" / "04_fusion"
    shutil.copytree(REPO / "source" / "04_fusion", folder)
    wl = folder / "workload.py"
    text = wl.read_text(encoding="utf-8")
    needle = "    def work(self, variant, params):\n"
    assert needle in text
    wl.write_text(text.replace(needle, needle + "        if int(params['log2_n']) == 24:\n"
                                                "            raise KeyError('bytes of this dtype')\n"), encoding="utf-8")
    return folder


def test_lint_names_the_failing_case(broken):
    findings = [f.text for f in lint_lesson(broken, REPO / "references", "nvidia-h200") if f.level == "error"]
    assert any("work model fails at" in m and "2^24" in m and "KeyError" in m for m in findings), findings


def test_the_pre_read_raises_one_clear_error(broken):
    spec = load_spec(broken / "lesson.toml")
    assert work_model_problems(spec)
    with pytest.raises(WorkModelError, match=r"lesson 04_fusion: work model fails at .*2\^24"):
        check_work_model(spec)
    ref = ReferenceStore(REFS).load("04_fusion", "nvidia-h200")
    with pytest.raises(WorkModelError) as info:
        grade_explanation("Eager moves 268 MB.", spec, spec.explanations[0], ref)
    assert isinstance(info.value, AutograderError) and "\n" not in str(info.value)


def test_a_case_the_text_invents_is_nothing_to_match():
    spec = load_spec(REPO / "source" / "04_fusion" / "lesson.toml")
    ref = ReferenceStore(REFS).load("04_fusion", "nvidia-h200")
    assert work_model_problems(spec) == []
    g = grade_explanation("In fp64 the fused kernel moves 99 MB.", spec, spec.explanations[0], ref)
    assert [f.verdict for f in g.found] == ["unmatched"], g.comment
