"""pydantic records: the contracts between the lesson API, the benchmark and the graders."""

from .device import DeviceFingerprint
from .grades import ExplanationGrade, FoundNumber, PredictionGrade, SubmissionGrade
from .ledger import LEDGER_MIME, ChainVerdict, LedgerEntry, Prediction
from .measurement import Measurement, Stats, summarize
from .quantity import DIRECTIONS, Case, Method, ParamValue, Quantity, Tolerance, render_params, short_dtype
from .reference import QuantityValue, ReferenceRun

__all__ = [
    "DIRECTIONS",
    "LEDGER_MIME",
    "Case",
    "ChainVerdict",
    "DeviceFingerprint",
    "ExplanationGrade",
    "FoundNumber",
    "LedgerEntry",
    "Measurement",
    "Method",
    "ParamValue",
    "Prediction",
    "PredictionGrade",
    "Quantity",
    "QuantityValue",
    "ReferenceRun",
    "Stats",
    "SubmissionGrade",
    "Tolerance",
    "render_params",
    "short_dtype",
    "summarize",
]
