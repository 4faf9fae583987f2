"""nbgrader preprocessors: thin adapters over the pure graders, one class a file (as in nbgrader)."""

from .clear_solutions import LessonClearSolutions
from .limited_execute import LimitedExecute
from .read_ledger import ReadLedger
from .save_record import SaveGradingRecord
from .submission_exporter import SubmissionExporter
from .write_context import WriteGradingContext

__all__ = [
    "LessonClearSolutions",
    "LimitedExecute",
    "ReadLedger",
    "SaveGradingRecord",
    "SubmissionExporter",
    "WriteGradingContext",
]
