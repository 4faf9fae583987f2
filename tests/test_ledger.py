from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.ledger import append, committed_predictions, entry_hash, genesis, verify_chains

T0 = datetime(2026, 11, 1, tzinfo=timezone.utc)


def _chain(*steps):
    chain = [genesis("04_fusion", "n" * 32, T0)]
    for i, (kind, q, v) in enumerate(steps, 1):
        chain.append(append(chain, kind, q, v, T0 + timedelta(minutes=i), "because" if kind == "prediction" else None))
    return chain


def _dump(chain):
    return [e.model_dump(mode="json") for e in chain]


def test_valid_chain_verifies_and_prefix_copies_are_consistent():
    chain = _chain(("prediction", "q", 3.0), ("measurement", "q", 3.9))
    verdict, got = verify_chains([_dump(chain[:2]), _dump(chain)])
    assert verdict.status == "ok" and verdict.entries == 3 and got == chain
    assert verdict.genesis == chain[0].hash


def test_edited_value_is_forged():
    raw = _dump(_chain(("prediction", "q", 3.0)))
    raw[1]["value"] = 4.0
    verdict, chain = verify_chains([raw])
    assert verdict.status == "forged" and "edited" in verdict.reasons[0]
    assert chain  # still returned: the policy decides what it costs


def test_removed_entry_breaks_the_chain():
    raw = _dump(_chain(("prediction", "q", 3.0), ("measurement", "q", 3.9)))
    del raw[1]
    verdict, _ = verify_chains([raw])
    assert verdict.status == "broken" and "removed or reordered" in verdict.reasons[0]


def test_mixed_chains_are_inconsistent():
    a = _dump(_chain(("prediction", "q", 3.0)))
    b = _dump([genesis("04_fusion", "m" * 32, T0)])
    verdict, _ = verify_chains([a, b])
    assert verdict.status == "inconsistent"


def test_no_ledger_is_missing():
    assert verify_chains([])[0].status == "missing"


def test_revision_after_measurement_is_marked_but_rerun_is_not():
    rerun = _chain(("prediction", "q", 3.0), ("measurement", "q", 3.9), ("prediction", "q", 3.0))
    assert not committed_predictions(rerun)["q"].revised_after_measurement
    revised = _chain(("prediction", "q", 3.0), ("measurement", "q", 3.9), ("prediction", "q", 3.9))
    p = committed_predictions(revised)["q"]
    assert p.revised_after_measurement and p.value == 3.9 and p.revisions == 1
    late = _chain(("measurement", "q", 3.9), ("prediction", "q", 3.9))
    assert committed_predictions(late)["q"].revised_after_measurement


def test_hash_covers_every_field():
    e = _chain(("prediction", "q", 3.0))[1]
    assert entry_hash(e) == e.hash
    assert entry_hash(e.model_copy(update={"because": "other"})) != e.hash


json_values = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(json_values, max_size=4))
def test_verifier_never_raises_on_arbitrary_json(copies):
    verdict, _ = verify_chains(copies)
    assert verdict.status in {"ok", "missing", "broken", "forged", "inconsistent"}


@settings(max_examples=100, deadline=None)
@given(
    st.integers(min_value=0, max_value=3),
    st.sampled_from(["seq", "prev", "value", "kind", "at", "quantity"]),
    json_values,
)
def test_any_single_field_edit_is_detected(idx, field, new):
    raw = _dump(_chain(("prediction", "q", 3.0), ("measurement", "q", 3.9), ("prediction", "r", 1.0)))
    if raw[idx].get(field) == new:
        return
    raw[idx][field] = new
    verdict, _ = verify_chains([raw])
    assert verdict.status != "ok"


def test_first_commitment_after_measuring_is_told_apart_from_a_change_of_mind():
    from datetime import datetime, timezone

    from autograder.ledger import append, committed_predictions, genesis

    t = datetime(2026, 11, 30, tzinfo=timezone.utc)
    chain = [genesis("l", "n", t)]
    chain.append(append(chain, "prediction", "a", 2.0, t, "why"))
    chain.append(append(chain, "measurement", "a", 3.0, t))
    chain.append(append(chain, "measurement", "b", 3.0, t))
    chain.append(append(chain, "prediction", "a", 3.0, t, "saw it"))
    chain.append(append(chain, "prediction", "b", 3.0, t, "late"))
    got = committed_predictions(chain)
    assert got["a"].revised_after_measurement and not got["a"].first_committed_after_measurement
    assert got["b"].revised_after_measurement and got["b"].first_committed_after_measurement


def _restart_chain(*steps):
    """Like _chain, with ("restart", None, None) steps made by start_over."""
    from autograder.ledger import start_over

    chain = [genesis("04_fusion", "n" * 32, T0)]
    for i, (kind, q, v) in enumerate(steps, 1):
        at = T0 + timedelta(minutes=i)
        if kind == "restart":
            chain.append(start_over(chain, at, "my first attempt was a mess"))
        else:
            chain.append(append(chain, kind, q, v, at, "because" if kind == "prediction" else None))
    return chain


def test_restart_entries_verify_and_are_counted():
    chain = _restart_chain(("prediction", "q", 3.0), ("measurement", "q", 3.9), ("restart", None, None),
                           ("prediction", "q", 3.0), ("restart", None, None))
    verdict, got = verify_chains([_dump(chain[:3]), _dump(chain)])
    assert verdict.status == "ok" and verdict.restarts == 2 and got == chain
    assert chain[3].kind == "restart" and chain[3].quantity is None and chain[3].value is None


def test_predictions_before_a_restart_no_longer_count():
    from autograder.ledger import set_aside_predictions

    chain = _restart_chain(("prediction", "q", 3.0), ("prediction", "r", 1.0), ("restart", None, None),
                           ("prediction", "r", 2.0))
    got = committed_predictions(chain)
    assert set(got) == {"r"} and got["r"].value == 2.0 and got["r"].revisions == 0
    assert not got["r"].started_over_after_measurement  # r was never measured: a plain change of mind
    assert set_aside_predictions(chain)["q"].value == 3.0
    assert set_aside_predictions(chain[:3]) == {}


def test_starting_over_cannot_launder_a_peek():
    """Measured before the restart, committed after it with another value: marked, on its own flag."""
    chain = _restart_chain(("prediction", "q", 3.0), ("measurement", "q", 3.9), ("restart", None, None),
                           ("prediction", "q", 3.9))
    p = committed_predictions(chain)["q"]
    assert p.started_over_after_measurement and not p.revised_after_measurement
    # the value committed before the first measurement, committed again (an unchanged cell re-run): not marked
    same = _restart_chain(("prediction", "q", 3.0), ("measurement", "q", 3.9), ("restart", None, None),
                          ("prediction", "q", 3.0))
    assert not committed_predictions(same)["q"].started_over_after_measurement
    # a second restart does not wash it either; the value in force at the *first* measurement is the one
    twice = _restart_chain(("prediction", "q", 3.0), ("measurement", "q", 3.9), ("restart", None, None),
                           ("prediction", "q", 3.9), ("measurement", "q", 3.9), ("restart", None, None),
                           ("prediction", "q", 3.9))
    assert committed_predictions(twice)["q"].started_over_after_measurement
    # revised again after measuring in the new start: both marks
    both = _restart_chain(("prediction", "q", 3.0), ("measurement", "q", 3.9), ("restart", None, None),
                          ("prediction", "q", 5.0), ("measurement", "q", 3.9), ("prediction", "q", 3.8))
    p = committed_predictions(both)["q"]
    assert p.started_over_after_measurement and p.revised_after_measurement


def test_forged_or_removed_restart_entries_are_detected():
    from autograder.ledger import GENESIS_PREV

    raw = _dump(_restart_chain(("prediction", "q", 3.0), ("measurement", "q", 3.9), ("restart", None, None),
                               ("prediction", "q", 3.9)))
    edited = [dict(e) for e in raw]
    edited[3]["because"] = "never mind"
    assert verify_chains([edited])[0].status == "forged"
    removed = [e for i, e in enumerate(raw) if i != 3]
    verdict, _ = verify_chains([removed])
    assert verdict.status == "broken" and "removed or reordered" in verdict.reasons[0]
    # removed from the last copy while an earlier output still holds it
    assert verify_chains([raw, removed])[0].status != "ok"
    # a restart turned into something else, or one that names a quantity, even when resealed
    for change in ({"kind": "measurement"}, {"quantity": "q"}, {"value": 1.0}):
        resealed = [dict(e) for e in raw]
        resealed[3].update(change)
        prev = GENESIS_PREV
        for e in resealed:
            e["prev"], e["hash"] = prev, entry_hash({**e, "prev": prev})
            prev = e["hash"]
        verdict, _ = verify_chains([resealed])
        assert verdict.status == "broken", change
        assert verify_chains([raw, resealed])[0].status != "ok"
    # an added genesis mid-chain is two chains joined
    joined = [dict(e) for e in raw]
    joined[3].update(kind="genesis")
    assert verify_chains([joined])[0].status in ("broken", "forged")


@settings(max_examples=100, deadline=None)
@given(
    st.integers(min_value=0, max_value=4),
    st.sampled_from(["seq", "prev", "value", "kind", "at", "quantity", "because"]),
    json_values,
)
def test_any_single_field_edit_of_a_chain_with_a_restart_is_detected(idx, field, new):
    raw = _dump(_restart_chain(("prediction", "q", 3.0), ("measurement", "q", 3.9), ("restart", None, None),
                               ("prediction", "q", 3.0)))
    if raw[idx].get(field) == new:
        return
    raw[idx][field] = new
    verdict, _ = verify_chains([raw])
    assert verdict.status != "ok"
