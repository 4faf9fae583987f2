"""Self-check of the corpus: every [text|label] against facts.py (right within 3 %, wrong at least 15 % away)."""
import re, sys, glob, collections
sys.path.insert(0, "/work/heldout-v3")
from facts import FACTS

WORDS = {
 "four": 4, "one": 1, "five": 5, "a single": 1, "a quarter": 0.25, "sixty-four": 64, "a hundred and thirty-two": 132,
 "about a hundred megabytes": 100e6, "a hundred and thirty-seven billion": 137e9, "about seventeen million": 17e6,
 "roughly thirteen hundred and sixty": 1360, "a sixth of one": 1 / 6, "about seven times": 7,
 "a thousand and twenty-four": 1024, "about two point one billion": 2.1e9, "a bit over six megabytes": 6.3e6,
 "three hundred and forty-one": 341, "about forty-three percent": 0.43,
 "about two hundred sixty-eight megabytes": 268e6, "sixty-seven megabytes": 67e6, "almost four times": 3.95,
 "about sixty-two microseconds": 62e-6, "zero point nine five": 0.95, "three and a half": 3.5,
 "four times": 4, "three point two times": 3.2, "about sixty-seven megabytes": 67e6,
 "about two hundred and eight microseconds": 208e-6, "roughly eight times": 8,
}
PREFIX = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
UNITS = [  # (regex, kind, scale)
 (r"(k|K|M|G|T|Ki|Mi|Gi)?(?:B|o|bytes?)/s", "bw", None),
 (r"(T|G|M)?FLOP/s|(T|G)FLOPS", "flops", None),
 (r"FLOP/(?:byte|Byte|B)", "ratio", 1),
 (r"(T|G|M)?FLOPs?", "flop", None),
 (r"(k|K|M|G|T|Ki|Mi|Gi)?(?:B|o|bytes?)\b", "bytes", None),
 (r"Mi\b", "count", 2**20),
 (r"ns", "time", 1e-9), (r"(?:µ|u|\\mu)\s*s", "time", 1e-6), (r"ms", "time", 1e-3), (r"s\b", "time", 1),
 (r"%|percent", "ratio", 0.01), (r"x|×|times|-mal|veces|\\times", "ratio", 1),
 (r"G\b", "any", 1e9), (r"M\b", "any", 1e6),
]
def clean(t):
    t = re.sub(r"\\(?:mathrm|text)\{([^}]*)\}", r"\1", t)
    t = t.replace("\\,", " ").replace("\\ ", " ").replace("~", "").replace("$", "").replace("{", "").replace("}", "")
    t = re.sub(r"\s*(?:\\times|×|x)\s*10\^(-?\d+)", r"e\1", t)
    return t.strip()
def numbers(tok):
    """all readings of the leading number (decimal comma / thousands separators)"""
    m = re.match(r"[≈~]?\s*(\d[\d., ]*\d|\d)(e-?\d+)?", tok)
    if not m: return [], tok
    raw, exp, rest = m.group(1), m.group(2) or "", tok[m.end():]
    raw = raw.strip()
    outs = set()
    r1 = raw.replace(" ", "")
    for thou, dec in ((",", "."), (".", ",")):
        if re.fullmatch(r"\d{1,3}(?:[%s]\d{3})+(?:[%s]\d+)?" % (re.escape(thou), re.escape(dec)), r1) or (thou not in r1):
            try: outs.add(float(r1.replace(thou, "").replace(dec, ".") + exp))
            except ValueError: pass
    return sorted(outs), rest.strip()
def parse(text):
    t = clean(text)
    low = t.lower()
    if low in WORDS: return [WORDS[low]], "any"
    m = re.fullmatch(r"2\^(\d+)", t)
    if m: return [2 ** int(m.group(1))], "count"
    vals, rest = numbers(t)
    if not vals: return None, None
    for rx, kind, scale in UNITS:
        mm = re.match(rx, rest)
        if mm:
            if scale is None:
                p = next((g for g in mm.groups() if g), "")
                scale = PREFIX[p]
            return [v * scale for v in vals], kind
    return vals, "bare"
COMPAT = {"bytes": {"bytes"}, "bw": {"bw"}, "time": {"time"}, "flop": {"flop"}, "flops": {"flops"}, "ratio": {"ratio", "count"},
          "count": {"count", "ratio", "bytes", "flop"}}
BARE_SCALES = {"bytes": [1, 1e6, 1e3], "bw": [1, 1e9, 1e12], "time": [1e-6, 1e-3, 1], "flop": [1, 1e9, 1e6], "flops": [1, 1e12], "ratio": [1, 0.01], "count": [1]}
def close(vals, kind, facts, tol):
    hits = []
    for f in facts:
        if kind in ("bare", "any"):
            scales = BARE_SCALES[f["kind"]] if kind == "bare" else [1]
        elif f["kind"] in COMPAT[kind]:
            scales = [1]
        else:
            continue
        for v in vals:
            for sc in scales:
                if f["value"] and abs(v * sc - f["value"]) <= tol * abs(f["value"]):
                    hits.append(f); break
    return hits
def main():
    bad = 0; counts = collections.Counter(); cats = collections.defaultdict(set); catn = collections.Counter(); grades = collections.Counter()
    for path in sorted(glob.glob("/work/heldout-v3/*.txt")):
        cell = path.split("/")[-1][:-4]; c = FACTS[cell]
        text = open(path).read()
        entries = re.split(r"^=== ", text, flags=re.M)[1:]
        assert len(entries) == 18, (cell, len(entries))
        for e in entries:
            hdr, body = e.split("\n", 1)
            eid, cat, gr = [x.strip() for x in hdr.split("|")]
            cats[cat].add(cell); catn[cat] += 1; grades[gr] += 1
            for m in re.finditer(r"\[([^\[\]|]+)\|([a-z_]+)\]", body):
                tx, lab = m.group(1), m.group(2)
                counts[lab] += 1
                vals, kind = parse(tx)
                if vals is None:
                    print(f"UNPARSED {cell} {eid}: [{tx}|{lab}]"); bad += 1; continue
                allf = c["facts"] + c["given"] + c["other"]
                if lab == "wrong":
                    h = close(vals, kind, allf, 0.15)
                    ok = not h
                elif lab == "given":
                    h = close(vals, kind, c["given"], 0.03); ok = bool(h)
                    if not h and kind == "count":  # sizes named as 2^k / counts
                        ok = False
                elif lab == "misattributed":
                    h = close(vals, kind, c["other"] + c["facts"], 0.03); ok = bool(h)
                else:
                    h = close(vals, kind, [f for f in c["facts"] if f["label"] == lab], 0.03); ok = bool(h)
                    if lab not in ("any",) and not any(f["label"] == lab for f in c["facts"]):
                        print(f"UNKNOWN LABEL {cell} {eid} {lab}"); ok = False
                if not ok:
                    bad += 1
                    print(f"FAIL {cell} {eid}: [{tx}|{lab}] parsed {vals} {kind}; hits: {[ (f['label'], round(f['value'],6), f['desc'][:50]) for f in h][:3]}")
                elif lab in ("wrong",):
                    pass
                if lab not in ("wrong", "misattributed", "given"):
                    # warn if the value also matches a misattribution candidate but no right one of another label (info only)
                    pass
    print("labels", dict(counts)); print("grades", dict(grades))
    for k in sorted(cats): print(f"  {k:<22} entries {catn[k]:>2} cells {len(cats[k])}")
    print("problems", bad)
if __name__ == "__main__":
    main()
