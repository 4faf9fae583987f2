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


def test_an_explanation_giving_a_count_its_workload_does_not_name_is_reported(tmp_path, repo):
    text = (repo / "source/05_softmax/lesson.toml").read_text(encoding="utf-8")
    old = 'gives = ["sm_count", "blocks", "sms_busy"]'
    assert old in text
    (tmp_path / "lesson.toml").write_text(text.replace(old, 'gives = ["sm_count", "warps"]'), encoding="utf-8")
    (tmp_path / "workload.py").write_text((repo / "source/05_softmax/workload.py").read_text())
    problems = load_spec(tmp_path).problems()
    assert any("explain_long_rows: gives 'warps'" in p and "'blocks'" in p for p in problems), problems
    assert load_spec(repo / "source/05_softmax").problems() == []


# ---------------------------------------------------------------- [student_variant]: a variant the student writes


def _lesson06(tmp_path, repo, old="", new=""):
    src = repo / "source/06_fused_kernel"
    text = (src / "lesson.toml").read_text(encoding="utf-8")
    if old:
        assert old in text
        text = text.replace(old, new, 1)
    (tmp_path / "lesson.toml").write_text(text, encoding="utf-8")
    (tmp_path / "workload.py").write_text((src / "workload.py").read_text(encoding="utf-8"), encoding="utf-8")
    return tmp_path


def test_student_variant_is_read_and_its_quantities_are_known(repo):
    spec = load_spec(repo / "source/06_fused_kernel")
    sv = spec.student_variant
    assert sv is not None and sv.entry == "fused_chain" and sv.variant == "student"
    assert sv.tolerances["float16"] == (1e-3, 1e-3)
    assert {q.id for q in spec.student_quantities} == {"share@fp16,2^26", "speedup_vs_eager@fp16,2^26"}
    assert sv.performance is not None and sv.performance.kind == "roofline_share"
    assert sv.credit_grade_ids() == ["grade_kernel_correct", "grade_kernel_performance"]
    assert spec.max_points == 2 + 2 + 3 + 2 + 4  # predictions, explanation, correctness, performance
    assert spec.problems() == []
    # the bench never measures the student's kernel: no case of it among the reference's
    assert all(c.variant != "student" for c in spec.cases("cuda") + spec.cases("cpu"))
    cpu = spec.for_device("cpu").student_variant
    assert cpu is not None and cpu.cases == [{"dtype": "float16", "log2_n": 12}]
    assert cpu.performance is not None and cpu.performance.args["case"]["log2_n"] == 12
    assert "raise NotImplementedError" in sv.stub


@pytest.mark.parametrize(
    "old, new, said",
    [
        ('entry = "fused_chain"', 'entry = "fused chain"', "student_variant.entry"),
        ("float16 = [1e-3, 1e-3]", "float16 = [2.0, 1e-3]", "tolerances.float16"),
        ('grade_id = "grade_kernel_performance"\n', "", "performance needs a grade_id"),
        ("full_share = 0.7", "full_share = 0.1", "must be below full_share"),
        ('answer_cell = "answer_kernel"', 'answer_cell = "explain_kernel"', "grade ids used twice"),
        ("check_cases = [", "check_casez = [", "student_variant"),
    ],
)
def test_student_variant_mistakes_are_one_line(tmp_path, repo, old, new, said):
    with pytest.raises(LessonSpecError, match=said) as err:
        load_spec(_lesson06(tmp_path, repo, old, new))
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "old, new, said",
    [
        ('reference = "reference_chain"', 'reference = "reference_chian"', "defines no such function"),
        ('variant = "student"\nreference', 'variant = "eager"\nreference', "also a workload variant"),
        ('{ dtype = "float32", n = 1000 }', '{ dtype = "float64", n = 1000 }', "no tolerances entry"),
        ('{ dtype = "float32", n = 1000 }', '{ dtype = "float32", m = 1000 }', "unknown parameters"),
    ],
)
def test_student_variant_disagreeing_with_the_workload_is_reported(tmp_path, repo, old, new, said):
    problems = load_spec(_lesson06(tmp_path, repo, old, new)).problems()
    assert any(said in p for p in problems), problems
