"""nbgrader preprocessors: thin adapters over the pure graders, one class a file (as in nbgrader)."""

from .limited_execute import LimitedExecute
from .read_ledger import ReadLedger
from .save_record import SaveGradingRecord
from .write_context import WriteGradingContext

__all__ = ["LimitedExecute", "ReadLedger", "SaveGradingRecord", "WriteGradingContext"]
