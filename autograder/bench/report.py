"""Readable views of a ReferenceRun: tables for the terminal (autograder.tables) and a PNG of the size sweep."""

from __future__ import annotations

from pathlib import Path

from ..records import Measurement, ReferenceRun, render_params
from ..tables import Column, TextTable

__all__ = ["plot_sweep", "quantity_table", "reference_table"]


def reference_table(run: ReferenceRun) -> TextTable:
    """One row per case: both timing methods side by side (median, IQR as % of it), the work model's
    kernels and bytes, and what the kernels achieved in GPU time against the copy roofline."""
    fp = run.device
    # FLOP/s only where some case does more than a few FLOPs per byte (a multiply), as the lesson shows it
    flops = any(m.flops and m.flops > 2 * m.bytes_moved for m in run.measurements)
    cases: dict[str, dict[str, Measurement]] = {}
    for m in run.measurements:
        cases.setdefault(m.case.key, {})[m.method] = m
    sources = sorted({m.launches_source for m in run.measurements})
    samples = sorted({m.stats.n for m in run.measurements})
    cols = [
        Column("case"),
        Column("kernels", "right"),
        Column("MB per call", "right"),
        Column("wall_per_call ms (IQR)", "right"),
        Column("gpu_time ms (IQR)", "right"),
        Column("GB/s", "right"),
        Column("% roof", "right"),
    ]
    cols += [Column("TFLOP/s", "right")] if flops else []
    t = TextTable(
        cols,
        title=f"{run.assignment} reference on {fp.name} (copy roofline {fp.copy_gbps:,.0f} GB/s)",
        caption=f"kernels counted by the {' / '.join(sources)}; GB/s, % of the roofline"
        + (" and TFLOP/s" if flops else "")
        + " in gpu_time"
        + (f"; {samples[0]:,}–{samples[-1]:,} samples per median" if samples else ""),
        style="plain",
    )
    for by in cases.values():
        m = by.get("gpu_time") or next(iter(by.values()))
        times = [
            f"{by[k].stats.median:.4f} ({100 * by[k].stats.iqr_rel:.0f}%)" if k in by else "—"
            for k in ("wall_per_call", "gpu_time")
        ]
        kernels = f"{m.launches}" + (f" {m.launches_source}" if len(sources) > 1 else "")
        row = [
            f"{m.case.variant} {render_params(m.case.params, sep=' ')}",
            kernels,
            f"{m.bytes_moved / 1e6:,.1f}",
            *times,
            f"{m.achieved_gbps:,.0f}",
            f"{100 * m.achieved_gbps / fp.copy_gbps:.0f}",
        ]
        t.add_row(*row, *([f"{m.achieved_tflops:,.2f}"] if flops else []))
    return t


def quantity_table(run: ReferenceRun) -> TextTable:
    t = TextTable(
        [Column("quantity"), Column("value", "right"), Column("ratio", "right"), Column("noise (±log)", "right"),
         Column("method")],
        title="quantities students predict",
    )
    for q in run.quantities.values():
        shown = f"{q.value:.4g}" if isinstance(q.value, float) else str(q.value)
        t.add_row(q.quantity, shown, f"{q.ratio:.4g}", f"{q.log_spread:.3f}", q.method)
    return t


def plot_sweep(run: ReferenceRun, path: str | Path, size_param: str = "log2_n") -> Path:
    """Time and achieved rate vs size, one column per setting of the other parameters: both methods,
    every variant, with the copy roofline (and FLOP/s when the work model counts FLOPs)."""
    # start-up speed: matplotlib only when a plot is drawn
    import matplotlib

    matplotlib.use("Agg")
    # start-up speed: matplotlib only when a plot is drawn
    import matplotlib.pyplot as plt

    groups: dict[str, list[Measurement]] = {}
    for m in run.measurements:
        if size_param in m.case.params:
            rest = {k: v for k, v in m.case.params.items() if k != size_param}
            groups.setdefault(render_params(rest, short=False, sep=", ") or "all", []).append(m)
    names = sorted(groups)[:6]
    variants = sorted({m.case.variant for ms in groups.values() for m in ms})
    colors = dict(zip(variants, ["tab:red", "tab:blue", "tab:green", "tab:purple", "tab:orange"] * 4, strict=False))
    flops = any(m.flops for m in run.measurements)
    fig, axes = plt.subplots(2, max(1, len(names)), figsize=(6 * max(1, len(names)), 8), squeeze=False)
    for col, name in enumerate(names):
        top, bottom = axes[0][col], axes[1][col]
        for variant in variants:
            for method, ls in (("wall_per_call", "--"), ("gpu_time", "-")):
                pts = sorted(
                    (float(m.case.params[size_param]), m)
                    for m in groups[name]
                    if m.case.variant == variant and m.method == method
                )
                if not pts:
                    continue
                xs = [2**k if size_param.startswith("log2_") else k for k, _ in pts]
                label = f"{variant} · {method}"
                top.errorbar(
                    xs,
                    [m.stats.median for _, m in pts],
                    yerr=[[m.stats.median - m.stats.q1 for _, m in pts], [m.stats.q3 - m.stats.median for _, m in pts]],
                    color=colors[variant],
                    ls=ls,
                    marker="o",
                    ms=3,
                    label=label,
                    capsize=2,
                )
                ys = [m.achieved_tflops if flops else m.achieved_gbps for _, m in pts]
                bottom.plot(xs, ys, color=colors[variant], ls=ls, marker="o", ms=3, label=label)
        if not flops:
            bottom.axhline(run.device.copy_gbps, color="k", lw=1, ls=":", label="copy roofline")
        for ax in (top, bottom):
            ax.set_xscale("log", base=2)
            ax.grid(True, which="both", alpha=0.3)
        top.set_yscale("log")
        top.set_title(f"{name}: time per call")
        top.set_ylabel("ms (median, IQR bars)")
        bottom.set_title(f"{name}: achieved {'TFLOP/s' if flops else 'bandwidth (work-model bytes / time)'}")
        bottom.set_ylabel("TFLOP/s" if flops else "GB/s")
        bottom.set_xlabel(size_param.replace("log2_", "") if size_param.startswith("log2_") else size_param)
        top.legend(fontsize=8)
        bottom.legend(fontsize=8)
    fig.suptitle(f"{run.assignment} on {run.device.name} — torch {run.device.torch}")
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
