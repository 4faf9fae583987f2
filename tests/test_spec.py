import pytest

from autograder.errors import LessonSpecError
from autograder.kinds import kind_of
from autograder.spec import load_spec


def test_fusion_spec_describes_the_seed_chain(spec):
    assert spec.workload.variants == ("eager", "compiled")
    assert spec.workload.work("eager", {"dtype": "float16", "log2_n": 24}).launches == 4
    assert spec.max_points == 14.0
    assert max(c.params["log2_n"] for c in spec.grid_cases("cuda")) == 28  # memory-bound regime on an H200
    assert spec.problems() == []


def test_cpu_cases_cover_every_quantity(spec):
    keys = {c.key for c in spec.cases("cpu")}
    for q in spec.for_device("cpu").quantities:  # as a CPU measures them (lesson.toml [devices.cpu])
        assert {c.key for c in kind_of(q).cases(q)} <= keys


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


def test_unknown_kind_and_bad_kind_arguments_are_clear(tmp_path, repo):
    text = (repo / "source/04_fusion/lesson.toml").read_text(encoding="utf-8")
    (tmp_path / "lesson.toml").write_text(text.replace('kind = "direction"', 'kind = "vibes"'), encoding="utf-8")
    with pytest.raises(LessonSpecError, match="unknown quantity kind 'vibes'"):
        load_spec(tmp_path)
    (tmp_path / "lesson.toml").write_text(text.replace("baseline = {", "basline = {"), encoding="utf-8")
    with pytest.raises(LessonSpecError, match=r"wall_2\^20_vs_2\^28@fp16.*baseline"):
        load_spec(tmp_path)


def test_lesson_and_workload_disagreeing_is_reported(tmp_path, repo):
    text = (repo / "source/04_fusion/lesson.toml").read_text(encoding="utf-8")
    (tmp_path / "lesson.toml").write_text(text.replace('compare = ["eager", "compiled"]', 'compare = ["eager", "fused"]', 1))
    (tmp_path / "workload.py").write_text((repo / "source/04_fusion/workload.py").read_text())
    problems = load_spec(tmp_path).problems()
    assert any("unknown variant 'fused'" in p for p in problems)
