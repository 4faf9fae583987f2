"""What the spent fourteenth blind set (benchmarks/explanation_heldout_v14) showed after preread13, each probed with
sentences of our own against the fourteenth set's frozen H200 references: a figure written to four significant
digits is a fact only to within rounding-and-arithmetic (PRECISE_TOL), not the loose REL_TOL."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_explanation_false_credits import frozen, grade, the

REPO = Path(__file__).resolve().parents[2]
LESSONS = ("03_roofline", "04_fusion", "05_softmax", "06_fused_kernel")


@pytest.fixture(scope="module")
def fourteenth():
    """Every lesson against the fourteenth blind set's frozen H200 references."""
    return frozen(REPO / "benchmarks" / "explanation_heldout_v14" / "references", LESSONS)


def test_a_four_digit_bandwidth_seven_percent_off_is_not_credited(fourteenth):
    # 4,117 GB/s is the fused-kernel lesson's (06, 2^26) bandwidth; the fusion lesson's fused kernel reaches 3,840
    g = grade(fourteenth, "04_fusion", "explain_headline",
              "Eager moves 268 MB in 4 launches and the fused kernel 67 MB in 1. The fused kernel reaches "
              "4,117 GB/s. Eager reaches 3,867 GB/s and the fused kernel 3,840 GB/s.")
    assert the(g, "4,117 GB/s").verdict != "match", g.comment
    assert the(g, "3,840 GB/s").verdict == "match", g.comment
    assert the(g, "3,867 GB/s").verdict == "match", g.comment



def test_a_caption_line_over_a_pasted_sweep_leaves_its_header_to_the_line_under_it(fourteenth):
    # "float16 sweep (...)" over "log2_n  gpu eager ...": the rows' exponents name their cases
    g = grade(fourteenth, "04_fusion", "explain_sweep",
              "Sweep:\n\n```\nfloat16 sweep (eager vs compiled)\n"
              "log2_n   gpu eager   gpu comp   gpu x    wall eager   wall comp   wall x\n"
              "12       4.56 µs     1.09 µs    4.20     76.10 µs     73.55 µs    1.03\n"
              "24       69.42 µs    17.48 µs   3.97     91.10 µs     97.90 µs    0.93\n```\n")
    assert the(g, "4.56 µs").verdict == "match", g.comment
    assert the(g, "73.55 µs").verdict == "match", g.comment
    assert the(g, "69.42 µs").verdict == "match", g.comment


def test_a_row_headed_by_a_bare_count_under_n_names_its_case(fourteenth):
    # "| 4096 |" under "N" is the case of 4096 elements (2^12), not the lesson's 2^24
    g = grade(fourteenth, "04_fusion", "explain_sweep",
              "| N | eager GPU | compiled GPU |\n|---|---|---|\n| 4096 | 4.56 µs | 1.09 µs |\n"
              "| 16,777,216 | 69.42 µs | 17.48 µs |\n")
    assert the(g, "4.56 µs").verdict == "match", g.comment
    assert the(g, "1.09 µs").verdict == "match", g.comment
    assert the(g, "17.48 µs").verdict == "match", g.comment
