"""The course's settings, read once from ``nbgrader_config.py`` (:mod:`.settings`): the grading rules,
the reference store, the gradebook, and where Slurm jobs go (:mod:`.slurm`). It sits above grading and
storage and below the batch and the cluster runner that use it: the layers below take the settings as
plain records (a :class:`~autograder.grading.policy.GradingPolicy`, a store), never this package."""

from .settings import (
    CourseSettings,
    LessonGrading,
    SlurmGrading,
    check_config,
    default_db_url,
    load_course_config,
)
from .slurm import SlurmSettings

__all__ = [
    "CourseSettings",
    "LessonGrading",
    "SlurmGrading",
    "SlurmSettings",
    "check_config",
    "default_db_url",
    "load_course_config",
]
