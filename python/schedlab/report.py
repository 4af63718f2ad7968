"""One self-contained HTML page for a sweep (``schedlab report``).

The page holds every plot (inline SVG), the schedulability table per point,
the weighted schedulability when the sweep has CPMD values, the experiment
file, and how the results were made: schedlab and library versions, the
seed, the machine and the run time. It loads nothing from the network and
runs one small script that checks every figure drew (the report test opens
it in headless Chromium and fails on a console error or a missing figure).
"""

from __future__ import annotations

import datetime
import html
import io
import os
import platform
import sys
from collections.abc import Sequence
from typing import Any

from .experiment import ratios, read_results, weighted

__all__ = ["report"]

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:.8em}td,th{border:1px solid #ddd;padding:2px 6px;text-align:right}
th{background:#f4f4f4}pre{background:#f7f7f7;padding:1em;overflow:auto;font-size:.85em}
figure{margin:1em 0}figure svg{max-width:100%;height:auto}figcaption{font-size:.9em;color:#555}
.meta td{text-align:left}
"""

# Checks that every figure holds a drawn SVG; marks the page for the test.
_SCRIPT = """
(function(){
  var figs=document.querySelectorAll('figure.plot'), ok=0;
  figs.forEach(function(f){
    var s=f.querySelector('svg'); var r=s&&s.getBoundingClientRect();
    if(s&&r.width>0&&r.height>0&&s.querySelectorAll('path').length>0){ok++;}
    else{console.error('figure not drawn: '+f.id);}
  });
  document.body.setAttribute('data-figures',String(figs.length));
  document.body.setAttribute('data-figures-ok',String(ok));
})();
"""


def _svg(fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    text = buf.getvalue()
    return text[text.index("<svg") :]


def _table(df: Any, max_rows: int = 400) -> str:
    shown = df.head(max_rows)
    more = f"<p>{len(df) - max_rows} more rows in the results file.</p>" if len(df) > max_rows else ""
    return shown.to_html(index=False, float_format=lambda v: f"{v:.4g}", border=0) + more


def _metadata(path: str | None) -> dict[str, str]:
    if path is None or not path.endswith(".parquet"):
        return {}
    try:
        import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return {}
    md = pq.read_metadata(path).metadata or {}
    return {k.decode(): v.decode() for k, v in md.items() if k.startswith(b"schedlab.")}


def report(
    results: Any,
    out: str | os.PathLike[str],
    *,
    experiment: str | None = None,
    run_time_s: float | None = None,
    title: str | None = None,
) -> str:
    """Writes the report of ``results`` (rows or a results file) to ``out``.

    Args:
        experiment: The experiment file's text (default: the one recorded in a
            Parquet results file).
        run_time_s: The sweep's run time, if known.
    Returns:
        The path written.
    """
    import matplotlib
    import numpy
    import pandas as pd

    from . import __version__ as version
    from .plot import figures

    path = os.fspath(results) if isinstance(results, (str, os.PathLike)) else None
    df = read_results(results) if path else results
    md = _metadata(path)
    info: dict[str, Any] = {}
    if path and os.path.exists(path + ".run.json"):
        import json

        with open(path + ".run.json", encoding="utf-8") as f:
            info = json.load(f)
    if run_time_s is None and "wall_s" in info:
        run_time_s = float(info["wall_s"])
    experiment = experiment or md.get("schedlab.experiment")
    figs = figures(df)
    tests = df[~df["test"].astype(str).str.startswith("sim.")]
    parts = [f"<h1>{html.escape(title or 'schedlab sweep report')}</h1>"]
    rows = [
        ("results", html.escape(path or "(in memory)")),
        ("rows", f"{len(df):,}"),
        ("task sets", f"{df[['point', 'sample']].drop_duplicates().shape[0]:,}"),
        ("evaluations", html.escape(", ".join(map(str, df["evaluation"].cat.categories))) if hasattr(df["evaluation"], "cat") else ""),
        ("seed", html.escape(md.get("schedlab.seed", "see the experiment file"))),
        ("tool", html.escape(md.get("schedlab.tool", f"schedlab {version}"))),
        (
            "run time",
            (f"{run_time_s:.1f} s" + (f" on {info['threads']} threads of {html.escape(str(info.get('host', '')))} ({html.escape(str(info.get('cpu', '')))})" if info else ""))
            if run_time_s is not None
            else "not recorded",
        ),
        ("report made", datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")),
        ("machine", html.escape(f"{platform.node()} — {platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}")),
        (
            "versions",
            html.escape(
                f"schedlab {version}, Python {sys.version.split()[0]}, numpy {numpy.__version__}, "
                f"pandas {pd.__version__}, matplotlib {matplotlib.__version__}"
            ),
        ),
    ]
    parts.append("<table class=meta>" + "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows) + "</table>")
    parts.append("<h2>Figures</h2>")
    for i, (caption, fig) in enumerate(figs):
        parts.append(f'<figure class="plot" id="fig-{i + 1}">{_svg(fig)}<figcaption>Figure {i + 1}. {html.escape(caption)}</figcaption></figure>')
    if len(tests):
        parts.append("<h2>Schedulability per point</h2>")
        parts.append(_table(ratios(tests)))
        if tests["cpmd_wss"].nunique() > 1 or "util" in tests.columns:
            parts.append("<h2>Weighted schedulability (EPOS Eq. 4)</h2>")
            parts.append(_table(weighted(tests)))
    if experiment:
        parts.append("<h2>Experiment file</h2><pre>" + html.escape(experiment) + "</pre>")
    page = (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f"<title>{html.escape(title or 'schedlab sweep report')}</title><style>{_CSS}</style></head><body>"
        + "\n".join(parts)
        + f"<script>{_SCRIPT}</script></body></html>\n"
    )
    target = os.fspath(out)
    tmp = f"{target}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, target)
    return target


def _main(argv: Sequence[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="schedlab report", description="Write a self-contained HTML report of sweep results.")
    ap.add_argument("results", help="a results file of schedlab sweep (.parquet or .csv)")
    ap.add_argument("-o", "--output", required=True, help="the HTML file")
    ap.add_argument("--experiment", help="the experiment file (default: the one a Parquet file records)")
    ap.add_argument("--title")
    a = ap.parse_args(argv)
    if not os.path.exists(a.results):
        print(f"schedlab report: {a.results}: no such file", file=sys.stderr)
        return 2
    text = None
    if a.experiment:
        try:
            with open(a.experiment, encoding="utf-8") as f:
                text = f.read()
        except OSError as err:
            print(f"schedlab report: --experiment {a.experiment}: {err.strerror}", file=sys.stderr)
            return 2
    print(f"wrote {report(a.results, a.output, experiment=text, title=a.title)}")
    return 0


if __name__ == "__main__":
    sys.exit(_main())
