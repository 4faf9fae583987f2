from datetime import datetime, timezone

import pytest

from autograder.grading.policy import GradingPolicy
from autograder.grading.scoring import grade_prediction
from autograder.records import Prediction, QuantityValue


def _pred(value, because="fused moves 2N·s instead of 8N·s", revised=False, started_over=False):
    return Prediction(
        quantity="gpu_speedup@fp16,2^24",
        value=value,
        because=because,
        at=datetime(2026, 1, 1, tzinfo=timezone.utc),
        seq=1,
        revised_after_measurement=revised,
        started_over_after_measurement=started_over,
    )


def _ref(value=3.9, spread=0.0):
    return QuantityValue(
        quantity="gpu_speedup@fp16,2^24",
        value=value,
        ratio=value,
        log_spread=spread,
        method="gpu_time",
        device="nvidia-h200",
    )


@pytest.fixture()
def q(spec):
    return spec.quantity("gpu_speedup@fp16,2^24")


def test_full_partial_and_zero_credit(q):
    pol = GradingPolicy()
    full = grade_prediction(q, "g", _pred(3.5), _ref(), "NVIDIA H200", pol)
    assert full.fraction == 1.0 and full.points == 2.0
    assert full.reason.startswith(
        "you predicted 3.50×; the NVIDIA H200 reference measured 3.90× (gpu_time, float16, 2^24)"
    )
    assert "full credit" in full.reason
    part = grade_prediction(q, "g", _pred(2.0), _ref(), "NVIDIA H200", pol)
    assert 0 < part.fraction < 1 and "off by 1.95×" in part.reason
    zero = grade_prediction(q, "g", _pred(40.0), _ref(), "NVIDIA H200", pol)
    assert zero.fraction == 0.0 and "no credit" in zero.reason


def test_symmetric_in_log_space(q):
    pol = GradingPolicy()
    over = grade_prediction(q, "g", _pred(3.9 * 2), _ref(), "D", pol).fraction
    under = grade_prediction(q, "g", _pred(3.9 / 2), _ref(), "D", pol).fraction
    assert over == pytest.approx(under)


def test_reference_noise_never_costs_a_point(q):
    pol = GradingPolicy()
    at_edge = 3.9 * 1.5
    assert grade_prediction(q, "g", _pred(at_edge), _ref(), "D", pol).fraction < 1.0
    assert grade_prediction(q, "g", _pred(at_edge), _ref(spread=0.2), "D", pol).fraction == 1.0


@pytest.mark.parametrize("policy, expected", [("flag", 1.0), ("penalty", 0.5), ("zero", 0.0)])
def test_revised_after_measurement_policies(q, policy, expected):
    g = grade_prediction(q, "g", _pred(3.9, revised=True), _ref(), "D", GradingPolicy(revised_after_measurement=policy))
    assert g.fraction == expected and "revised_after_measurement" in g.flags
    assert "revised after you measured it" in g.reason


@pytest.mark.parametrize("policy, penalty, expected", [("flag", 0.5, 1.0), ("penalty", 0.3, 0.3), ("zero", 0.5, 0.0)])
def test_started_over_after_measurement_has_its_own_policy(q, policy, penalty, expected):
    pol = GradingPolicy(started_over_after_measurement=policy, started_over_penalty=penalty)
    g = grade_prediction(q, "g", _pred(3.9, started_over=True), _ref(), "D", pol)
    assert g.fraction == pytest.approx(expected) and g.flags == ["started_over_after_measurement"]
    assert "committed after starting over; you had measured this before" in g.reason
    assert "revised after" not in g.reason and "committed after you had measured" not in g.reason
    # the revision policy does not apply to it
    assert grade_prediction(q, "g", _pred(3.9, started_over=True), _ref(), "D",
                            GradingPolicy(revised_after_measurement="zero")).fraction == 0.5


def test_started_over_and_revised_cost_the_harsher_once(q):
    pol = GradingPolicy(revised_penalty=0.5, started_over_penalty=0.8)
    g = grade_prediction(q, "g", _pred(3.9, revised=True, started_over=True), _ref(), "D", pol)
    assert g.fraction == 0.5 and set(g.flags) == {"revised_after_measurement", "started_over_after_measurement"}
    assert "committed after starting over; you had measured this before and revised after you measured it" in g.reason
    assert g.reason.endswith("→ 50% of that kept.")
    pol = GradingPolicy(revised_after_measurement="flag", started_over_after_measurement="zero")
    assert grade_prediction(q, "g", _pred(3.9, revised=True, started_over=True), _ref(), "D", pol).fraction == 0.0


@pytest.mark.parametrize(
    "value, needle",
    [
        (float("nan"), "finite"),
        (float("inf"), "finite"),
        (-2.0, "positive"),
        (0.0, "positive"),
        ("about 3x", "not words"),
        ("3", "write it as a number, without quotes: 3"),
        ("3.5x", "write it as a number, without quotes: 3.5"),
        ("70%", "write 0.7 for 70% (a number, no quotes)"),
        (1e9, "plausible"),
        (1e-9, "plausible"),
    ],
)
def test_ungradeable_values_get_zero_with_a_reason(q, value, needle):
    g = grade_prediction(q, "g", _pred(value), _ref(), "D", GradingPolicy())
    assert g.points == 0 and needle in g.reason and "invalid_value" in g.flags


def test_missing_prediction_and_missing_reason(q):
    assert "no committed prediction" in grade_prediction(q, "g", None, _ref(), "D", GradingPolicy()).reason
    g = grade_prediction(q, "g", _pred(3.9, because="  "), _ref(), "D", GradingPolicy())
    assert g.points == 0 and "no_reason" in g.flags


def test_untrusted_chain_policy(q):
    g = grade_prediction(q, "g", _pred(3.9), _ref(), "D", GradingPolicy(), chain_ok=False, chain_reason="forged")
    assert g.points == 0 and "cannot be trusted (forged)" in g.reason
    g = grade_prediction(q, "g", _pred(3.9), _ref(), "D", GradingPolicy(untrusted_chain="flag"), chain_ok=False)
    assert g.points == 2.0 and "untrusted_chain" in g.flags
