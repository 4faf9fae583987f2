import pytest

from autograder.records import Case
from autograder.traffic import traffic


@pytest.mark.parametrize("dtype, s", [("float16", 2), ("float32", 4)])
def test_unfused_chain_moves_8Ns_and_fused_2Ns(dtype, s):
    n = 1 << 24
    eager = traffic(Case(variant="eager", dtype=dtype, log2_n=24), 4)
    fused = traffic(Case(variant="compiled", dtype=dtype, log2_n=24), 4)
    assert eager.bytes_moved == 8 * n * s and eager.launches == 4
    assert fused.bytes_moved == 2 * n * s and fused.launches == 1
    assert eager.bytes_moved / fused.bytes_moved == 4


def test_traffic_scales_with_chain_length():
    assert traffic(Case(variant="eager", dtype="float16", log2_n=10), 7).launches == 7
    with pytest.raises(ValueError):
        traffic(Case(variant="eager", dtype="float16", log2_n=10), 0)
