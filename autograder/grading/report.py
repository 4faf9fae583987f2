"""Class summaries for the instructor: a table, a CSV, a calibration plot (predicted vs reference)."""

from __future__ import annotations

import csv
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
    """How far each prediction was from the reference: one row per numeric quantity, x = predicted ÷
    reference on a log axis (1× = exact), each student a dot coloured by the credit it earned."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullFormatter

    rows: dict[str, list[tuple[float, float]]] = {}
    refs: dict[str, float] = {}
    for r in records:
        for p in r.predictions:
            if isinstance(p.predicted, float) and isinstance(p.reference, float) and p.predicted > 0:
                rows.setdefault(p.quantity, []).append((p.predicted / p.reference, p.fraction))
                refs[p.quantity] = p.reference
    names = sorted(rows)
    fig, ax = plt.subplots(figsize=(9, 1.2 + 1.1 * max(1, len(names))))
    sc = None
    for i, q in enumerate(names):
        pts = rows[q]
        ys = [i + ((k * 0.6180339) % 1 - 0.5) * 0.5 for k in range(len(pts))]
        sc = ax.scatter(
            [min(max(x, 1 / 5.8), 5.8) for x, _ in pts],  # outliers drawn at the edge
            ys,
            c=[f for _, f in pts],
            cmap="RdYlGn",
            vmin=0,
            vmax=1,
            s=22,
            edgecolors="k",
            linewidths=0.3,
            zorder=3,
        )
        inside = sum(1 for x, _ in pts if 1 / 1.3 <= x <= 1.3)
        ax.text(
            1.02,
            i,
            f" n={len(pts)}, {100 * inside / len(pts):.0f}% within 1.3×",
            transform=ax.get_yaxis_transform(),
            va="center",
            fontsize=8,
        )
    ax.axvline(1.0, color="k", lw=1)
    ax.axvspan(1 / 1.3, 1.3, color="tab:green", alpha=0.12, zorder=0)
    ax.set_xscale("log")
    ticks = [0.25, 0.5, 1, 2, 4]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.set_xticklabels([f"{t:g}×" for t in ticks])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(1 / 6, 6)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels([f"{q}\n(reference {refs[q]:.2f}×)" for q in names], fontsize=8)
    ax.set_ylim(-0.6, len(names) - 0.4)
    ax.set_xlabel("predicted ÷ reference  (shaded: within 1.3×)")
    ax.grid(True, axis="x", alpha=0.3)
    if sc is not None:
        fig.colorbar(sc, ax=ax, label="credit fraction", pad=0.22)
    ax.set_title(f"Calibration of {len(records)} students' predictions (numeric quantities)")
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
