"""nbgrader preprocessors: thin adapters over the pure graders, one class a file (as in nbgrader)."""

from .read_ledger import ReadLedger
from .save_record import SaveGradingRecord
from .write_context import WriteGradingContext

__all__ = ["ReadLedger", "SaveGradingRecord", "WriteGradingContext"]
