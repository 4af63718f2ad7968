"""schedlab.sweep, generate_many, analyze_batch on TaskSets, the metrics, and
the sweep CLI's file against the Python rows."""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import schedlab
from schedlab.experiment import ratios, read_results, weighted, wilson

ROOT = Path(__file__).resolve().parents[2]

EXP = """name: py
seed: 11
samples: 25
chunk: 6
generator:
  cpus: 4
  utils: [uni-medium, bimo-heavy(0.1)]
  periods: short
  util: {from: 1.5, to: 3.5, step: 0.5}
schedulers:
  - {name: G-EDF, test: gedf.any}
  - {name: P-EDF, test: pedf.util}
"""


def test_rows_do_not_depend_on_threads_and_match_the_cli(tmp_path: Path) -> None:
    one = schedlab.sweep(EXP, threads=1, progress=False)
    two = schedlab.sweep(EXP, threads=2, progress=False)
    pd.testing.assert_frame_equal(one, two)
    assert len(one) == 2 * 5 * 25 * 2
    exp = tmp_path / "e.yaml"
    exp.write_text(EXP)
    for name in ("rows.csv", "rows.parquet"):
        out = tmp_path / name
        r = subprocess.run([sys.executable, "-m", "schedlab", "sweep", str(exp), "-o", str(out)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        back = read_results(out)
        for c in one.columns:
            assert list(back[c].astype(str)) == list(one[c].astype(str)), (name, c)
    # The file written by sweep(output=) is the CLI's.
    again = tmp_path / "again.csv"
    schedlab.sweep(exp, output=again, progress=False)
    assert again.read_bytes() == (tmp_path / "rows.csv").read_bytes()


def test_progress_reaches_the_total() -> None:
    seen: list[tuple[int, int]] = []
    schedlab.sweep(EXP, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (250, 250)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)

    class Bar:
        n = 0

        def update(self, k: int) -> None:
            self.n += k

    bar = Bar()
    schedlab.sweep(EXP, progress=bar)
    assert bar.n == 250


def test_the_verdicts_are_analyze_batchs_on_generate_manys_sets() -> None:
    df = schedlab.sweep(EXP, progress=False)
    # The same sets through generate_many: experiment seed 11, the point's options.
    p = df[(df["utils"] == "uni-medium") & (df["util"] == 2.5)]
    sets = schedlab.generate_many(25, seed=11, cpus=4, utils="uni-medium", periods="short", util=2.5)
    assert [len(s) for s in sets] == list(p[p["evaluation"] == "G-EDF"]["tasks"])
    v = schedlab.analyze_batch(sets, tests=["gedf.any", "pedf.util"], cpus=4)
    assert list(v["gedf.any"].astype(str)) == list(p[p["evaluation"] == "G-EDF"]["verdict"].astype(str))
    assert list(v["pedf.util"].astype(str)) == list(p[p["evaluation"] == "P-EDF"]["verdict"].astype(str))
    arrays = schedlab.generate_many(25, seed=11, cpus=4, utils="uni-medium", periods="short", util=2.5, tasksets=False, threads=1)
    assert all((a == np.array([(t.wcet, t.deadline, t.period) for t in s], dtype=np.uint64)).all() for a, s in zip(arrays, sets))
    # A TaskSet from generate() is accepted as it is.
    ts = schedlab.generate(seed=4, cpus=2, tasks=5, util=1.2)
    got = schedlab.analyze_batch([ts], tests="gedf.gfb", cpus=2)
    assert got["gedf.gfb"][0] in schedlab.VERDICTS


def test_ratios_and_weighted_schedulability() -> None:
    df = schedlab.sweep(EXP, progress=False)
    r = ratios(df)
    row = r[(r["utils"] == "bimo-heavy(0.1)") & (r["util"] == 3.5) & (r["evaluation"] == "G-EDF")].iloc[0]
    sel = df[(df["utils"] == "bimo-heavy(0.1)") & (df["util"] == 3.5) & (df["evaluation"] == "G-EDF")]
    assert row["sets"] == 25 and row["schedulable"] == sel["schedulable"].sum()
    assert row["lo"] <= row["ratio"] <= row["hi"]
    w = weighted(df)
    for _, c in w.iterrows():
        rr = r[(r["utils"] == c["utils"]) & (r["evaluation"] == c["evaluation"])]
        exact = sum(Fraction(u).limit_denominator(100) * Fraction(int(k), 25) for u, k in zip(rr["util"], rr["schedulable"]))
        exact /= sum(Fraction(u).limit_denominator(100) for u in rr["util"])
        assert abs(c["W"] - float(exact)) < 1e-12
    lo, hi = wilson(8, 10)
    assert abs(float(lo) - 0.4902) < 1e-4 and abs(float(hi) - 0.9433) < 1e-4


def test_bad_experiments_are_reported() -> None:
    with pytest.raises(ValueError, match=r"schedulers\[0\]\.test.*gedf\.nope"):
        schedlab.sweep(EXP.replace("gedf.any", "gedf.nope"))
    with pytest.raises(ValueError, match="no such file"):
        schedlab.sweep("no-such-file.yaml")
    r = subprocess.run(
        [sys.executable, "-m", "schedlab", "sweep", "nowhere.yaml", "-o", "x.parquet"], capture_output=True, text=True
    )
    assert r.returncode == 2 and "nowhere.yaml" in r.stderr


def test_ray_tasks_take_every_chunk_once_from_across_the_grid() -> None:
    from schedlab.experiment import _run_chunks, ray_groups

    for n, cpus in [(1, 1), (5, 2), (1098, 1), (1098, 2), (3564, 8), (100_000, 4)]:
        groups = ray_groups(n, cpus)
        ids = sorted(i for g in groups for i in g)
        assert ids == list(range(n)), (n, cpus)
        assert len(groups) == min(n, max(16 * cpus, -(-n // 64)))
        assert max(len(g) for g in groups) <= max(64, -(-n // (16 * cpus)))
        # Sizes differ by at most one chunk, and each task spans the grid.
        assert max(map(len, groups)) - min(map(len, groups)) <= 1
        if n >= 2 * len(groups):
            assert all(g[-1] - g[0] >= n - 2 * len(groups) for g in groups)
    # A task's chunks are the local sweep's chunks, whatever the grouping.
    e = schedlab.experiment._experiment(EXP)
    text, base, samples = e.text(), str(e.base()), e.samples()
    got = []
    schedlab.experiment._PLANNED.clear()
    for k, g in enumerate(ray_groups(e.chunks(), 1)):
        record, out = _run_chunks(text, base, samples, g)
        got.extend(zip(g, out, strict=True))
        # Where and when it ran (outside Ray: no node); planned by the first task only.
        assert record["node"] == "" and record["pid"] == os.getpid()
        assert record["started"] <= record["computing"] <= record["finished"]
        assert record["planned"] == (k == 0)
    results = [r for _, r in sorted(got)]
    pd.testing.assert_frame_equal(schedlab.experiment._frame(e.assemble(results)), schedlab.sweep(EXP, progress=False))
