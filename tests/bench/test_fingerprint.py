"""Fingerprint pieces that need no GPU: the matmul peak, device choice, --sizes, and the grading note."""

import pytest
import torch

from autograder.bench.fingerprint import DeviceChoiceError, matmul_tflops, pick_device
from autograder.bench.options import BenchUsageError, parse_sizes
from autograder.grading.references import fingerprint_note
from tests.bench._synthetic import device


def test_cpu_matmul_peak_is_positive_and_leaves_tf32_as_it_was():
    before = torch.backends.cuda.matmul.allow_tf32
    assert matmul_tflops(torch.device("cpu"), "float32") > 0
    assert matmul_tflops(torch.device("cpu"), "tf32") > 0
    assert torch.backends.cuda.matmul.allow_tf32 == before


@pytest.mark.parametrize("asked, says", [("tpu", "unknown device"), ("meta", "not supported")])
def test_unknown_devices_are_refused(asked, says):
    with pytest.raises(DeviceChoiceError, match=says):
        pick_device(asked)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_without_a_gpu_says_what_to_do():
    with pytest.raises(DeviceChoiceError, match="--device cpu"):
        pick_device("cuda")


def test_sizes_outside_the_sweep_or_not_numbers_are_refused(spec):
    assert parse_sizes("12, 24", spec, "cpu") == [12, 24] and parse_sizes(None, spec, "cpu") is None
    with pytest.raises(BenchUsageError, match="'abc' is not a whole number"):
        parse_sizes("12,abc", spec, "cpu")
    with pytest.raises(BenchUsageError, match="2\\^40 is not in 04_fusion's cpu sweep; choose from 12,16,20,22,24"):
        parse_sizes("40", spec, "cpu")
    assert parse_sizes("28", spec, "cuda") == [28]


def test_note_names_what_moves_timings_and_ignores_patch_releases():
    ref = device(cpu_model="Intel(R) Xeon(R) Processor", driver="580.159.04", triton="3.6.0")
    assert fingerprint_note(ref, {"device_key": "nvidia-h200", "torch": "2.11.1+cu130"}) == ""
    note = fingerprint_note(
        ref, {"device_key": "nvidia-h200", "torch": "2.9.0", "triton": "3.6.1", "cpu_model": "AMD EPYC 9654"}
    )
    assert "torch 2.9 (reference: 2.11)" in note and "triton" not in note
    assert "host CPU AMD EPYC 9654" in note and "wall" in note
    assert "NVIDIA H100" in fingerprint_note(ref, {"device_key": "nvidia-h100", "device_name": "NVIDIA H100"})
