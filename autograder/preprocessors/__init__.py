"""nbgrader preprocessors: thin adapters over the pure graders, one class a file (as in nbgrader)."""

from .clear_solutions import LessonClearSolutions
from .feedback_preread import FeedbackPreRead
from .limited_execute import LimitedExecute
from .read_ledger import ReadLedger
from .save_record import SaveGradingRecord
from .show_preread import ShowPreRead
from .show_recorded_grades import ShowRecordedGrades
from .submission_exporter import SubmissionExporter
from .write_context import WriteGradingContext

__all__ = [
    "FeedbackPreRead",
    "LessonClearSolutions",
    "LimitedExecute",
    "ReadLedger",
    "SaveGradingRecord",
    "ShowPreRead",
    "ShowRecordedGrades",
    "SubmissionExporter",
    "WriteGradingContext",
]
