"""lint catches what an instructor gets wrong, each on one line saying what to do (no validation dump)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from autograder.authoring import lint_lesson
from autograder.authoring.lint import MATMUL_PEAK_DTYPES, PEAK_NAMES
from autograder.errors import LessonSpecError
from autograder.spec import load_spec

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests/lessons/fixtures/07_transpose"


@pytest.fixture
def lesson(tmp_path) -> Path:
    folder = tmp_path / "07_transpose"
    shutil.copytree(FIXTURE, folder)
    return folder


def _edit(folder: Path, old: str, new: str) -> None:
    p = folder / "lesson.toml"
    text = p.read_text()
    assert old in text
    p.write_text(text.replace(old, new, 1))


def _lines(folder: Path, device: str = "nvidia-h200") -> list[str]:
    out = [str(f) for f in lint_lesson(folder, folder.parent / "references", device)]
    assert all("\n" not in line and "validation error" not in line and "pydantic" not in line for line in out), out
    return out


def test_the_fixture_lesson_lacks_only_its_reference(lesson):
    assert _lines(lesson) == [
        "warning: no reference for 'nvidia-h200' yet: run `autograder bench 07_transpose` on the nvidia-h200 and "
        "commit references/"
    ]


def test_a_reference_missing_on_a_cpu_is_not_asked_of_a_gpu(lesson):
    (line,) = _lines(lesson, "cpu")
    assert "--device cpu" in line and "GPU" not in line and "on that" not in line


def test_a_misspelled_peak_is_an_error_with_the_right_name(lesson):
    _edit(lesson, 'peak = "copy_gbps"', 'peak = "copy_gpbs"')
    errors = [ln for ln in _lines(lesson) if ln.startswith("error")]
    assert errors == [
        "error: quantity 'transpose_share@fp32,4096': peak 'copy_gpbs' is not a ceiling `autograder bench` measures: "
        "did you mean peak = 'copy_gbps'? (or set peak_case to use the lesson's own best case)"
    ]


def test_a_missing_grade_id_says_where_to_add_it(lesson):
    _edit(lesson, '"slowdown@fp32,4096" = "grade_slowdown"\n', "")
    assert _lines(lesson) == [
        "error: quantity 'slowdown@fp32,4096' has no grade id: add \"slowdown@fp32,4096\" = \"grade_...\" under "
        "[grade_ids] in lesson.toml (the grade_id of its graded cell)"
    ]
    with pytest.raises(LessonSpecError) as exc:  # every other command: one line too
        load_spec(lesson)
    assert "\n" not in str(exc.value) and "add each under [grade_ids]" in str(exc.value)


def test_a_grade_id_of_no_quantity_is_named(lesson):
    _edit(lesson, '"slowdown@fp32,4096" = "grade_slowdown"', '"slowdown@fp32,4096" = "grade_slowdown"\n"slowdwn" = "x"')
    assert any("[grade_ids] names 'slowdwn', which is no quantity's id" in ln for ln in _lines(lesson))


def test_a_slowdown_asked_for_as_a_speedup_is_a_warning(lesson):
    _edit(lesson, 'prompt = "the slowdown as a factor (transpose time ÷ copy time), e.g. 2"\n', "")
    warnings = [ln for ln in _lines(lesson) if "prompt" in ln]
    assert len(warnings) == 1 and "'the speedup as a factor'" in warnings[0]
    assert 'prompt = "the slowdown as a factor (transpose time ÷ copy time), e.g. 2"' in warnings[0]


def test_lints_peak_names_are_the_benchs():
    """The ceilings lint knows are the ones autograder.bench.fingerprint measures."""
    from autograder.bench import fingerprint

    assert MATMUL_PEAK_DTYPES == {"cuda": fingerprint.MATMUL_DTYPES_CUDA, "cpu": fingerprint.MATMUL_DTYPES_CPU}
    source = Path(fingerprint.__file__).read_text()
    assert re.search(r'peaks = \{"copy_gbps"', source) and 'f"matmul_tflops:{dt}"' in source
    assert set(PEAK_NAMES) == {"copy_gbps", *(f"matmul_tflops:{d}" for d in fingerprint.MATMUL_DTYPES_CUDA)}


def test_a_misspelled_kind_or_key_says_what_was_meant(lesson):
    """The two typos of a new instructor's first lesson.toml (the walk's): a kind and a key of a quantity."""
    text = (lesson / "lesson.toml").read_text()
    kind = re.search(r'^kind = "(\w+)"', text, re.M).group(1)
    _edit(lesson, f'kind = "{kind}"', f'kind = "{kind[0]}{kind[2]}{kind[1]}{kind[3:]}"')
    errors = [ln for ln in _lines(lesson) if ln.startswith("error")]
    assert len(errors) == 1 and f"did you mean {kind!r}?" in errors[0], errors
    (lesson / "lesson.toml").write_text(text)
    _edit(lesson, "\npoints = ", "\npionts = ")
    errors = [ln for ln in _lines(lesson) if ln.startswith("error")]
    assert len(errors) == 1 and "pionts: not a key of a" in errors[0] and "did you mean 'points'?" in errors[0], errors
