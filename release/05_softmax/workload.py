"""05 · reduction fusion: softmax over the last dimension of an R x C tensor, three ways.

``eager`` composes it from primitives (max, subtract, exp, sum, divide: five kernels, each a full pass);
``compiled`` is torch.compile of that same function (one fused kernel while a row fits, more when rows are
very long and few); ``torch_softmax`` is the library kernel.
"""

from __future__ import annotations

import re
from typing import ClassVar

from autograder.mentions import Mention, dtype_mentions
from autograder.workload import Fact, Work, Workload, compile_fresh, fresh_function

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
    # how students name the three versions in their explanations
    variant_words: ClassVar[dict[str, tuple[str, ...]]] = {
        "eager": ("composed", "unfused", "naive", "eagerly", "hand-written", "primitive ops"),
        "compiled": ("fused", r"torch\.compile", "triton", "inductor"),
        "torch_softmax": (r"torch\.softmax", r"f\.softmax", r"library(?: kernel| softmax| version| one)?",
                          r"built-?in(?: softmax)?", r"softmax kernel of pytorch"),
    }

    # the library kernel gives each row one thread block (one SM): at one long row, one SM of the GPU works
    counted: ClassVar[dict[str, str]] = {
        "blocks": r"(?:thread[- ])?blocks?|bloques?|blocs?|Bl[öo]cke?n?|blocchi|blocos?|CTAs?",
        "sms_busy": r"SMs?|streaming multiprocessors?|multiprocesseurs?|multiprocesadore?s?",
    }

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


    def facts(self, params):
        out = super().facts(params)
        out.append(Fact("count", 1, "thread blocks torch.softmax gives one row", "torch_softmax", params,
                        topic="blocks"))
        if int(params["log2_rows"]) == 0:  # one row, one block: one SM of the GPU busy
            out.append(Fact("count", 1, "SMs torch.softmax keeps busy on the one row", "torch_softmax", params,
                            topic="sms_busy"))
        return out

    def input_bytes(self, params):
        r, c = 1 << int(params["log2_rows"]), 1 << int(params["log2_cols"])
        s = ELEMENT[str(params["dtype"])]
        return [("the R x C tensor", r * c * s), ("one row", c * s)]

    def mentions(self, text):
        # "4096 x 4096", "128 columns (2^17 rows)", "one row of 2^20", "64 rows of 2^20"; a bare 2^24 is a
        # count of elements, not a shape, so the default reading of 2^k is not used
        out = dtype_mentions(text)
        num = r"(2\s?\^\s?\d{1,2}|\d{1,3}(?:,\d{3})+|\d{1,7})(?![\d^])"
        shapes = [
            (num + r"\s*(?:x|×|by)\s*" + num, ("log2_rows", "log2_cols")),
            (num + r"\s+rows?\s*(?:x|×|by)\s*" + num, ("log2_rows", "log2_cols")),  # "1 row × 2^20 fp16"
            (num + r"[\s-]*(?:columns|cols|values per row|elements per row|wide)\b", ("log2_cols",)),
            (r"\brows? of\s+(?:length\s+)?" + num, ("log2_cols",)),
            (r"\bat\s+(2\s?\^\s?\d{1,2})(?![\d^])(?!\s*(?:x|×|by|rows)\b)", ("log2_cols",)),
            (num + r"\s+(?:\w+\s+)?rows\b", ("log2_rows",)),
            (num + r"(?!\s*(?:[kmgt]i?b|bytes?)\b)[\s-]+(?:\w+[\s-]+)?row\b", ("log2_cols",)),  # "the single 2^20 row"
        ]
        for pat, names in shapes:
            for m in re.finditer(pat, text, re.I):
                values = [_log2(g) for g in m.groups()]
                if names == ("log2_cols",) and values == [0]:
                    continue  # "1 row" is one row, never a row one element long
                if all(v is not None for v in values):
                    out.append(Mention(m.start(), m.end(), params=dict(zip(names, values, strict=True))))
        for m in re.finditer(r"\b(?:one|a single|1|single)\s+(?:long\s+)?row\b", text, re.I):
            out.append(Mention(m.start(), m.end(), params={"log2_rows": 0}))
        return out


def _log2(text):
    text = text.replace(" ", "").replace(",", "")
    n = 1 << int(text.split("^")[1]) if "^" in text else int(text)
    return n.bit_length() - 1 if n > 0 and n & (n - 1) == 0 else None


workload = Softmax()
