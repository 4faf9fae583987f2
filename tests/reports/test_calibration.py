"""The calibration plot shades each quantity's own full-credit band: the band its kind scores with (its
tolerance widened by the reference's spread), not a fixed 1.3×."""

from __future__ import annotations

import math
from datetime import datetime, timezone

import matplotlib
import pytest

from autograder.bench.store import ReferenceStore
from autograder.grading.policy import GradingPolicy
from autograder.grading.scoring import grade_prediction
from autograder.kinds import kind_of
from autograder.records import ChainVerdict, Prediction, SubmissionGrade
from autograder.reports.report import calibration_rows, draw_calibration
from autograder.spec import load_spec

matplotlib.use("Agg")
LESSONS = ["03_roofline", "04_fusion", "05_softmax"]
T = datetime(2026, 11, 30, tzinfo=timezone.utc)


def _lesson(repo, name):
    return load_spec(repo / "source" / name), ReferenceStore(repo / "references").load(name, "nvidia-h200")


def _grade(q, value, qv, ref):
    p = Prediction(quantity=q.id, value=value, because="my model", at=T, seq=1)
    return grade_prediction(q, "g", p, qv, ref.device.name, GradingPolicy())


def _numeric(spec, ref):
    for q in spec.quantities:
        qv = ref.quantities.get(q.id)
        if qv is not None and kind_of(q).band(q, qv) is not None:
            yield q, qv


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_band_is_where_scoring_gives_full_credit(repo, lesson):
    spec, ref = _lesson(repo, lesson)
    seen = 0
    for q, qv in _numeric(spec, ref):
        band = kind_of(q).band(q, qv)
        seen += 1
        if band.low == band.high:  # a count scored exactly
            assert _grade(q, band.low, qv, ref).fraction == 1.0
            assert _grade(q, band.low + 1, qv, ref).fraction < 1.0
            continue
        for edge, inward, outward in ((band.high, 1 - 1e-9, 1 + 1e-6), (band.low, 1 + 1e-9, 1 - 1e-6)):
            assert _grade(q, edge * inward, qv, ref).fraction == 1.0, (q.id, edge)
            assert _grade(q, edge * outward, qv, ref).fraction < 1.0, (q.id, edge)
        # the tolerance widened by the reference's own spread, on both sides
        assert band.high / qv.ratio == pytest.approx(math.exp(q.tolerance.full_log + qv.log_spread))
        assert band.low * band.high == pytest.approx(qv.ratio**2)
    assert seen


def test_bands_differ_per_quantity(repo):
    spec, ref = _lesson(repo, "04_fusion")
    widths = {q.id: round(kind_of(q).band(q, qv).high / qv.ratio, 3) for q, qv in _numeric(spec, ref)}
    assert len(set(widths.values())) == len(widths) >= 2, widths
    assert widths["gpu_speedup@fp16,2^24"] == pytest.approx(1.31, abs=0.01)  # README: "full credit within 1.31×"
    assert widths["wall_speedup@fp32,2^30"] == pytest.approx(1.32, abs=0.01)  # README: "1.32×"
    assert max(widths.values()) <= 1.5  # no band so wide it stops meaning something


def _record(student, spec, ref, factor, device=None):
    preds = []
    for q, qv in _numeric(spec, ref):
        value = qv.value * factor if kind_of(q).name != "count" else qv.value + (factor != 1)
        preds.append(_grade(q, float(value), qv, ref))
    return SubmissionGrade(student=student, assignment=spec.id, notebook=spec.notebook, notebook_sha256=None,
                           device_of_record=device or ref.device.key, chain=ChainVerdict(status="ok"),
                           predictions=preds, graded_at=T)


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_plot_draws_the_scoring_band_of_each_quantity(repo, lesson):
    import matplotlib.pyplot as plt

    spec, ref = _lesson(repo, lesson)
    records = [_record(f"s{i}", spec, ref, f) for i, f in enumerate((0.5, 0.8, 1.0, 1.2, 1.5, 2.5))]
    rows = calibration_rows(records, spec, {ref.device.key: ref})
    assert rows
    fig, ax = plt.subplots()
    draw_calibration(ax, rows)
    shaded = [c for c in ax.collections if c.__class__.__name__ in ("PolyCollection", "FillBetweenPolyCollection")]
    assert len(shaded) == len(rows)
    for i, row in enumerate(rows):
        q = spec.quantity(row.quantity)
        qv = ref.quantities[q.id]
        band = kind_of(q).band(q, qv)
        assert row.bands == [(band.low / qv.value, band.high / qv.value)]
        xs = shaded[i].get_paths()[0].vertices[:, 0]
        ys = shaded[i].get_paths()[0].vertices[:, 1]
        assert (xs.min(), xs.max()) == pytest.approx(row.bands[0])
        assert ys.min() > i - 0.5 and ys.max() < i + 0.5  # across its own row only
        # a dot is inside the shading exactly when scoring gave it full credit
        grades = [p for r in records for p in r.predictions if p.quantity == q.id]
        assert row.inside == sum(g.fraction == 1.0 for g in grades)
        for (x, frac), g in zip(row.points, grades, strict=True):
            assert x == g.predicted / g.reference and frac == g.fraction
            assert (row.bands[0][0] <= x <= row.bands[0][1]) == (frac == 1.0), (q.id, x, frac)
    plt.close(fig)


def test_students_graded_on_another_reference_get_that_reference_band(repo):
    spec, ref = _lesson(repo, "04_fusion")
    noisy = ref.model_copy(update={"quantities": {k: v.model_copy(update={"log_spread": v.log_spread + 0.3})
                                                  for k, v in ref.quantities.items()}})
    records = [_record("a", spec, ref, 1.1), _record("b", spec, noisy, 1.1, device="other-gpu")]
    rows = {r.quantity: r for r in calibration_rows(records, spec, {ref.device.key: ref, "other-gpu": noisy})}
    q = spec.quantity("gpu_speedup@fp16,2^24")
    row = rows[q.id]
    assert len(row.bands) == 2
    assert {round(hi, 6) for _, hi in row.bands} == {
        round(kind_of(q).band(q, r.quantities[q.id]).high / r.quantities[q.id].value, 6) for r in (ref, noisy)
    }


def test_graded_against_keeps_one_devices_records_and_names_the_others():
    from autograder.reports.report import graded_against

    def rec(student, dev):
        return SubmissionGrade(student=student, assignment="a", notebook="a.ipynb", notebook_sha256=None,
                               device_of_record=dev, chain=ChainVerdict(status="ok"), predictions=[], graded_at=T)

    records = [rec("a", "cpu"), rec("b", "nvidia-h200"), rec("c", None), rec("d", "cpu")]
    kept, others = graded_against(records, "cpu")
    assert [r.student for r in kept] == ["a", "d"] and others == ["none", "nvidia-h200"]
