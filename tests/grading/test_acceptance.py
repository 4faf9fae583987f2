"""store_reference: merged, checked, stored as the reference or only as a candidate."""

from autograder.bench.store import ReferenceStore
from autograder.grading.acceptance import store_reference
from autograder.grading.policy import GradingPolicy
from tests.bench._synthetic import device, run
from tests.grading.test_fairness import WALL

LABELS = ["process 1", "process 2", "process 3"]


def test_a_fair_reference_is_stored_as_the_devices_reference(tmp_path, spec):
    store = ReferenceStore(tmp_path)
    got = store_reference([run(spec, {WALL: r}) for r in (1.0, 1.05, 0.97)], LABELS, spec, spec.id, store,
                          GradingPolicy())
    assert got.check.passed and not got.candidate and got.run.fairness == got.check
    assert got.path == store.path(spec.id, "nvidia-h200") and store.devices(spec.id) == ["nvidia-h200"]


def test_an_unfair_reference_grading_uses_is_only_a_candidate_unless_accepted(tmp_path, spec):
    store = ReferenceStore(tmp_path)
    runs = [run(spec, {WALL: r}) for r in (1.0, 1.05, 1.6)]
    got = store_reference(runs, LABELS, spec, spec.id, store, GradingPolicy())
    assert got.candidate and not got.check.passed and got.path == store.path(spec.id, "nvidia-h200", candidate=True)
    assert store.devices(spec.id) == []
    accepted = store_reference(runs, LABELS, spec, spec.id, store, GradingPolicy(), accept_unfair=True)
    assert not accepted.candidate and accepted.check.accepted_by_instructor
    assert store.devices(spec.id) == ["nvidia-h200"]


def test_an_unfair_reference_no_grading_uses_is_stored(tmp_path, spec):
    cpu = device(key="cpu", name="CPU")
    runs = [run(spec, {WALL: r}, dev=cpu) for r in (1.0, 1.05, 1.6)]
    got = store_reference(runs, LABELS, spec, spec.id, ReferenceStore(tmp_path), GradingPolicy())
    assert not got.check.passed and not got.candidate and got.path.name == "cpu.json"
