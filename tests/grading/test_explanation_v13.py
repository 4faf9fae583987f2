"""What the spent thirteenth blind set (benchmarks/explanation_heldout_v13) showed after preread12, each probed with
sentences of our own against the thirteenth set's frozen H200 references: the sweep answer that names two sizes
walks the sweep, and a size written as the count it equals ("N = 4096", "4.096e3 elements") names its case."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_explanation_false_credits import frozen, grade, the

REPO = Path(__file__).resolve().parents[2]
LESSONS = ("03_roofline", "04_fusion", "05_softmax", "06_fused_kernel")


@pytest.fixture(scope="module")
def thirteenth():
    """Every lesson against the thirteenth blind set's frozen H200 references."""
    return frozen(REPO / "benchmarks" / "explanation_heldout_v13" / "references", LESSONS)


def test_two_sizes_named_walk_the_sweep(thirteenth):
    # another size's GPU times in a sentence that names no size: a point of the sweep, unsure which, not named
    # misattributed to the lesson's case (fp16 2^24)
    g = grade(thirteenth, "04_fusion", "explain_sweep",
              "At 2^20 the compiled call loses per call; at 2^28 the bytes decide. "
              "The kernels alone are tiny: 4.56 µs against 1.09 µs.")
    assert the(g, "4.56 µs").verdict != "misattributed", g.comment
    assert the(g, "1.09 µs").verdict != "misattributed", g.comment


@pytest.mark.parametrize("said", ["At N = 4096", "At $N = 4096$", "For n=4,096"])
def test_a_size_written_n_equals_its_count_names_the_case(thirteenth, said):
    g = grade(thirteenth, "04_fusion", "explain_sweep",
              f"{said}: eager moves 65.5 KB and the fused kernel 16.4 KB, nothing, so a call is dispatch. "
              "At 2^28 eager moves 4.29 GB and fused 1.07 GB.")
    assert the(g, "65.5 KB").verdict == "match", g.comment
    assert the(g, "16.4 KB").verdict == "match", g.comment


def test_a_count_of_elements_in_scientific_notation_names_the_case(thirteenth):
    g = grade(thirteenth, "04_fusion", "explain_sweep",
              "At 4.096e3 elements: eager 6.55e4 B vs fused 1.64e4 B, launch-bound. "
              "At 2^28: 4.29e9 B vs 1.07e9 B, so the GPU ratio sits at the traffic ratio.")
    assert the(g, "6.55e4 B").verdict == "match", g.comment
    assert the(g, "1.64e4 B").verdict == "match", g.comment

