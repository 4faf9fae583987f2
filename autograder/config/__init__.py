"""The course's settings, one validated model read once from ``nbgrader_config.py`` (:mod:`.settings`): the
course folder and gradebook, the grading rules (``c.LessonGrading``), and where Slurm jobs go
(``c.SlurmGrading``, :mod:`.slurm`). It sits above grading and storage and below the batch, the cluster
runner, the preprocessors and the CLI that use it: the layers below take the settings as plain records (a
:class:`~autograder.grading.policy.GradingPolicy`, a store), never this package."""

from .settings import CONFIG_FILE, CourseSettings, NbgraderConfigSource, default_db_url, load_course_config
from .slurm import SlurmSettings

__all__ = [
    "CONFIG_FILE",
    "CourseSettings",
    "NbgraderConfigSource",
    "SlurmSettings",
    "default_db_url",
    "load_course_config",
]
