"""Facts of each explanation cell, computed from /work/main/references/*/nvidia-h200.json and the work model
(lesson.toml/workload.py formulas retyped by hand). Prints the '#' facts sheet of a cell; check.py uses FACTS."""
import json, sys
REF = "/work/main/references/%s/nvidia-h200.json"

def load(lesson):
    d = json.load(open(REF % lesson))
    meas = {}
    for m in d["measurements"]:
        c = m["case"]; key = (c["variant"],) + tuple(sorted(c["params"].items())) + (m["method"],)
        meas[key] = m
    return d, meas

def med(meas, variant, method, **p):
    return meas[(variant,) + tuple(sorted(p.items())) + (method,)]["stats"]["median"] * 1e-3

def F(label, kind, value, desc):
    return dict(label=label, kind=kind, value=float(value), desc=desc)

WALL, GPU = "wall_per_call", "gpu_time"
FACTS = {}

# ---------------- 03_roofline
d3, m3 = load("03_roofline"); pk3 = d3["device"]["peaks"]; q3 = d3["quantities"]
def roof_case(dtype, k, tag, lab_m="matmul", lab_e="elementwise"):
    n = 1 << k; s = 4 if dtype in ("float32", "tf32") else 2
    out = []
    b = 3 * n * n * s
    out.append(F(lab_m, "bytes", b, f"{tag}: bytes moved by the multiply 3·n²·s (same as the add: 'both' -> any)"))
    out.append(F(lab_e, "bytes", b, f"{tag}: bytes moved by the add 3·n²·s"))
    out.append(F("any" if lab_m == "matmul" else "other", "bytes", b, f"{tag}: bytes moved by either kernel, said of both"))
    out.append(F(lab_m, "flop", 2 * n**3, f"{tag}: multiply FLOPs 2·n³"))
    out.append(F(lab_e, "flop", n * n, f"{tag}: add FLOPs n²"))
    out.append(F(lab_m, "ratio", 2 * n**3 / b, f"{tag}: multiply intensity FLOP/byte 2n/(3s)"))
    out.append(F(lab_e, "ratio", n * n / b, f"{tag}: add intensity FLOP/byte 1/(3s)"))
    out.append(F(lab_m, "count", 1, f"{tag}: multiply launches (profiler: {m3[('matmul',('dtype',dtype),('log2_n',k),GPU)]['launches']})"))
    for meth, mn in ((GPU, "GPU time"), (WALL, "wall per call")):
        tm = med(m3, "matmul", meth, dtype=dtype, log2_n=k); te = med(m3, "elementwise", meth, dtype=dtype, log2_n=k)
        out.append(F(lab_m, "time", tm, f"{tag}: multiply {mn}"))
        out.append(F(lab_e, "time", te, f"{tag}: add {mn}"))
        out.append(F(lab_m, "flops", 2 * n**3 / tm, f"{tag}: multiply FLOP/s, {mn}"))
        out.append(F(lab_m, "ratio", 2 * n**3 / tm / 1e12 / pk3["matmul_tflops:" + dtype], f"{tag}: multiply share of the {dtype} peak, {mn}"))
        out.append(F(lab_e, "bw", b / te, f"{tag}: add bandwidth, {mn}"))
        out.append(F(lab_m, "bw", b / tm, f"{tag}: multiply bandwidth (bytes/time), {mn}"))
        out.append(F(lab_e, "ratio", b / te / 1e9 / pk3["copy_gbps"], f"{tag}: add share of the copy roofline, {mn}"))
        out.append(F("any", "ratio", tm / te, f"{tag}: multiply time / add time, {mn}"))
    return out

common3 = [
    F("any", "bw", pk3["copy_gbps"] * 1e9, "copy roofline (measured)"),
    F("any", "flops", pk3["matmul_tflops:bfloat16"] * 1e12, "bf16 matmul peak (measured)"),
    F("any", "ratio", pk3["matmul_tflops:bfloat16"] * 1e12 / (pk3["copy_gbps"] * 1e9), "ridge point bf16 FLOP/byte = bf16 peak / copy roofline"),
    F("any", "count", 132, "SMs of the H200 (device)"),
]
FACTS["03_roofline.explain_intensity"] = dict(
    facts=roof_case("bfloat16", 12, "bf16 n=4096") + common3 + [
        F("any", "ratio", q3["matmul_vs_add@bf16,4096"]["value"], "reference quantity matmul_vs_add@bf16,4096 (GPU time)"),
        F("any", "ratio", 2 * 4096, "FLOP ratio (and intensity ratio) multiply/add = 2n"),
    ],
    given=[F("given", "count", 4096, "n"), F("given", "bytes", 4096 * 4096 * 2, "one n x n bf16 matrix (input size)")],
    other=roof_case("float32", 12, "OTHER dtype fp32 n=4096", "matmul_fp32", "elementwise_fp32")
        + roof_case("bfloat16", 10, "OTHER case bf16 n=1024", "matmul_1024", "elementwise_1024")
        + [F("other", "ratio", q3["bf16_vs_fp32@4096"]["value"], "OTHER quantity: bf16 over fp32 speedup at 4096"),
           F("other", "ratio", 3.959, "OTHER lesson 04: fused GPU speedup fp16 2^24"),
           F("other", "flops", pk3["matmul_tflops:float32"] * 1e12, "OTHER dtype: fp32 peak"),
           F("other", "flops", pk3["matmul_tflops:tf32"] * 1e12, "OTHER dtype: tf32 peak"),
           F("other", "bytes", 1024 * 1024 * 2, "OTHER case: one bf16 1024 x 1024 matrix")],
)
tf = 2 * 4096**3
FACTS["03_roofline.explain_small"] = dict(
    facts=roof_case("bfloat16", 10, "bf16 n=1024") + common3 + [
        F("matmul", "ratio", q3["peak_fraction@bf16,1024"]["value"], "reference quantity peak_fraction@bf16,1024 (GPU time; pooled processes)"),
        F("any", "count", 64, "output tiles of 128x128 at n=1024 (model)"),
        F("any", "count", 256, "output tiles of 128x128 at n=2048 (model) [asked by the prompt: said of 2048 -> any]"),
        F("any", "ratio", 17179869184 / med(m3, "matmul", GPU, dtype="bfloat16", log2_n=11) / 1e12 / pk3["matmul_tflops:bfloat16"], "bf16 n=2048 multiply share of peak, GPU time [said of 2048 -> any]"),
        F("any", "count", q3["half_peak_size@bf16"]["value"], "reference half-peak size n (bf16)"),
        F("any", "flops", tf / med(m3, "matmul", GPU, dtype="tf32", log2_n=12), "TF32 n=4096 multiply FLOP/s, GPU time [asked by the prompt: said of tf32 -> any]"),
        F("any", "time", med(m3, "matmul", GPU, dtype="tf32", log2_n=12), "TF32 n=4096 multiply GPU time [said of tf32 -> any]"),
        F("any", "flops", tf / med(m3, "matmul", GPU, dtype="float32", log2_n=12), "fp32 (no TF32) n=4096 multiply FLOP/s, GPU time [said of fp32 -> any]"),
        F("any", "time", med(m3, "matmul", GPU, dtype="float32", log2_n=12), "fp32 (no TF32) n=4096 multiply GPU time [said of fp32 -> any]"),
        F("any", "flops", 17179869184 / med(m3, "matmul", GPU, dtype="bfloat16", log2_n=11), "bf16 n=2048 multiply FLOP/s, GPU time [said of 2048 -> any]"),
        F("any", "time", med(m3, "matmul", GPU, dtype="bfloat16", log2_n=11), "bf16 n=2048 multiply GPU time [said of 2048 -> any]"),
        F("any", "ratio", 2 * 1024 ** 3 / med(m3, "matmul", GPU, dtype="tf32", log2_n=10) / 1e12 / pk3["matmul_tflops:tf32"], "tf32 n=1024 share of the tf32 peak [said of tf32 1024 -> any]"),
        F("any", "ratio", med(m3, "matmul", GPU, dtype="float32", log2_n=12) / med(m3, "matmul", GPU, dtype="tf32", log2_n=12), "TF32 over fp32 speedup at 4096, GPU time"),
        F("any", "ratio", med(m3, "matmul", GPU, dtype="tf32", log2_n=12) / med(m3, "matmul", GPU, dtype="bfloat16", log2_n=12), "bf16 over TF32 speedup at 4096, GPU time"),
        F("any", "ratio", q3["bf16_vs_fp32@4096"]["value"], "bf16 over fp32 speedup at 4096 (reference quantity)"),
        F("any", "flops", pk3["matmul_tflops:tf32"] * 1e12, "tf32 peak (measured)"),
        F("any", "flops", pk3["matmul_tflops:float32"] * 1e12, "fp32 peak (measured)"),
        F("any", "time", med(m3, "matmul", GPU, dtype="bfloat16", log2_n=12), "bf16 n=4096 multiply GPU time [said of bf16 4096 -> any; said of 1024 -> misattributed]"),
        F("any", "flops", tf / med(m3, "matmul", GPU, dtype="bfloat16", log2_n=12), "bf16 n=4096 multiply FLOP/s [said of bf16 4096 -> any; said of 1024 -> misattributed]"),
    ],
    given=[F("given", "count", 1024, "n"), F("given", "bytes", 1024 * 1024 * 2, "one n x n bf16 matrix (input size)")],
    other=roof_case("bfloat16", 12, "OTHER case bf16 n=4096", "matmul_4096", "elementwise_4096")
        + [F("other", "ratio", 3.959, "OTHER lesson 04: fused GPU speedup fp16 2^24"),
           F("other", "ratio", 3.2026, "OTHER lesson 05: compiled softmax speedup"),
           F("other", "time", 65.232e-6, "OTHER lesson 04: fused wall per call fp16 2^12"),
           F("other", "time", 1.381e-6, "OTHER lesson 04: fused GPU time fp16 2^12")],
)

# ---------------- 04_fusion
d4, m4 = load("04_fusion"); pk4 = d4["device"]["peaks"]; q4 = d4["quantities"]
def fus_case(dtype, k, tag, le="eager", lc="compiled"):
    N = 1 << k; s = 2 if dtype == "float16" else 4
    out = [F(le, "bytes", 8 * N * s, f"{tag}: eager traffic 8·N·s"), F(lc, "bytes", 2 * N * s, f"{tag}: fused traffic 2·N·s"),
           F(le, "count", 4, f"{tag}: eager launches"), F(lc, "count", 1, f"{tag}: fused launches")]
    for meth, mn in ((GPU, "GPU time"), (WALL, "wall per call")):
        te = med(m4, "eager", meth, dtype=dtype, log2_n=k); tc = med(m4, "compiled", meth, dtype=dtype, log2_n=k)
        out += [F(le, "time", te, f"{tag}: eager {mn}"), F(lc, "time", tc, f"{tag}: fused {mn}"),
                F(le, "bw", 8 * N * s / te, f"{tag}: eager bandwidth, {mn}"), F(lc, "bw", 2 * N * s / tc, f"{tag}: fused bandwidth, {mn}"),
                F(le, "ratio", 8 * N * s / te / 1e9 / pk4["copy_gbps"], f"{tag}: eager share of the copy roofline, {mn}"),
                F(lc, "ratio", 2 * N * s / tc / 1e9 / pk4["copy_gbps"], f"{tag}: fused share of the copy roofline, {mn}"),
                F("any", "ratio", te / tc, f"{tag}: speedup eager/fused, {mn}")]
    return out
common4 = [F("any", "ratio", 4, "traffic ratio eager/fused 8·N·s / 2·N·s"), F("any", "bw", pk4["copy_gbps"] * 1e9, "copy roofline (measured)"),
           F("any", "ratio", 0.25, "fused traffic / eager traffic (a quarter)"), F("any", "ratio", 0.75, "share of the traffic fusion removes")]
FACTS["04_fusion.explain_headline"] = dict(
    facts=fus_case("float16", 24, "fp16 2^24") + common4 + [F("any", "ratio", q4["gpu_speedup@fp16,2^24"]["value"], "reference quantity gpu_speedup@fp16,2^24"),
        F("compiled", "time", med(m4, "compiled", WALL, dtype="float16", log2_n=24) - med(m4, "compiled", GPU, dtype="float16", log2_n=24), "fp16 2^24: fused call's time outside its kernel (wall - GPU)"),
        F("eager", "time", med(m4, "eager", WALL, dtype="float16", log2_n=24) - med(m4, "eager", GPU, dtype="float16", log2_n=24), "fp16 2^24: eager call's time outside its kernels (wall - GPU)")],
    given=[F("given", "count", 1 << 24, "N = 2^24 elements"), F("given", "bytes", (1 << 24) * 2, "one tensor N·s (input size)")],
    other=fus_case("float32", 24, "OTHER dtype fp32 2^24", "eager_fp32", "compiled_fp32") + fus_case("float16", 28, "OTHER case fp16 2^28", "eager_2^28", "compiled_2^28")
        + fus_case("float16", 20, "OTHER case fp16 2^20", "eager_2^20", "compiled_2^20")
        + [F("other", "ratio", q4["wall_speedup@fp32,2^28"]["value"], "OTHER quantity: per-call speedup fp32 2^28"),
           F("other", "ratio", 3.2026, "OTHER lesson 05: compiled softmax speedup 4096x4096"), F("other", "count", 5, "OTHER lesson 05: eager softmax kernels"),
           F("other", "bw", 1613.5e9, "OTHER lesson 05: compiled softmax bandwidth 4096x4096 GPU time")],
)
sweep = []
for k in (12, 16, 20, 22, 24, 26, 28):
    sweep += fus_case("float16", k, f"fp16 2^{k}")
FACTS["04_fusion.explain_sweep"] = dict(
    facts=sweep + common4 + [F("any", "ratio", q4["wall_speedup@fp32,2^28"]["value"], "reference per-call speedup fp32 2^28 (said of fp32 2^28 -> any)")],
    given=[F("given", "count", 4096, "2^12 = 4096 elements (prompt)")] + [F("given", "count", 1 << k, f"N = 2^{k} elements (a size of the sweep)") for k in (12, 16, 20, 22, 24, 26, 28)] + [F("given", "bytes", (1 << k) * 2, f"one fp16 tensor at 2^{k}") for k in (12, 16, 20, 22, 24, 26, 28)],
    other=sum([fus_case("float32", k, f"OTHER dtype fp32 2^{k}", "eager_fp32", "compiled_fp32") for k in (12, 20, 24, 28)], [])
        + [F("other", "ratio", 3.2026, "OTHER lesson 05: compiled softmax speedup"), F("other", "ratio", 6.9648, "OTHER lesson 03: matmul/add"),
           F("other", "count", 5, "OTHER lesson 05: eager softmax kernels per call")],
)

# ---------------- 05_softmax
d5, m5 = load("05_softmax"); pk5 = d5["device"]["peaks"]; q5 = d5["quantities"]
def sm_case(c, r, tag, suffix=""):
    R, C, s = 1 << r, 1 << c, 2
    p = dict(dtype="float16", log2_cols=c, log2_rows=r)
    byt = {"eager": (8 * R * C + 4 * R) * s, "compiled": 2 * R * C * s, "torch_softmax": 2 * R * C * s}
    out = [F("eager" + suffix, "bytes", byt["eager"], f"{tag}: eager traffic (5RC+2R reads, 3RC+2R writes)·s"),
           F("compiled" + suffix, "bytes", byt["compiled"], f"{tag}: compiled traffic 2·R·C·s (model)"),
           F("torch_softmax" + suffix, "bytes", byt["torch_softmax"], f"{tag}: torch.softmax traffic 2·R·C·s")]
    for v in ("eager", "compiled", "torch_softmax"):
        out.append(F(v + suffix, "count", m5[(v,) + tuple(sorted(p.items())) + (GPU,)]["launches"], f"{tag}: {v} kernels per call (profiler)"))
    for meth, mn in ((GPU, "GPU time"), (WALL, "wall per call")):
        t = {v: med(m5, v, meth, **p) for v in byt}
        for v in byt:
            out += [F(v + suffix, "time", t[v], f"{tag}: {v} {mn}"), F(v + suffix, "bw", byt[v] / t[v], f"{tag}: {v} bandwidth, {mn}"),
                    F(v + suffix, "ratio", byt[v] / t[v] / 1e9 / pk5["copy_gbps"], f"{tag}: {v} share of the copy roofline, {mn}")]
        out += [F("any", "ratio", t["eager"] / t["compiled"], f"{tag}: compiled over eager speedup, {mn}"),
                F("any", "ratio", t["eager"] / t["torch_softmax"], f"{tag}: torch.softmax over eager speedup, {mn}"),
                F("any", "ratio", t["torch_softmax"] / t["eager"], f"{tag}: torch.softmax slowdown vs eager (inverse), {mn}"),
                F("any", "ratio", t["torch_softmax"] / t["compiled"], f"{tag}: torch.softmax time / compiled time, {mn}")]
    return out
common5 = [F("any", "bw", pk5["copy_gbps"] * 1e9, "copy roofline (measured)")]
FACTS["05_softmax.explain_fusion"] = dict(
    facts=sm_case(12, 12, "fp16 4096x4096") + common5 + [
        F("any", "ratio", (8 * 4096 * 4096 + 4 * 4096) / (2 * 4096 * 4096), "traffic ratio eager/compiled"),
        F("any", "ratio", q5["compiled_speedup@fp16,4096x4096"]["value"], "reference quantity compiled_speedup (GPU time)")],
    given=[F("given", "count", 4096, "R = C = 4096"), F("given", "bytes", 4096 * 4096 * 2, "the R x C tensor (input size)"), F("given", "bytes", 8192, "one row (input size)")],
    other=[f for f in sm_case(20, 0, "OTHER case 1 x 2^20", "_1x2^20")]
        + [F(f["label"], f["kind"], f["value"], "OTHER case 4096 cols x 2^?" ) for f in []]
        + [F("other", "ratio", 3.959, "OTHER lesson 04: fused speedup fp16 2^24"), F("other", "count", 4, "OTHER lesson 04: eager launches"),
           F("other", "bw", 3877e9, "OTHER lesson 04: eager bandwidth fp16 2^24 GPU time"),
           F("other", "time", 17.578e-6, "OTHER lesson 04: fused GPU time fp16 2^24")],
)
FACTS["05_softmax.explain_long_rows"] = dict(
    facts=sm_case(20, 0, "fp16 1 x 2^20") + common5 + [
        F("any", "ratio", (8 * 2**20 + 4) / (2 * 2**20), "traffic ratio eager/compiled (model)"),
        F("any", "ratio", q5["library_speedup@fp16,1x2^20"]["value"], "reference quantity library_speedup (GPU time)"),
        F("any", "ratio", 1 / q5["library_speedup@fp16,1x2^20"]["value"], "inverse of library_speedup (slowdown)"),
        F("any", "count", 132, "SMs of the H200 (device; the prompt also says ~132)"),
        F("any", "count", 1, "SMs a one-block row runs on (said of the SM count)")],
    given=[F("given", "count", 2**20, "C = 2^20 values"), F("given", "bytes", 2**21, "one row = the tensor, 2 MB (input size, in the prompt)"),
           F("given", "bytes", 2e6, "'2 MB' as the prompt writes the row")],
    other=sm_case(12, 12, "OTHER case 4096x4096", "_4096") + sm_case(20, 3, "OTHER case 8 x 2^20", "_8x2^20")
        + [F("other", "ratio", 3.959, "OTHER lesson 04: fused speedup"), F("other", "time", 62.064e-6, "OTHER lesson 04: eager wall per call fp16 2^12"),
           F("other", "count", 4, "OTHER lesson 04: eager launches"), F("other", "count", 1, "the work model's launch count for compiled (1): not what the profiler counts here (5) -> said of compiled: misattributed")],
)

UNIT = {"bytes": (1e6, "MB"), "time": (1e-6, "µs"), "bw": (1e9, "GB/s"), "flop": (1e9, "GFLOP"), "flops": (1e12, "TFLOP/s"), "ratio": (1, ""), "count": (1, "")}
def fmt(f):
    sc, u = UNIT[f["kind"]]; v = f["value"] / sc
    extra = ""
    if f["kind"] == "bytes":
        extra = f" = {f['value']:,.0f} B = {f['value']/2**20:.4g} MiB"
    if f["kind"] == "ratio" and "share" in f["desc"]:
        extra = f" = {100*f['value']:.1f} %"
    return f"{v:.4g} {u}{extra}".strip()

def sheet(cell):
    c = FACTS[cell]; lines = [f"# facts sheet of {cell} (NVIDIA H200 reference + work model); label: value — what", "# --- facts of this cell"]
    for f in c["facts"]:
        lines.append(f"#   {f['label']:<14} {fmt(f):<40} {f['desc']}")
    lines.append("# --- given (input sizes, numbers of the prompt: no credit)")
    for f in c["given"]:
        lines.append(f"#   {'given':<14} {fmt(f):<40} {f['desc']}")
    lines.append("# --- figures of OTHER facts (other dtype/case/method/lesson): stated as this cell's -> misattributed")
    for f in c["other"]:
        lines.append(f"#   {'misattributed':<14} {fmt(f):<40} {f['desc']} [{f['label']}]")
    lines.append("# Wall-per-call figures are facts of the wall method: stated as GPU time (or the reverse) -> misattributed.")
    lines.append("# Conventions: a right figure is within 3 % of its fact; a 'wrong' one at least 15 % from every fact listed here.")
    lines.append("# The cell's own case size and the input bytes (and numbers of the cell's prompt) are 'given'; other sizes named only")
    lines.append("# as a case label (e.g. 'at 2048') and formula coefficients (8·N·s, 2·n³) are left unbracketed.")
    lines.append("# A figure of another case/dtype that the prompt itself asks about, named with its own case, is listed above as 'any'.")
    return "\n".join(lines)

if __name__ == "__main__":
    print(sheet(sys.argv[1]))
