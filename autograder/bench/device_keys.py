"""A device's storage key from its name: pure (no torch), so that reading a ledger's device claim while
grading does not import torch (autograder.grading.references; tests/test_lazy_torch.py)."""

from __future__ import annotations

import re

__all__ = ["device_key"]


def device_key(name: str, kind: str) -> str:
    """Stable storage key: 'nvidia-h200' for a GPU; every CPU shares 'cpu' (its model is in the record)."""
    if kind == "cpu":
        return "cpu"
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug or "cuda"
