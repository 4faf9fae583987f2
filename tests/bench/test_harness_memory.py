"""A case that does not fit in memory is one sentence (the case, the machine, what to do), not the allocator's
traceback: a real allocation of 2^50 fp16 elements on this machine's CPU."""

from __future__ import annotations

import pytest
import torch

from autograder.bench.harness import Harness, out_of_memory_message
from autograder.errors import BenchmarkError
from autograder.spec import load_spec


def test_a_case_larger_than_memory_is_one_sentence(repo):
    spec = load_spec(repo / "source" / "04_fusion")
    harness = Harness(device=torch.device("cpu"), l2_bytes=0)
    with pytest.raises(BenchmarkError) as info:
        harness.measure(spec.workload, {"dtype": "float16", "log2_n": 50})
    msg = str(info.value)
    assert msg.startswith("not measured: the case dtype=float16, log2_n=50 does not fit in this machine's memory")
    assert "can't allocate memory" in msg and "\n" not in msg
    assert info.value.__cause__ is None and info.value.__suppress_context__  # no chained allocator traceback


def test_other_runtime_errors_are_not_called_out_of_memory(repo):
    spec = load_spec(repo / "source" / "04_fusion")
    with pytest.raises(RuntimeError) as info:
        Harness(device=torch.device("cpu"), l2_bytes=0).measure(spec.workload, {"dtype": "bool", "log2_n": 4})  # randn: not for Bool
    assert not isinstance(info.value, BenchmarkError)


def test_the_message_names_the_allocators_first_line_only():
    e = RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate 8 bytes.\nsecond line")
    msg = out_of_memory_message(torch.device("cpu"), {"n": 3}, e)
    assert msg.endswith("(DefaultCPUAllocator: can't allocate memory: you tried to allocate 8 bytes.)")
