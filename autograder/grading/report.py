"""Class summaries for the instructor: a table, a CSV, a calibration plot (predicted vs reference)."""

from __future__ import annotations

import csv
import math
import statistics
from collections import Counter
from pathlib import Path

from ..records import SubmissionGrade

__all__ = ["plot_calibration", "summary_rows", "write_csv"]


def summary_rows(records: list[SubmissionGrade]) -> list[tuple[str, str]]:
    if not records:
        return [("submissions", "0")]
    totals = [r.total for r in records]
    flags = Counter(f.split(":")[0] for r in records for f in r.flags)
    chains = Counter(r.chain.status for r in records)
    auto_max = records[0].max_total - sum(e.max_points for e in records[0].explanations)
    rows = [
        ("submissions", str(len(records))),
        (
            "auto points (predictions)",
            f"median {statistics.median(totals):.2f} of {auto_max:g}, mean {statistics.fmean(totals):.2f}",
        ),
        ("device of record", ", ".join(sorted({r.device_of_record or "—" for r in records}))),
        ("commitment chains", ", ".join(f"{k} {v}" for k, v in chains.most_common())),
    ]
    rows += [(f"flag: {k}", str(v)) for k, v in flags.most_common()]
    by_q: dict[str, list[float]] = {}
    for r in records:
        for p in r.predictions:
            by_q.setdefault(p.quantity, []).append(p.fraction)
    rows += [(f"mean credit {q}", f"{100 * statistics.fmean(v):.0f}%") for q, v in by_q.items()]
    return rows


def write_csv(records: list[SubmissionGrade], path: str | Path) -> Path:
    """One row per student: totals, each prediction (value, reference, points), flags, errors."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    qids = [p.quantity for p in records[0].predictions] if records else []
    with out.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(
            [
                "student",
                "total",
                "max_total",
                "chain",
                "device_of_record",
                *[f"{q} {k}" for q in qids for k in ("predicted", "reference", "points")],
                "explanation_suggested",
                "flags",
                "errors",
            ]
        )
        for r in records:
            by = {p.quantity: p for p in r.predictions}
            cells = []
            for q in qids:
                p = by.get(q)
                cells += [p.predicted if p else "", p.reference if p else "", p.points if p else ""]
            w.writerow(
                [
                    r.student,
                    r.total,
                    r.max_total,
                    r.chain.status,
                    r.device_of_record,
                    *cells,
                    round(sum(e.suggested_fraction * e.max_points for e in r.explanations), 3),
                    ";".join(r.flags),
                    ";".join(r.errors),
                ]
            )
    return out


def plot_calibration(records: list[SubmissionGrade], path: str | Path) -> Path:
    """Predicted vs reference per numeric quantity, log-log, with the full-credit band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    numeric: dict[str, list[tuple[float, float, float]]] = {}
    for r in records:
        for p in r.predictions:
            if isinstance(p.predicted, float) and isinstance(p.reference, float) and p.predicted > 0:
                numeric.setdefault(p.quantity, []).append((p.reference, p.predicted, p.fraction))
    n = max(1, len(numeric))
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n, 4.2), squeeze=False)
    for ax, (q, pts) in zip(axes[0], sorted(numeric.items()), strict=False):
        ref = pts[0][0]
        ys = [y for _, y, _ in pts]
        xs = [ref * math.exp((i % 7 - 3) * 0.01) for i in range(len(pts))]
        sc = ax.scatter(
            xs, ys, c=[f for _, _, f in pts], cmap="RdYlGn", vmin=0, vmax=1, s=18, edgecolors="k", linewidths=0.3
        )
        lo, hi = min([*ys, ref]) / 1.5, max([*ys, ref]) * 1.5
        ax.plot([lo, hi], [lo, hi], "k:", lw=1)
        ax.axhline(ref, color="tab:blue", lw=1, label=f"reference {ref:.2f}×")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_title(q, fontsize=9)
        ax.set_xlabel("reference (×)")
        ax.set_ylabel("predicted (×)")
        ax.legend(fontsize=7)
    fig.colorbar(sc, ax=axes[0].tolist(), label="credit fraction")
    fig.suptitle(f"Calibration of {len(records)} students' predictions")
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
