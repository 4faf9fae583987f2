"""05 · reduction fusion: softmax over the last dimension of an R x C tensor, three ways.

``eager`` composes it from primitives (max, subtract, exp, sum, divide: five kernels, each a full pass);
``compiled`` is torch.compile of that same function (one fused kernel while a row fits, more when rows are
very long and few); ``torch_softmax`` is the library kernel.
"""

from __future__ import annotations

from autograder.workload import Work, Workload, compile_fresh, fresh_function

COMPOSED = """def softmax(x):
    m = x.amax(-1, keepdim=True)
    e = (x - m).exp()
    s = e.sum(-1, keepdim=True)
    return e / s
"""
LIBRARY = "def library_softmax(x):\n    return torch.softmax(x, -1)\n"
ELEMENT = {"float16": 2, "bfloat16": 2, "float32": 4}


class Softmax(Workload):
    variants = ("eager", "compiled", "torch_softmax")
    params = ("dtype", "log2_cols", "log2_rows")
    size_param = "log2_cols"
    check_tolerance = (2e-2, 1e-5)

    def describe(self, params):
        r, c = 1 << int(params["log2_rows"]), 1 << int(params["log2_cols"])
        return f"softmax over rows · {params['dtype']} · {r:,} rows x {c:,} columns (2^{params['log2_rows']} x 2^{params['log2_cols']})"

    def inputs(self, params, device):
        import torch

        shape = (1 << int(params["log2_rows"]), 1 << int(params["log2_cols"]))
        return (torch.randn(*shape, device=device, dtype=getattr(torch, str(params["dtype"]))),)

    def build(self, variant, params):
        import torch

        if variant == "eager":
            return fresh_function(COMPOSED, "softmax", {"torch": torch})
        if variant == "compiled":
            return compile_fresh(COMPOSED, "softmax", {"torch": torch})
        return fresh_function(LIBRARY, "library_softmax", {"torch": torch})

    def work(self, variant, params):
        r, c = 1 << int(params["log2_rows"]), 1 << int(params["log2_cols"])
        s = ELEMENT[str(params["dtype"])]
        if variant == "eager":
            # amax: read x, write R | x - m: read x + R, write | exp: read, write | sum: read, write R | e / s
            return Work(
                bytes_read=(5 * r * c + 2 * r) * s,
                bytes_written=(3 * r * c + 2 * r) * s,
                launches=5,
                flops=5 * r * c,
                working_set=3 * r * c * s,
            )
        # one pass: read each row once, write it once (the model: one kernel)
        return Work(bytes_read=r * c * s, bytes_written=r * c * s, launches=1, flops=5 * r * c)


workload = Softmax()
