from datetime import datetime, timezone

import pytest
from pydantic import ValidationError

from autograder.records import (
    Case,
    ChainVerdict,
    DeviceFingerprint,
    Measurement,
    PredictionGrade,
    Quantity,
    ReferenceRun,
    SubmissionGrade,
    Tolerance,
    summarize,
)


def test_reference_run_round_trips_through_json(h200):
    again = ReferenceRun.model_validate_json(h200.model_dump_json())
    assert again == h200
    assert again.device.key == "nvidia-h200"
    assert again.find(Case(variant="compiled", dtype="float16", log2_n=24), "gpu_time") is not None


def test_submission_grade_round_trip():
    g = SubmissionGrade(
        student="a",
        assignment="04_fusion",
        notebook="x.ipynb",
        notebook_sha256=None,
        device_of_record="nvidia-h200",
        chain=ChainVerdict(status="ok"),
        predictions=[
            PredictionGrade(
                quantity="q",
                grade_id="g",
                predicted=3.0,
                reference=4.0,
                fraction=0.5,
                points=1.0,
                max_points=2.0,
                reason="r",
            )
        ],
        graded_at=datetime.now(timezone.utc),
    )
    assert SubmissionGrade.model_validate_json(g.model_dump_json()) == g
    assert g.cell_scores() == {"g": 1.0}


def test_records_are_frozen():
    c = Case(variant="eager", dtype="float16", log2_n=12)
    with pytest.raises(ValidationError):
        c.variant = "compiled"  # type: ignore[misc]


@pytest.mark.parametrize(
    "bad, needle",
    [
        (dict(full_factor=2.0, zero_factor=1.5), "zero_factor"),
        (dict(full_factor=0.9), "greater than 1"),
    ],
)
def test_tolerance_rejects_bad_bands(bad, needle):
    with pytest.raises(ValidationError, match=needle):
        Tolerance(**bad)


def test_quantity_validation_messages():
    with pytest.raises(ValidationError, match="whitespace"):
        Quantity(id="a b", title="t", kind="speedup")
    with pytest.raises(ValidationError):
        Quantity(id="q", title="t", kind="speedup", method="cuda_events")


def test_legacy_cases_load_and_params_are_canonical():
    old = Case.model_validate({"variant": "eager", "dtype": "float16", "log2_n": 24})
    new = Case(variant="eager", params={"log2_n": 24, "dtype": "float16"})
    assert old == new and old.key == new.key == "eager/fp16/2^24"
    assert list(new.params) == ["dtype", "log2_n"]
    assert Case(variant="v", params={"log2_rows": 3, "n": 7}).key == "v/rows=2^3/n=7"


def test_measurement_rejects_bad_samples():
    case = Case(variant="eager", dtype="float16", log2_n=10)
    with pytest.raises(ValidationError, match="finite and positive"):
        Measurement(case=case, method="gpu_time", samples_ms=[1.0, float("nan")], stats=summarize([1.0]), bytes_moved=1)
    with pytest.raises(ValidationError, match="finite and positive"):
        Measurement(case=case, method="gpu_time", samples_ms=[-1.0], stats=summarize([1.0]), bytes_moved=1)


def test_summarize_quartiles_and_spread():
    s = summarize([1.0, 2.0, 3.0, 4.0, 100.0])
    assert s.median == 3.0 and s.min == 1.0 and s.max == 100.0
    assert s.q1 == 2.0 and s.q3 == 4.0
    assert s.iqr_rel == pytest.approx(2 / 3)
    with pytest.raises(ValueError):
        summarize([])


def test_device_key_must_be_a_slug():
    with pytest.raises(ValidationError):
        DeviceFingerprint(kind="cpu", key="Has Spaces", name="x", torch="2", python="3", copy_gbps=1, copy_bytes=1)
