"""06 · your own fused kernel: the chain of 04, relu(x * 2 + 1) * 0.5, written by the student as one kernel.

The reference bench measures the lesson's own variants (eager PyTorch, torch.compile); the student's kernel
(``[student_variant]`` in lesson.toml) is measured by the grader on the device of record, against
:func:`reference_chain`, on inputs :func:`make_inputs` makes from a seed the student never sees.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from autograder.mentions import Mention
from autograder.workload import Fact, Work, Workload, compile_fresh, fresh_function

#: relu(x * 2 + 1) * 0.5 -- one elementwise kernel per op when run eagerly
CHAIN = "def relu_chain(x):\n    return ((torch.relu(((x * 2.0) + 1.0)) * 0.5))\n"
N_OPS = 4
DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4}


def reference_chain(x: Any) -> Any:
    """What the student's ``fused_chain(x)`` must return (same shape, dtype and device as ``x``)."""
    import torch

    return torch.relu(x * 2.0 + 1.0) * 0.5


def case_size(case: dict[str, Any]) -> int:
    """Elements of a case: ``n`` where a check case gives an odd size, else 2^log2_n."""
    return int(case["n"]) if "n" in case else 1 << int(case["log2_n"])


def make_inputs(case: dict[str, Any], seed: int, device: str) -> tuple[Any, ...]:
    """Fresh inputs of one case from ``seed``, made on ``device`` by its own generator: the same seed gives
    the same tensor on any run on that kind of device (the grader's parent and the kernel's child make them
    on the same one). A CPU generator took 9-12 s of each student's 2^26-element inputs on the H200 node."""
    import torch

    gen = torch.Generator(device=device).manual_seed(int(seed))
    x = torch.randn(case_size(case), generator=gen, dtype=torch.float32, device=device)
    return (x.to(dtype=getattr(torch, str(case["dtype"]))),)


class FusedKernel(Workload):
    variants = ("eager", "compiled")
    params = ("dtype", "log2_n")
    size_param = "log2_n"
    variant_words: ClassVar[dict[str, tuple[str, ...]]] = {
        "eager": ("unfused", "un-fused", "non-fused", "eagerly", "pytorch eager", "four kernels"),
        # the student's kernel is fused like the compiled one: its bytes and launches are the compiled
        # variant's (the pre-reader judges "my kernel moves 67 MB" as a fused kernel's traffic)
        "compiled": (r"torch\.compile", "inductor", "fused", "triton", r"\bmy kernel", "one kernel", "single kernel"),
    }

    def describe(self, params):
        k = params["log2_n"]
        return f"relu(x * 2 + 1) * 0.5 · {params['dtype']} · N = 2^{k} = {1 << k:,} elements"

    def inputs(self, params, device):
        import torch

        return (torch.randn(1 << int(params["log2_n"]), device=device, dtype=getattr(torch, str(params["dtype"]))),)

    def build(self, variant, params):
        import torch

        if variant == "eager":
            return fresh_function(CHAIN, "relu_chain", {"torch": torch})
        return compile_fresh(CHAIN, "relu_chain", {"torch": torch})

    def work(self, variant, params):
        # eager: every op reads one tensor and writes one; a fused kernel (compiled, or the student's): read
        # the input once, write the output once
        n_s = (1 << int(params["log2_n"])) * DTYPE_BYTES[str(params["dtype"])]
        passes = N_OPS if variant == "eager" else 1
        return Work(
            bytes_read=passes * n_s,
            bytes_written=passes * n_s,
            launches=passes,
            flops=N_OPS * (1 << int(params["log2_n"])),
            working_set=3 * n_s if passes > 1 else 2 * n_s,
        )

    def facts(self, params):
        eager, fused = self.work("eager", params), self.work("compiled", params)
        size = f"{params['dtype']} 2^{params['log2_n']}"
        return [
            Fact("bytes", eager.bytes_moved, f"unfused traffic {2 * N_OPS}·N·s for {size}", "eager", params),
            Fact("bytes", fused.bytes_moved, f"one fused kernel's traffic 2·N·s for {size}", "compiled", params),
            Fact("launches", eager.launches, "eager kernel launches", "eager", params),
            Fact("launches", fused.launches, "launches of one fused kernel", "compiled", params),
            Fact("ratio", eager.bytes_moved / fused.bytes_moved, "traffic ratio unfused/fused", None, params),
        ]

    def mentions(self, text):
        out = super().mentions(text)
        for m in re.finditer(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)\s+(?:elements|values)\b", text, re.I):
            n = int(m.group(1).replace(",", ""))
            if n > 1 and n & (n - 1) == 0:
                out.append(Mention(m.start(), m.end(), params={"log2_n": n.bit_length() - 1}))
        return out

    def input_bytes(self, params):
        return [("one tensor (N·s)", (1 << int(params["log2_n"])) * DTYPE_BYTES[str(params["dtype"])])]


workload = FusedKernel()
