"""Plots of sweep results (matplotlib; ``pip install 'schedlab[plot]'``).

* :func:`plot_schedulability` — schedulability ratio against the cap
  (``util``) with 95 % Wilson bands, one line per evaluation × overhead
  model, one panel per value of the other grid axes;
* :func:`plot_weighted` — weighted schedulability W (EPOS Eq. 4) against the
  CPMD working-set size;
* :func:`plot_simulation` — a simulation metric (miss ratio, tardiness, ...)
  against the cap.

Each takes the rows :func:`schedlab.sweep` returns (or a results file) and
returns the matplotlib Figure; ``out=`` saves it (PNG, SVG or PDF by suffix).
``python -m schedlab.plot RESULTS -o FIG`` (and ``schedlab plot``) picks the
plot the results call for.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .experiment import _axes, ratios, read_results, weighted

if TYPE_CHECKING:
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]
    from matplotlib.figure import Figure

__all__ = ["plot_schedulability", "plot_weighted", "plot_simulation", "plot"]


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:  # pragma: no cover - the extra is installed by make
        raise RuntimeError("plots need matplotlib: pip install 'schedlab[plot]'") from err
    return plt


def _frame(results: Any) -> pd.DataFrame:
    if isinstance(results, (str, os.PathLike)):
        return read_results(results)
    return results


def _panels(df: pd.DataFrame, x: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The axes that make panels (all grid axes but ``x``) and their value combinations."""
    keys = [a for a in _axes(df) if a != x]
    if not keys:
        return [], [()]
    combos = list(df[keys].drop_duplicates().itertuples(index=False, name=None))
    return keys, combos


def _grid(plt: Any, n: int, title: str) -> tuple[Figure, list[Any]]:
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig, axs = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False, sharey=True)
    flat = [a for row in axs for a in row]
    for a in flat[n:]:
        a.set_visible(False)
    fig.suptitle(title)
    return fig, flat[:n]


def _label(row: Any, multi_overheads: bool, multi_cpmd: bool) -> str:
    s = str(row["evaluation"])
    if multi_overheads:
        s += f" + {row['overheads']}"
    if multi_cpmd and row["cpmd_wss"]:
        s += f" ({_size(int(row['cpmd_wss']))})"
    return s


def _size(b: int) -> str:
    for unit, k in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= k and b % k == 0:
            return f"{b // k} {unit}"
    return f"{b} B"


def _select(df: pd.DataFrame, keys: list[str], combo: tuple[Any, ...]) -> pd.DataFrame:
    m = None
    for k, v in zip(keys, combo, strict=True):
        c = df[k] == v
        m = c if m is None else m & c
    return df if m is None else df[m]


def _save(fig: Figure, out: str | os.PathLike[str] | None) -> Figure:
    if out is not None:
        fig.savefig(os.fspath(out), bbox_inches="tight")
    return fig


def plot_schedulability(
    results: Any, *, x: str = "util", out: str | os.PathLike[str] | None = None, title: str | None = None
) -> Figure:
    """Schedulability ratio against ``x`` with 95 % Wilson bands."""
    plt = _pyplot()
    df = _frame(results)
    df = df[~df["test"].astype(str).str.startswith("sim.")]
    r = ratios(df)
    keys, combos = _panels(df, x)
    fig, axs = _grid(plt, len(combos), title or "Schedulability ratio")
    multi_o = r["overheads"].nunique() > 1
    multi_c = r["cpmd_wss"].nunique() > 1
    for ax, combo in zip(axs, combos, strict=True):
        sub = _select(r, keys, combo)
        for (_e, _o, _c), curve in sub.groupby(["evaluation", "overheads", "cpmd_wss"], observed=True, sort=False):
            curve = curve.sort_values(x)
            (line,) = ax.plot(curve[x], curve["ratio"], label=_label(curve.iloc[0], multi_o, multi_c), lw=1.4)
            ax.fill_between(curve[x], curve["lo"], curve["hi"], color=line.get_color(), alpha=0.18, lw=0)
        ax.set_title(", ".join(f"{k}={v}" for k, v in zip(keys, combo, strict=True)) or "all sets", fontsize=9)
        ax.set_xlabel(x)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axs[0].set_ylabel("schedulable fraction")
    axs[0].legend(fontsize=7)
    return _save(fig, out)


def plot_weighted(results: Any, *, out: str | os.PathLike[str] | None = None, title: str | None = None) -> Figure:
    """Weighted schedulability W(D_c) against the CPMD working-set size."""
    plt = _pyplot()
    df = _frame(results)
    df = df[~df["test"].astype(str).str.startswith("sim.")]
    w = weighted(df)
    keys = [a for a in _axes(df) if a != "util"]
    combos = list(w[keys].drop_duplicates().itertuples(index=False, name=None)) if keys else [()]
    fig, axs = _grid(plt, len(combos), title or "Weighted schedulability (EPOS Eq. 4)")
    for ax, combo in zip(axs, combos, strict=True):
        sub = _select(w, keys, combo)
        for (e, o), curve in sub.groupby(["evaluation", "overheads"], observed=True, sort=False):
            curve = curve.sort_values("cpmd_wss")
            ax.plot(curve["cpmd_wss"] / 1024, curve["W"], marker="o", ms=3, label=f"{e} + {o}")
        ax.set_xscale("log")
        ax.set_xlabel("WSS (KiB) → CPMD bound")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        ax.set_title(", ".join(f"{k}={v}" for k, v in zip(keys, combo, strict=True)) or "all sets", fontsize=9)
    axs[0].set_ylabel("W")
    axs[0].legend(fontsize=7)
    return _save(fig, out)


def plot_simulation(
    results: Any,
    *,
    metric: str = "miss_ratio",
    x: str = "util",
    out: str | os.PathLike[str] | None = None,
    title: str | None = None,
) -> Figure:
    """A simulation metric (mean over a point's sets) against ``x``."""
    plt = _pyplot()
    df = _frame(results)
    df = df[df["test"].astype(str).str.startswith("sim.")]
    if metric not in df.columns:
        raise ValueError(f"metric {metric!r}: the results have no such column")
    keys, combos = _panels(df, x)
    fig, axs = _grid(plt, len(combos), title or f"Simulation: {metric}")
    for ax, combo in zip(axs, combos, strict=True):
        sub = _select(df, keys, combo)
        for e, g in sub.groupby("evaluation", observed=True, sort=False):
            m = g.groupby(x)[metric].mean()
            ax.plot(m.index, m.to_numpy(), marker="o", ms=3, label=str(e))
        ax.set_xlabel(x)
        ax.grid(alpha=0.3)
        ax.set_title(", ".join(f"{k}={v}" for k, v in zip(keys, combo, strict=True)) or "all sets", fontsize=9)
    axs[0].set_ylabel(metric)
    axs[0].legend(fontsize=7)
    return _save(fig, out)


def figures(results: Any) -> list[tuple[str, Figure]]:
    """Every plot the results call for, with a caption each."""
    df = _frame(results)
    out: list[tuple[str, Figure]] = []
    tests = df[~df["test"].astype(str).str.startswith("sim.")]
    if len(tests):
        if "util" in df.columns:
            out.append(("Schedulability ratio against the utilisation cap (95 % Wilson bands)", plot_schedulability(df)))
        if tests["cpmd_wss"].nunique() > 1:
            out.append(("Weighted schedulability W(D_c), EPOS Eq. 4", plot_weighted(df)))
    if len(df) > len(tests) and "util" in df.columns:
        for m in ("miss_ratio", "mean_tardiness_ns"):
            if m in df.columns:
                out.append((f"Simulation: {m} (mean over the sets of a point)", plot_simulation(df, metric=m)))
    return out


def plot(results: Any, out: str | os.PathLike[str], kind: str = "auto") -> list[str]:
    """Writes the plots of ``results`` to ``out`` (one file; with several
    plots, ``out`` gets ``-1``, ``-2``, ... before its suffix). Returns the paths."""
    df = _frame(results)
    if kind == "auto":
        figs = [f for _, f in figures(df)]
    elif kind == "schedulability":
        figs = [plot_schedulability(df)]
    elif kind == "weighted":
        figs = [plot_weighted(df)]
    elif kind.startswith("simulation"):
        figs = [plot_simulation(df, metric=kind.partition(":")[2] or "miss_ratio")]
    else:
        raise ValueError(f"kind {kind!r}: auto, schedulability, weighted or simulation[:METRIC]")
    if not figs:
        raise ValueError("the results have nothing to plot")
    root, ext = os.path.splitext(os.fspath(out))
    paths = [os.fspath(out)] if len(figs) == 1 else [f"{root}-{i + 1}{ext}" for i in range(len(figs))]
    for f, p in zip(figs, paths, strict=True):
        f.savefig(p, bbox_inches="tight")
    return paths


def _main(argv: Sequence[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="schedlab plot", description="Plot sweep results (PNG, SVG or PDF by suffix).")
    ap.add_argument("results", help="a results file of schedlab sweep (.parquet or .csv)")
    ap.add_argument("-o", "--output", required=True, help="the figure file: .png, .svg or .pdf")
    ap.add_argument("--kind", default="auto", help="auto, schedulability, weighted or simulation[:METRIC]")
    a = ap.parse_args(argv)
    if not os.path.exists(a.results):
        print(f"schedlab plot: {a.results}: no such file", file=sys.stderr)
        return 2
    if os.path.splitext(a.output)[1] not in (".png", ".svg", ".pdf"):
        print(f"schedlab plot: --output {a.output}: write .png, .svg or .pdf", file=sys.stderr)
        return 2
    try:
        paths = plot(a.results, a.output, a.kind)
    except ValueError as err:
        print(f"schedlab plot: {err}", file=sys.stderr)
        return 2
    for p in paths:
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(_main())
