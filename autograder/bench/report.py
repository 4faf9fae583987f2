"""Readable views of a ReferenceRun: a rich table for the terminal and a PNG of the size sweep."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from ..records import ReferenceRun

__all__ = ["plot_sweep", "quantity_table", "reference_table"]


def reference_table(run: ReferenceRun) -> Table:
    fp = run.device
    t = Table(title=f"{run.assignment} reference on {fp.name} (copy roofline {fp.copy_gbps:,.0f} GB/s)")
    for col in ("case", "method", "median ms", "IQR %", "n", "launches", "bytes/call", "GB/s", "% roof"):
        t.add_column(col, justify="right" if col not in ("case", "method") else "left")
    for m in sorted(run.measurements, key=lambda m: (m.case.dtype, m.case.log2_n, m.method, m.case.variant)):
        t.add_row(
            m.case.key,
            m.method,
            f"{m.stats.median:.4f}",
            f"{100 * m.stats.iqr_rel:.1f}",
            str(m.stats.n),
            f"{m.launches} ({m.launches_source})",
            f"{m.bytes_moved / 1e6:,.1f} MB",
            f"{m.achieved_gbps:,.0f}",
            f"{100 * m.achieved_gbps / fp.copy_gbps:.0f}",
        )
    return t


def quantity_table(run: ReferenceRun) -> Table:
    t = Table(title="quantities students predict")
    for col in ("quantity", "value", "ratio", "noise (±log)", "method"):
        t.add_column(col)
    for q in run.quantities.values():
        shown = f"{q.value:.2f}x" if isinstance(q.value, float) else str(q.value)
        t.add_row(q.quantity, shown, f"{q.ratio:.3f}", f"{q.log_spread:.3f}", q.method)
    return t


def plot_sweep(run: ReferenceRun, path: str | Path) -> Path:
    """Time and achieved bandwidth vs size: both methods, eager vs compiled, with the copy roofline."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dtypes = sorted({m.case.dtype for m in run.measurements})
    fig, axes = plt.subplots(2, len(dtypes), figsize=(6 * len(dtypes), 8), squeeze=False)
    style = {
        ("eager", "wall_per_call"): ("tab:red", "--"),
        ("eager", "gpu_time"): ("tab:red", "-"),
        ("compiled", "wall_per_call"): ("tab:blue", "--"),
        ("compiled", "gpu_time"): ("tab:blue", "-"),
    }
    for col, dtype in enumerate(dtypes):
        top, bottom = axes[0][col], axes[1][col]
        for (variant, method), (color, ls) in style.items():
            pts = sorted(
                (m.case.log2_n, m)
                for m in run.measurements
                if m.case.dtype == dtype and m.case.variant == variant and m.method == method
            )
            if not pts:
                continue
            xs = [1 << k for k, _ in pts]
            label = f"{variant} · {method}"
            top.errorbar(
                xs,
                [m.stats.median for _, m in pts],
                yerr=[[m.stats.median - m.stats.q1 for _, m in pts], [m.stats.q3 - m.stats.median for _, m in pts]],
                color=color,
                ls=ls,
                marker="o",
                ms=3,
                label=label,
                capsize=2,
            )
            bottom.plot(xs, [m.achieved_gbps for _, m in pts], color=color, ls=ls, marker="o", ms=3, label=label)
        bottom.axhline(run.device.copy_gbps, color="k", lw=1, ls=":", label="copy roofline")
        for ax in (top, bottom):
            ax.set_xscale("log", base=2)
            ax.grid(True, which="both", alpha=0.3)
        top.set_yscale("log")
        top.set_title(f"{dtype}: time per call")
        top.set_ylabel("ms (median, IQR bars)")
        bottom.set_title(f"{dtype}: achieved bandwidth (traffic model bytes / time)")
        bottom.set_ylabel("GB/s")
        bottom.set_xlabel("elements N")
        top.legend(fontsize=8)
        bottom.legend(fontsize=8)
    fig.suptitle(f"{run.assignment} on {run.device.name} — torch {run.device.torch}")
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
