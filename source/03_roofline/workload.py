"""03 · roofline: a square matrix multiply next to an elementwise add that moves the same bytes.

Both read two n x n matrices and write one (3·n²·s bytes); the multiply does 2·n³ FLOPs, the add n².
Arithmetic intensity (FLOPs per byte) decides which ceiling a kernel meets: the copy roofline or the
matrix units' FLOP/s peak.  ``tf32`` is float32 storage with TF32 tensor-core math allowed.
"""

from __future__ import annotations

import contextlib
import re
from typing import ClassVar

from autograder.mentions import Mention
from autograder.workload import Fact, Work, Workload, fresh_function

#: the output tile of a large cuBLAS multiply on the GPU (one thread block each)
TILE = 128
STORAGE = {"bfloat16": ("bfloat16", 2), "float16": ("float16", 2), "float32": ("float32", 4), "tf32": ("float32", 4)}
SOURCES = {
    "matmul": ("def mm_kernel(a, b):\n    return a @ b\n", "mm_kernel"),
    "elementwise": ("def ew_kernel(a, b):\n    return a + b\n", "ew_kernel"),
}


class Roofline(Workload):
    variants = ("matmul", "elementwise")
    params = ("dtype", "log2_n")
    size_param = "log2_n"
    # how students name the two kernels in their explanations
    variant_words: ClassVar[dict[str, tuple[str, ...]]] = {
        "matmul": ("multiply", "multiplies", "multiplication", r"matrix[- ]multiply", "gemm", "mm", r"a\s?@\s?b",
                   "matrix product", "mat-?mul"),
        "elementwise": ("element-wise", "add", "adds", r"(?<!in )addition", "pointwise", r"a\s?\+\s?b",
                        "ew kernel"),
    }

    # the output tiles of the multiply (cuBLAS's 128 x 128 tiles, one per thread block): "64 tiles for 132 SMs"
    counted: ClassVar[dict[str, str]] = {
        "tiles": r"tiles?|Kacheln?|tuiles?|blocchi|azulejos?|ladrilhos?|(?:thread[- ])?blocks?|bloques?|blocos?|CTAs?",
    }

    def describe(self, params):
        n = 1 << int(params["log2_n"])
        return f"C = A @ B next to C = A + B · {params['dtype']} · n = 2^{params['log2_n']} ({n:,} x {n:,} matrices)"

    def inputs(self, params, device):
        import torch

        n = 1 << int(params["log2_n"])
        dtype = getattr(torch, STORAGE[str(params["dtype"])][0])
        return (torch.randn(n, n, device=device, dtype=dtype), torch.randn(n, n, device=device, dtype=dtype))

    def prepare(self, variant, params):
        @contextlib.contextmanager
        def precision():
            import torch

            old = torch.get_float32_matmul_precision()
            torch.set_float32_matmul_precision("high" if params["dtype"] == "tf32" else "highest")
            try:
                yield
            finally:
                torch.set_float32_matmul_precision(old)

        return precision

    def build(self, variant, params):
        source, name = SOURCES[variant]
        return fresh_function(source, name)

    def verify(self, variant, params, inputs, out, first):
        # the two variants compute different things: check each against float64 (the multiply on 64 rows)
        import torch

        a, b = inputs
        rows = min(64, a.shape[0])
        want = a[:rows].double() @ b.double() if variant == "matmul" else (a[:rows].double() + b[:rows].double())
        got = out[:rows].double()
        err = float(torch.linalg.norm(got - want) / torch.linalg.norm(want))
        limit = 3e-2 if params["dtype"] in ("bfloat16", "float16") else 5e-3
        return None if err < limit else f"{variant}: relative error {err:.1e} over {limit:.0e}"

    def work(self, variant, params):
        n = 1 << int(params["log2_n"])
        s = STORAGE[str(params["dtype"])][1]
        flops = 2 * n**3 if variant == "matmul" else n * n
        return Work(bytes_read=2 * n * n * s, bytes_written=n * n * s, launches=1, flops=flops)


    def facts(self, params):
        out = super().facts(params)
        n = 1 << int(params["log2_n"])
        if n >= TILE:  # a 1024² output is (1024 / 128)² = 64 tiles: half of the H200's 132 SMs get one
            out.append(Fact("count", (n // TILE) ** 2, f"output tiles of {TILE} x {TILE} of the multiply at n = {n}",
                            "matmul", params, topic="tiles"))
        return out

    def input_bytes(self, params):
        n = 1 << int(params["log2_n"])
        return [("one n x n matrix", n * n * STORAGE[str(params["dtype"])][1])]

    def mentions(self, text):
        # besides fp16/bf16/tf32 and 2^k: "n = 4096", "4096 x 4096", "4096²", "at 2048" (not "128 x 128 tiles")
        out = super().mentions(text)
        units = r"(?!\s*(?:[kmgt]i?b\b|bytes?|[gt]b/s|[kmgtp]?flop|µs|us\b|ms\b|%|x\b|×|tiles?|blocks?|threads?|sms?\b))"  # noqa: E501
        pat = (r"\bn\s*(?:=|of|is)\s*(\d{2,5})\b|\b(\d{2,5})\s*(?:x|×|by)\s*\2\b(?!\s*(?:[\w-]+\s+)?(?:tiles?|blocks?))"
               r"|(?<!/)\b(\d{2,5})(?:²|\^2\b|\*\*2\b)(?!\s*(?:tiles?|blocks?|=))|(?<![\w.,^×])(?<!x )(\d{3,5})\b(?![.,]\d)(?!\s*(?:[x×*]|of\b))" + units)
        for m in re.finditer(pat, text, re.I):
            if re.search(r"(?:tiles?|blocks?)\s+of\s*$", text[: m.start()], re.I):
                continue
            n = int(next(g for g in m.groups() if g))
            if n & (n - 1) == 0 and n >= (256 if m.group(4) else 16):
                out.append(Mention(m.start(), m.end(), params={"log2_n": n.bit_length() - 1}))
        return out


workload = Roofline()
