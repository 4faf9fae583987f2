"""Build the lesson's chain as a *fresh* Python function per case.

dynamo keys its cache by code object: one function compiled at several sizes shares a cache entry, goes
dynamic, and once ran the fused kernel slower than eager (DESIGN.md).  Generating new source per case
gives each compile its own code object; callers also ``torch._dynamo.reset()`` and pass ``dynamic=False``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import torch

from ..spec import ChainOp

__all__ = ["compile_fresh", "make_chain"]

_counter = itertools.count()


def _expr(ops: Sequence[ChainOp]) -> str:
    expr = "x"
    for op in ops:
        if op.op == "relu":
            expr = f"torch.relu({expr})"
        else:
            expr = f"({expr} {'*' if op.op == 'mul' else '+'} {op.arg!r})"
    return expr


def make_chain(ops: Sequence[ChainOp]) -> Callable[[torch.Tensor], torch.Tensor]:
    """A new function object with a new code object computing the chain (one eager kernel per op)."""
    name = f"chain_{next(_counter)}"
    src = f"def {name}(x):\n    return {_expr(ops)}\n"
    ns: dict[str, Any] = {"torch": torch}
    exec(compile(src, f"<lesson chain {name}>", "exec"), ns)
    fn: Callable[[torch.Tensor], torch.Tensor] = ns[name]
    return fn


def compile_fresh(ops: Sequence[ChainOp]) -> Callable[[torch.Tensor], torch.Tensor]:
    """torch.compile of a fresh chain, static shapes, after clearing dynamo's caches."""
    torch._dynamo.reset()
    return torch.compile(make_chain(ops), dynamic=False)  # type: ignore[return-value]
