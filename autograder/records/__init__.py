"""pydantic records: the contracts between the lesson API, the benchmark and the graders."""

from .device import DeviceFingerprint
from .grades import ExplanationGrade, FoundNumber, PredictionGrade, SubmissionGrade
from .ledger import LEDGER_MIME, ChainVerdict, LedgerEntry, Prediction
from .measurement import Measurement, Stats, summarize
from .quantity import DIRECTIONS, Case, DType, Method, Quantity, Tolerance, Variant
from .reference import QuantityValue, ReferenceRun

__all__ = [
    "DIRECTIONS",
    "LEDGER_MIME",
    "Case",
    "ChainVerdict",
    "DType",
    "DeviceFingerprint",
    "ExplanationGrade",
    "FoundNumber",
    "LedgerEntry",
    "Measurement",
    "Method",
    "Prediction",
    "PredictionGrade",
    "Quantity",
    "QuantityValue",
    "ReferenceRun",
    "Stats",
    "SubmissionGrade",
    "Tolerance",
    "Variant",
    "summarize",
]
