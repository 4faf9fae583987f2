"""The one settings model: read from the course's nbgrader_config.py through one source, every default in the
model, a typo or a moved key one line naming it."""

from __future__ import annotations

from pathlib import Path

import pytest
from traitlets.config import Config

from autograder.config import CourseSettings, NbgraderConfigSource, SlurmSettings
from autograder.errors import ConfigError
from autograder.grading.policy import GradingPolicy

REPO = Path(__file__).resolve().parents[2]


def _course(tmp_path: Path, *lines: str) -> Path:
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n" + "\n".join(lines) + "\n")
    return tmp_path


def test_the_source_returns_the_autograder_sections_as_written(tmp_path):
    course = _course(
        tmp_path,
        'c.LessonGrading.device_of_record = "cpu"',
        "c.LessonGrading.submission_deadline = 5",
        "c.SlurmGrading.shard_size = 3",
        'c.CourseDirectory.course_id = "demo"',
        "c.LimitedExecute.timeout = 30",  # a preprocessor's own trait: not this model's
    )
    data = NbgraderConfigSource.file(course)()
    assert data == {
        "LessonGrading": {"device_of_record": "cpu", "submission_deadline": 5},
        "SlurmGrading": {"shard_size": 3},
        "course_id": "demo",
        "root": course.resolve(),
    }
    s = CourseSettings.model_validate(data)
    assert s.policy.device_of_record == "cpu" and s.policy.submission_deadline_s == 5.0
    assert s.slurm.shard_size == 3 and s.course_id == "demo"


def test_every_default_is_the_models_own(tmp_path):
    """A course that sets nothing gets exactly the defaults of GradingPolicy and SlurmSettings."""
    bare = CourseSettings.load(_course(tmp_path))
    assert bare.policy == GradingPolicy() and bare.slurm == SlurmSettings()
    assert bare.db_url == f"sqlite:///{tmp_path.resolve() / 'gradebook.db'}" and bare.course_id == ""
    assert CourseSettings.load(tmp_path / "no-config-here").root == (tmp_path / "no-config-here").resolve()


def test_the_repository_course_config_is_read(tmp_path):
    s = CourseSettings.load(REPO)
    assert s.root == REPO and s.course_id == "gpu-lessons" and s.policy.device_of_record == "nvidia-h200"
    assert s.db_url.startswith(f"sqlite:///{REPO / 'gradebook.db'}") and s.preread_in_feedback is True


def test_a_preprocessors_config_gives_the_same_settings(tmp_path):
    """Preprocessors build the settings from the Config nbgrader hands them; CourseDirectory.root places it."""
    cfg = Config()
    cfg.CourseDirectory.root = str(tmp_path)
    cfg.LessonGrading.preread_in_feedback = False
    cfg.SlurmGrading.partition = ""  # empty: the same as unset
    cfg.SlurmGrading.extra = {"nice": 10}
    s = CourseSettings.from_config(cfg)
    assert s.root == tmp_path.resolve() and s.preread_in_feedback is False
    assert s.slurm.partition is None and s.slurm.extra == {"nice": "10"}
    assert CourseSettings.from_config(cfg, REPO).root == REPO  # the folder given wins


def test_command_line_values_arrive_as_text_and_are_validated(tmp_path):
    """`nbgrader autograde --LessonGrading.device_of_record=cpu --LessonGrading.revised_penalty=0.3` hands the
    preprocessors traitlets' deferred strings: the model parses them as it parses the file's values."""
    from traitlets.config.loader import KVArgParseConfigLoader

    cfg = KVArgParseConfigLoader(
        ["--LessonGrading.device_of_record=cpu", "--LessonGrading.revised_penalty=0.3",
         "--LessonGrading.use_student_gpu=False"]
    ).load_config()
    cfg.CourseDirectory.root = str(tmp_path)
    p = CourseSettings.from_config(cfg).policy
    assert (p.device_of_record, p.revised_penalty, p.use_student_gpu) == ("cpu", 0.3, False)
    assert type(p.device_of_record) is str
    cfg = KVArgParseConfigLoader(["--LessonGrading.revised_penalty=half"]).load_config()
    with pytest.raises(ConfigError, match="c.LessonGrading.revised_penalty = 'half': Input should be a valid number"):
        CourseSettings.from_config(cfg)


@pytest.mark.parametrize(
    "line, says",
    [
        ("c.LessonGrading.revised_penalti = 0.3",
         "nbgrader_config.py: c.LessonGrading.revised_penalti is not a setting; did you mean revised_penalty?"),
        ("c.LessonGrading.revised_penalty = 1.5",
         "nbgrader_config.py: c.LessonGrading.revised_penalty = 1.5: Input should be less than or equal to 1"),
        ("c.LessonGrading.submission_deadlin = 3", "did you mean submission_deadline?"),
        ("c.LessonGrading.submission_deadline = -3",
         "c.LessonGrading.submission_deadline = -3: Input should be greater than or equal to 0"),
        ("c.SlurmGrading.mem_gb = 0", "c.SlurmGrading.mem_gb = 0: Input should be greater than 0"),
        ("c.SlurmGrading.qos = 'x'", "c.SlurmGrading.qos is not a setting; known: account, bench_gres"),
        ("c.LessonGrading.course_root = '/x'",
         "c.LessonGrading.course_root is now c.CourseDirectory.root; write it there instead"),
        ("c.SlurmGradin.shard_size = 3", "c.SlurmGradin is not a section; did you mean c.SlurmGrading?"),
    ],
)
def test_a_mistake_is_one_line_naming_the_key_and_the_file(tmp_path, line, says):
    with pytest.raises(ConfigError) as err:
        CourseSettings.load(_course(tmp_path, line))
    assert says in str(err.value) and "\n" not in str(err.value)
    assert str(err.value).startswith("nbgrader_config.py: c.")
