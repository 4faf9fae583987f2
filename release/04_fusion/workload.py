"""04 · fusion: an elementwise chain run eagerly (one kernel per op) or compiled into one fused kernel.

The framework measures, grades and pre-reads explanations through this module (autograder.workload).
"""

from __future__ import annotations

import re
from typing import ClassVar

from autograder.mentions import Mention
from autograder.workload import Fact, Work, Workload, compile_fresh, fresh_function

#: relu(x * 2 + 1) * 0.5 -- one elementwise kernel per op when run eagerly
CHAIN = "def relu_chain(x):\n    return ((torch.relu(((x * 2.0) + 1.0)) * 0.5))\n"
N_OPS = 4
DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4}


class Fusion(Workload):
    variants = ("eager", "compiled")
    params = ("dtype", "log2_n")
    size_param = "log2_n"
    # how students name the two versions in their explanations
    variant_words: ClassVar[dict[str, tuple[str, ...]]] = {
        "eager": ("unfused", "un-fused", "non-fused", "eagerly", "pytorch eager"),
        "compiled": ("fused", r"torch\.compile", "triton", "inductor"),
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
        # unfused: every op reads one tensor and writes one; fused: read the input once, write the output once
        n_s = (1 << int(params["log2_n"])) * DTYPE_BYTES[str(params["dtype"])]
        passes = N_OPS if variant == "eager" else 1
        # eager keeps the input, one intermediate being read and one being written alive at once
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
            Fact("bytes", fused.bytes_moved, f"fused traffic 2·N·s for {size}", "compiled", params),
            Fact("launches", eager.launches, "eager kernel launches", "eager", params),
            Fact("launches", fused.launches, "fused kernel launches", "compiled", params),
            Fact("ratio", eager.bytes_moved / fused.bytes_moved, "traffic ratio unfused/fused", None, params),
        ]


    def mentions(self, text):
        # besides fp16/fp32 and 2^k: "4096 elements", "16,777,216 values"
        out = super().mentions(text)
        for m in re.finditer(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)\s+(?:elements|values)\b", text, re.I):
            n = int(m.group(1).replace(",", ""))
            if n > 1 and n & (n - 1) == 0:
                out.append(Mention(m.start(), m.end(), params={"log2_n": n.bit_length() - 1}))
        return out

    def input_bytes(self, params):
        return [("one tensor (N·s)", (1 << int(params["log2_n"])) * DTYPE_BYTES[str(params["dtype"])])]


workload = Fusion()
