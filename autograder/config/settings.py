"""The course's settings, read once from ``nbgrader_config.py``.

nbgrader's preprocessors configure themselves through traitlets (``c.LessonGrading.*``,
``c.SlurmGrading.*``), the pure graders take a pydantic :class:`GradingPolicy`, and the gradebook is
whatever ``c.CourseDirectory.db_url`` says. :class:`CourseSettings` bundles all of it so that a command
or a preprocessor builds it once and every later step reads the same values: no second, hard-coded
gradebook URL beside nbgrader's.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError
from traitlets import Bool, Dict, Enum, Float, Integer, TraitError, Unicode
from traitlets.config import Config, Configurable
from traitlets.config.loader import PyFileConfigLoader

from ..bench.store import ReferenceStore
from ..course import Course
from ..errors import ConfigError
from ..grading.policy import GradingPolicy
from .slurm import SlurmSettings

__all__ = [
    "CourseSettings",
    "LessonGrading",
    "SlurmGrading",
    "check_config",
    "default_db_url",
    "load_course_config",
]


class LessonGrading(Configurable):
    course_root = Unicode("", help="Course root; default: the current directory.").tag(config=True)
    device_of_record = Unicode("nvidia-h200", help="Reference device key predictions are graded on.").tag(config=True)
    use_student_gpu = Bool(True, help="Grade on the student's own GPU model when a reference exists.").tag(config=True)
    revised_after_measurement = Enum(
        ["flag", "penalty", "zero"],
        default_value="penalty",
        help="What a prediction changed after its measurement costs.",
    ).tag(config=True)
    revised_penalty = Float(0.5, help="Fraction of credit kept under the 'penalty' policy.").tag(config=True)
    started_over_after_measurement = Enum(
        ["flag", "penalty", "zero"],
        default_value="penalty",
        help="What a prediction committed after starting over costs when its quantity was measured before "
        "the restart (and its value differs from the one committed before measuring).",
    ).tag(config=True)
    started_over_penalty = Float(
        0.5, help="Fraction of credit kept under the 'penalty' policy for starting over."
    ).tag(config=True)
    untrusted_chain = Enum(
        ["zero", "flag"], default_value="zero", help="What a broken/forged commitment chain costs its predictions."
    ).tag(config=True)
    explanation_max_chars = Integer(
        20_000, help="Characters of one explanation the pre-reader reads; beyond them the text is not read "
        "and the record is flagged explanation_truncated.",
    ).tag(config=True)
    submission_deadline = Float(
        60.0, help="Seconds `autograder grade` gives one submission; one that takes longer is stopped and "
        "gets a record saying so (grading_timeout). 0: no deadline.",
    ).tag(config=True)
    preread_in_feedback = Bool(
        True,
        help="Show students the explanation pre-read in their feedback (below the instructor's comment, if "
        "any); False: only the instructor's comment. Formgrader always shows it to the instructor.",
    ).tag(config=True)

    def course(self) -> Course:
        return Course.at(self.course_root or os.getcwd())

    def store(self) -> ReferenceStore:
        return ReferenceStore(self.course().references)

    def policy(self) -> GradingPolicy:
        try:
            return self._policy()
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"])
            raise ConfigError(
                f"nbgrader_config.py: c.LessonGrading.{field} = {first.get('input')!r}: {first['msg']}"
            ) from None

    def _policy(self) -> GradingPolicy:
        return GradingPolicy.model_validate(
            {
                "device_of_record": self.device_of_record,
                "use_student_gpu": self.use_student_gpu,
                "revised_after_measurement": self.revised_after_measurement,
                "revised_penalty": self.revised_penalty,
                "started_over_after_measurement": self.started_over_after_measurement,
                "started_over_penalty": self.started_over_penalty,
                "untrusted_chain": self.untrusted_chain,
                "explanation_max_chars": self.explanation_max_chars,
                "submission_deadline_s": self.submission_deadline,
            }
        )

    def settings(self) -> CourseSettings:
        """Everything else the same config says (the gradebook, Slurm) for this course."""
        return CourseSettings.from_config(self.config, self.course_root or None)


class SlurmGrading(Configurable):
    """Where `autograder grade --executor slurm` sends its jobs (docs/slurm.md)."""

    partition = Unicode("", help="Partition of the grading shards and the merge job.").tag(config=True)
    account = Unicode("", help="Slurm account (--account).").tag(config=True)
    bench_partition = Unicode("", help="Partition of the reference job (the GPU nodes).").tag(config=True)
    bench_gres = Unicode("gpu:1", help="--gres of the reference job, e.g. gpu:h200:1.").tag(config=True)
    grade_gres = Unicode("", help="--gres of grading shards (empty: CPU only).").tag(config=True)
    shard_size = Integer(50, help="Fewest submissions per array task.").tag(config=True)
    max_array_tasks = Integer(100, help="Most array tasks per class; larger classes get larger shards.").tag(
        config=True
    )
    cpus_per_task = Integer(1, help="CPUs per task.").tag(config=True)
    mem_gb = Float(4.0, help="Memory per task (GB).").tag(config=True)
    timeout_min = Integer(60, help="Time limit per job (minutes).").tag(config=True)
    folder = Unicode("", help="submitit log folder (default COURSE/.slurm/%j).").tag(config=True)
    extra = Dict(help="More sbatch options, e.g. {'qos': 'teaching'}.").tag(config=True)

    def settings(self) -> SlurmSettings:
        return SlurmSettings(
            partition=self.partition or None,
            account=self.account or None,
            bench_partition=self.bench_partition or None,
            bench_gres=self.bench_gres,
            grade_gres=self.grade_gres or None,
            shard_size=self.shard_size,
            max_array_tasks=self.max_array_tasks,
            cpus_per_task=self.cpus_per_task,
            mem_gb=self.mem_gb,
            timeout_min=self.timeout_min,
            folder=self.folder,
            extra={str(k): str(v) for k, v in self.extra.items()},
        )


def default_db_url(root: str | Path) -> str:
    """nbgrader's own default (CourseDirectory.db_url) when the config names none."""
    return f"sqlite:///{Path(root).resolve() / 'gradebook.db'}"


@dataclass(frozen=True)
class CourseSettings:
    """One course's settings: where it lives, its gradebook, its grading rules, its cluster."""

    course: Course
    db_url: str
    course_id: str
    policy: GradingPolicy
    slurm: SlurmSettings
    preread_in_feedback: bool = True

    @classmethod
    def load(cls, root: str | Path | None = None) -> CourseSettings:
        """Read ``ROOT/nbgrader_config.py`` (the current directory by default)."""
        root = Path(root or os.getcwd()).resolve()
        return cls.from_config(load_course_config(root), root)

    @classmethod
    def from_config(cls, config: Config, root: str | Path | None = None) -> CourseSettings:
        check_config(config)
        lesson = LessonGrading(config=config)
        course_dir = config.get("CourseDirectory", Config())
        course = Course.at(root or lesson.course_root or course_dir.get("root") or os.getcwd())
        return cls(
            course=course,
            db_url=str(course_dir.get("db_url") or default_db_url(course.root)),
            course_id=str(course_dir.get("course_id") or ""),
            policy=lesson.policy(),
            slurm=SlurmGrading(config=config).settings(),
            preread_in_feedback=lesson.preread_in_feedback,
        )


def check_config(config: Config) -> None:
    """One clear line for a mistyped value or a misspelled setting name of this project's sections,
    instead of a traitlets traceback (or, for a name, silence)."""
    for section, cls in (("LessonGrading", LessonGrading), ("SlurmGrading", SlurmGrading)):
        given = config.get(section, Config())
        known = set(cls.class_trait_names(config=True))
        for name, value in given.items():
            if name not in known:
                close = difflib.get_close_matches(name, sorted(known), n=1)
                hint = f"; did you mean {close[0]}?" if close else f"; known: {', '.join(sorted(known))}"
                raise ConfigError(f"nbgrader_config.py: c.{section}.{name} is not a setting{hint}")
            try:
                cls(config=Config({section: {name: value}}))
            except TraitError as exc:
                reason = str(exc).split(" expected ", 1)[-1].rstrip(".")
                raise ConfigError(
                    f"nbgrader_config.py: c.{section}.{name} = {value!r} is not valid: expected {reason}"
                ) from None
    LessonGrading(config=config).policy()


def load_course_config(root: str | Path) -> Config:
    """The course's nbgrader_config.py as a traitlets Config (empty if the file is absent)."""
    p = Path(root).resolve() / "nbgrader_config.py"
    if not p.exists():
        return Config()
    return PyFileConfigLoader(p.name, path=str(p.parent)).load_config()
