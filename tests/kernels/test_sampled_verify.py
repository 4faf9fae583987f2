"""Large timed outputs are checked at elements the parent picks after the timed calls (Limits.verify_sample_from).

A 2^26-element output saved whole and read back cost ~0.1 s each, nine per submission; the child now saves the
first and last 2^16 elements and 2^20 more at ``(start + stride * j) % n``, with start and stride picked by the
parent once the case's timed calls are over, so no call can know which elements count."""

from __future__ import annotations

import math

import torch

from autograder.kernels import Limits, run_submission
from autograder.kernels.child import SAMPLE_EDGE, SAMPLE_SIZE, sample_indices, sample_plan

from .conftest import make_task, source_of

#: on the CPU the fixture's timed case has 2^14 elements: sampled from 1,000 (every element is hit, the
#: spread wraps round); on CUDA 2^22 (sampled by the default limit)
SAMPLED = Limits(wall_s=60.0, verify_sample_from=1000)


def test_the_picked_elements_are_distinct_spread_and_the_same_for_child_and_parent():
    n = 1 << 26
    for pick in (0, 1, 12345678901234567, (1 << 62) - 1):
        start, stride = sample_plan(n, pick)
        assert 0 <= start < n and 1 <= stride < n and math.gcd(stride, n) == 1
        idx = sample_indices(torch, n, pick, "cpu")
        assert idx.numel() == 2 * SAMPLE_EDGE + SAMPLE_SIZE
        spread = idx[2 * SAMPLE_EDGE:]
        assert spread.unique().numel() == SAMPLE_SIZE  # distinct
        assert bool((idx >= 0).all()) and bool((idx < n).all())
        # every residue of a block of 1024 is hit alike (a bug in one lane of every block is seen)
        counts = torch.bincount(spread % 1024, minlength=1024)
        assert int(counts.min()) == int(counts.max()) == SAMPLE_SIZE // 1024
        assert torch.equal(idx, sample_indices(torch, n, pick, "cpu"))  # pure
    assert not torch.equal(sample_indices(torch, n, 1, "cpu"), sample_indices(torch, n, 2, "cpu"))
    # an odd size: the stride is moved to one coprime with it
    n = 3 * 5 * 7 * (1 << 20)
    for pick in range(50):
        assert math.gcd(sample_plan(n, pick)[1], n) == 1


def _wrong_at(cond: str) -> str:
    return ("import torch\n\ndef fused_chain(x):\n    out = torch.relu(x * 2 + 1) * 0.5\n"
            f"    flat = out.view(-1)\n    n = flat.numel()\n    if n > 5000:\n        {cond}\n    return out\n")


def test_a_correct_kernel_passes_on_sampled_outputs_and_the_record_says_so():
    r = run_submission(make_task(source_of("correct_torch"), limits=SAMPLED))
    assert r.verdict == "ok", r.reason
    notes = r.cases[0].measurement.notes
    n = 1 << int(make_task("").cases[0]["log2_n"])  # 2^14 on a CPU, 2^22 on CUDA
    assert f"outputs checked at {2 * min(SAMPLE_EDGE, n) + SAMPLE_SIZE} elements each, picked after" in notes
    whole = run_submission(make_task(source_of("correct_torch"), limits=Limits(wall_s=60.0, verify_sample_from=0)))
    assert whole.verdict == "ok" and "picked after" not in whole.cases[0].measurement.notes


def test_a_kernel_wrong_in_one_lane_of_every_block_or_in_the_middle_is_caught_on_sampled_outputs():
    for cond in ("flat[5::1024] += 1.0", "flat[n // 2 + 7] = 99.0"):
        r = run_submission(make_task(_wrong_at(cond), limits=SAMPLED))
        assert (r.verdict, r.family) == ("wrong", "shape_special"), (cond, r.reason)


def test_a_replayed_result_is_still_named_on_sampled_outputs():
    r = run_submission(make_task(source_of("cached_ptr"), limits=SAMPLED))
    assert (r.verdict, r.family) == ("wrong", "cached_result"), r.reason


def test_a_kernel_that_makes_the_child_save_other_elements_than_the_parent_picked_is_caught():
    """The pick travels after the timed calls; a submission that rewires the child's saving to elements of its own
    choosing (here: the next pick) is named, whatever those elements hold."""
    source = '''import sys
import torch

_main = sys.modules["__main__"]
_orig = _main._save


def _save(child, out, path, budget, pick=None, sample_from=0):
    return _orig(child, out, path, budget, None if pick is None else pick + 1, sample_from)


_main._save = _save


def fused_chain(x):
    return torch.relu(x * 2 + 1) * 0.5
'''
    r = run_submission(make_task(source, limits=SAMPLED))
    assert (r.verdict, r.family) == ("gamed", "forged_message"), r.reason
    assert "did not pick" in r.reason
