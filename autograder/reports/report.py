"""Class summaries for the instructor: a table, a CSV, a calibration plot (predicted vs reference)."""

from __future__ import annotations

import csv
import statistics
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ReferenceNotFoundError
from ..kinds import kind_of
from ..records import ReferenceRun, SubmissionGrade

if TYPE_CHECKING:
    from ..bench.store import ReferenceStore
    from ..spec import LessonSpec

__all__ = [
    "CalibrationRow",
    "calibration_rows",
    "draw_calibration",
    "graded_against",
    "plot_calibration",
    "references_for",
    "summary_rows",
    "write_csv",
]


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


def _shown(score: float) -> str:
    """A score as the gradebook shows it: two decimals."""
    return f"{score:.2f}"


def graded_against(records: list[SubmissionGrade], device: str) -> tuple[list[SubmissionGrade], list[str]]:
    """The records graded against ``device``'s reference, and the other devices the rest were graded
    against ("none": no reference)."""
    kept = [r for r in records if r.device_of_record == device]
    others = sorted({r.device_of_record or "none" for r in records} - {device})
    return kept, others


def write_csv(records: list[SubmissionGrade], path: str | Path) -> Path:
    """One row per student: totals, each prediction (value, reference, points), flags, errors; scores
    rounded to two decimals, as the gradebook shows them (and the course CSV holds them)."""
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
                cells += [p.predicted if p else "", p.reference if p else "", _shown(p.points) if p else ""]
            w.writerow(
                [
                    r.student,
                    _shown(r.total),
                    f"{r.max_total:g}",
                    r.chain.status,
                    r.device_of_record,
                    *cells,
                    _shown(sum(e.suggested_fraction * e.max_points for e in r.explanations)),
                    ";".join(r.flags),
                    ";".join(r.errors),
                ]
            )
    return out


@dataclass(frozen=True)
class CalibrationRow:
    """One quantity of the calibration plot, on the axis predicted ÷ reference."""

    quantity: str
    points: list[tuple[float, float]]  # (predicted ÷ reference, credit fraction), one per student
    bands: list[tuple[float, float]]  # its full-credit band ÷ reference: one per reference graded against
    inside: int  # predictions inside their own full-credit band
    reference: str  # the reference value in the quantity's words (of the most common device)


def calibration_rows(
    records: list[SubmissionGrade], spec: LessonSpec, references: Mapping[str, ReferenceRun]
) -> list[CalibrationRow]:
    """Every numeric prediction as predicted ÷ reference, with each quantity's full-credit band as its kind
    scores it (:meth:`Kind.band`: its tolerance widened by that reference's spread) — the same band for
    the dots and the shading. ``references`` maps a device key to the reference records were graded on."""
    quantities = {q.id: q for q in spec.quantities}
    points: dict[str, list[tuple[float, float]]] = {}
    bands: dict[str, dict[tuple[float, float], int]] = {}
    inside: Counter[str] = Counter()
    for r in records:
        ref = references.get(r.device_of_record or "")
        for p in r.predictions:
            q = quantities.get(p.quantity)
            if not (isinstance(p.predicted, float) and isinstance(p.reference, float)) or p.predicted <= 0:
                continue
            if q is None or p.reference <= 0:
                continue
            points.setdefault(q.id, []).append((p.predicted / p.reference, p.fraction))
            value = ref.quantities.get(q.id) if ref is not None else None
            band = kind_of(q).band(q, value) if value is not None else None
            if band is None:
                continue
            key = (band.low / p.reference, band.high / p.reference)
            bands.setdefault(q.id, {})
            bands[q.id][key] = bands[q.id].get(key, 0) + 1
            inside[q.id] += band.full(p.predicted)
    out = []
    for qid in sorted(points):
        q = quantities[qid]
        refs = Counter(
            p.reference for r in records for p in r.predictions if p.quantity == qid and isinstance(p.reference, float)
        )
        shown = kind_of(q).show(refs.most_common(1)[0][0]) if refs else "—"
        drawn = sorted(bands.get(qid, {}), key=lambda b: -bands[qid][b])
        out.append(CalibrationRow(qid, points[qid], drawn, inside[qid], shown))
    return out


def draw_calibration(ax: Any, rows: list[CalibrationRow]) -> Any:
    """Draw ``rows`` on ``ax`` (a log x axis): each quantity's own full-credit band shaded across its own
    row, each student a dot coloured by the credit it earned. Returns the last scatter (for a colour bar)."""
    # start-up speed: matplotlib only when a plot is drawn
    from matplotlib.ticker import FixedLocator, NullFormatter

    sc = None
    for i, row in enumerate(rows):
        for lo, hi in row.bands:
            ax.fill_betweenx([i - 0.45, i + 0.45], lo, hi, color="tab:green", alpha=0.15, lw=0, zorder=0)
        ys = [i + ((k * 0.6180339) % 1 - 0.5) * 0.5 for k in range(len(row.points))]
        sc = ax.scatter(
            [min(max(x, 1 / 5.8), 5.8) for x, _ in row.points],  # outliers drawn at the edge
            ys,
            c=[f for _, f in row.points],
            cmap="RdYlGn",
            vmin=0,
            vmax=1,
            s=22,
            edgecolors="k",
            linewidths=0.3,
            zorder=3,
        )
    ax.axvline(1.0, color="k", lw=1)
    ax.set_xscale("log")
    ticks = [0.25, 0.5, 1, 2, 4]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.set_xticklabels([f"{t:g}×" for t in ticks])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(1 / 6, 6)
    ax.set_yticks(range(len(rows)))
    labels = []
    for row in rows:
        band = f", full credit {row.bands[0][0]:.2f}–{row.bands[0][1]:.2f}×" if row.bands else ""
        share = f"{100 * row.inside / len(row.points):.0f}% inside the band" if row.bands else "no band"
        labels.append(f"{row.quantity}\n(reference {row.reference}{band})\nn={len(row.points)}, {share}")
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlabel("predicted ÷ reference  (shaded: each quantity's full-credit band, with the reference's spread)")
    ax.grid(True, axis="x", alpha=0.3)
    return sc


def plot_calibration(
    records: list[SubmissionGrade], path: str | Path, spec: LessonSpec, references: Mapping[str, ReferenceRun]
) -> Path:
    """How far each prediction was from the reference: one row per numeric quantity, x = predicted ÷
    reference on a log axis (1× = exact), each student a dot coloured by the credit it earned, and the
    quantity's own full-credit band shaded (:func:`calibration_rows`)."""
    # start-up speed: matplotlib only when a plot is drawn
    import matplotlib

    matplotlib.use("Agg")
    # start-up speed: matplotlib only when a plot is drawn
    import matplotlib.pyplot as plt

    rows = calibration_rows(records, spec, references)
    fig, ax = plt.subplots(figsize=(9.5, 1.2 + 1.1 * max(1, len(rows))))
    sc = draw_calibration(ax, rows)
    if sc is not None:
        fig.colorbar(sc, ax=ax, label="credit fraction", pad=0.03)
    ax.set_title(f"Calibration of {len(records)} students' predictions (numeric quantities)")
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def references_for(
    records: list[SubmissionGrade], store: ReferenceStore, assignment: str
) -> dict[str, ReferenceRun]:
    """The stored reference of every device these records were graded on (a device whose reference is
    gone is left out: its students' dots are drawn without a band)."""
    out: dict[str, ReferenceRun] = {}
    for key in sorted({r.device_of_record for r in records if r.device_of_record}):
        try:
            out[key] = store.load(assignment, key)
        except ReferenceNotFoundError:
            continue
    return out
