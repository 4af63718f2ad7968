"""Plots and the HTML report of a sweep: every figure is drawn, in a real
headless Chromium, with no console error, and the page loads nothing from
the network. A damaged copy of the page must fail the same check."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import schedlab
from schedlab.plot import plot, plot_schedulability, plot_weighted

EXP = """name: report
seed: 5
samples: 12
generator:
  cpus: 4
  utils: [uni-medium, uni-heavy]
  periods: short
  util: {from: 1.5, to: 3.5, step: 1.0}
schedulers:
  - {name: G-EDF, test: gedf.any}
  - {name: P-EDF, test: pedf.util}
cpmd: [4KiB, 128KiB, 1MiB]
simulations:
  - {name: G-EDF sim, policy: gedf, horizon: 100ms}
"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    raise AssertionError("Chromium is needed for the report test; `make test` installs it (apt-get install chromium)")


def open_in_chromium(page: Path) -> tuple[str, str]:
    """The DOM after load and Chromium's log."""
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run(
            [
                chromium(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={profile}",
                "--enable-logging=stderr",
                "--v=0",
                "--virtual-time-budget=5000",
                "--dump-dom",
                page.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout, r.stderr


def console_errors(log: str) -> list[str]:
    """Every console message (Chromium logs console.error and uncaught
    exceptions as `:CONSOLE` lines, whatever their level); the page prints none."""
    return [line for line in log.splitlines() if ":CONSOLE" in line]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("report")
    exp = d / "exp.yaml"
    exp.write_text(EXP)
    out = d / "rows.parquet"
    r = subprocess.run([sys.executable, "-m", "schedlab", "sweep", str(exp), "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (d / "rows.parquet.run.json").exists()
    return out


def test_plots_in_every_format(results: Path, tmp_path: Path) -> None:
    for suffix in (".png", ".svg", ".pdf"):
        paths = plot(results, tmp_path / f"f{suffix}")
        assert len(paths) == 4, paths  # schedulability, weighted, miss ratio, tardiness
        for p in paths:
            assert Path(p).stat().st_size > 1000
    fig = plot_schedulability(results)
    # One panel per distribution; a line and a band per evaluation × CPMD value.
    assert len([a for a in fig.axes if a.get_visible()]) == 2
    assert len(fig.axes[0].lines) == 2 * 3
    w = plot_weighted(schedlab.experiment.read_results(results))
    assert len(w.axes[0].lines) == 2
    r = subprocess.run([sys.executable, "-m", "schedlab", "plot", str(results), "-o", str(tmp_path / "x.txt")], capture_output=True, text=True)
    assert r.returncode == 2 and "png" in r.stderr


def test_the_report_opens_offline_with_every_figure(results: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    r = subprocess.run([sys.executable, "-m", "schedlab", "report", str(results), "-o", str(page)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = page.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), "the page must not load anything"
    assert "name: report" in text, "the experiment file is in the page"
    assert "run time" in text and " s on " in text and "seed" in text
    dom, log = open_in_chromium(page)
    m = re.search(r'data-figures="(\d+)"', dom)
    ok = re.search(r'data-figures-ok="(\d+)"', dom)
    assert m and ok, dom[:500]
    assert int(m.group(1)) == 4 and int(ok.group(1)) == 4
    assert console_errors(log) == [], console_errors(log)

    # The same check on a page whose second figure lost its SVG must fail.
    broken = tmp_path / "broken.html"
    i = text.index('id="fig-2"')
    j = text.index("<svg", i)
    broken.write_text(text[:j] + "<div" + text[j + 4 :])
    dom, log = open_in_chromium(broken)
    assert re.search(r'data-figures-ok="3"', dom)
    assert any("figure not drawn: fig-2" in line for line in console_errors(log)), log[-2000:]
