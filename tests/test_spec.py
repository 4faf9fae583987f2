import pytest

from autograder.errors import LessonSpecError
from autograder.spec import load_spec


def test_fusion_spec_describes_the_seed_chain(spec):
    assert spec.expression() == "relu(x * 2 + 1) * 0.5"
    assert len(spec.chain) == 4
    assert spec.max_points == 14.0
    assert max(spec.sweep["cuda"].log2_sizes) == 28  # reaches the memory-bound regime on an H200


def test_cpu_cases_cover_every_quantity(spec):
    keys = {c.key for c in spec.cases("cpu")}
    for q in spec.quantities:
        assert {c.key for c in q.cases()} <= keys


def test_unknown_quantity_is_a_clear_error(spec):
    with pytest.raises(LessonSpecError, match="not a quantity"):
        spec.quantity("nope")


def test_missing_and_malformed_specs(tmp_path):
    with pytest.raises(LessonSpecError, match="no lesson.toml"):
        load_spec(tmp_path)
    (tmp_path / "lesson.toml").write_text("id = [", encoding="utf-8")
    with pytest.raises(LessonSpecError, match="not valid TOML"):
        load_spec(tmp_path)


def test_grade_ids_must_match_quantities(tmp_path, repo):
    text = (repo / "source/04_fusion/lesson.toml").read_text(encoding="utf-8")
    (tmp_path / "lesson.toml").write_text(
        text.replace('"fp32_vs_fp16@2^24" = "grade_fp32_direction"', ""), encoding="utf-8"
    )
    with pytest.raises(LessonSpecError, match="without a grade_id"):
        load_spec(tmp_path)
