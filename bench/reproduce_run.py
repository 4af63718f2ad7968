#!/usr/bin/env python3
"""The RUN thesis experiment (Compagnin 2013, §3; docs/reproductions.md),
simulated: RUN against P-EDF and G-EDF on the same random task sets.

Task sets: utilisations bimodal, U[0.001, 0.5) and U[0.5, 0.9] with weights
4:5 (`bimo-heavy`), periods drawn from {25, 50, 100, 200} ms, tasks drawn
until the set's utilisation lands within `--slack` below the target U = f·m.
Each set is simulated under RUN (worst-fit decreasing, greedy slack), P-EDF
(the same worst-fit decreasing) and G-EDF, synchronous periodic releases,
every job running its WCET, no overheads, for `--horizon` (default 400 ms,
two hyperperiods).

Per (m, f, policy) the table gives: the fraction of sets with a deadline
miss (P-EDF sets that worst-fit decreasing cannot partition count as
failures, and are also counted apart), preemptions per job and migrations
per job (over all sets), and for RUN the distribution of reduction-tree
levels. Usage:

    .venv/bin/python bench/reproduce_run.py --sets 100 --out docs/reproductions-run.md

The same options and seed always print the same table.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from fractions import Fraction
from typing import Any

import schedlab

POLICIES = ("run", "pedf", "gedf")


def reduction_levels(ts: schedlab.TaskSet) -> int:
    """Levels of RUN's reduction tree, from `schedlab reduce --json`."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(ts.to_yaml())
        path = f.name
    try:
        out = subprocess.run(
            [sys.executable, "-m", "schedlab", "reduce", path, "--json"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    finally:
        os.unlink(path)
    levels: int = json.loads(out)["levels"]
    return levels


def draw(m: int, frac: float, seed: int, args: argparse.Namespace) -> schedlab.TaskSet:
    """A task set of the experiment. WCETs are rounded up to whole µs, which
    can lift a set drawn just below U = m above it; such a set is infeasible
    for every policy and is replaced by the next draw of a separate seed
    stream (seed + k·10⁶), so every point has only sets with U ≤ m."""
    for k in range(100):
        ts = schedlab.generate(
            seed=seed + k * 1_000_000,
            cpus=m,
            policy="run",
            utils="bimo-heavy",
            util=frac * m,
            slack=args.slack * m,
            periods="list:25ms,50ms,100ms,200ms",
        )
        if sum(Fraction(t.wcet, t.period) for t in ts.tasks) <= m:
            return ts
    raise RuntimeError(f"no set with U <= {m} from seed {seed}")


def one_set(m: int, frac: float, seed: int, args: argparse.Namespace) -> dict[str, Any]:
    ts = draw(m, frac, seed, args)
    row: dict[str, Any] = {"tasks": len(ts), "util": ts.utilization}
    for pol in POLICIES:
        spec = dataclasses.replace(ts, policy=schedlab.Policy(pol))
        try:
            r = schedlab.simulate(spec, horizon=args.horizon, overheads=False, keep_events=False)
        except ValueError as e:
            # P-EDF: worst-fit decreasing found no partition.
            row[pol] = {"admitted": False, "reason": str(e).splitlines()[0]}
            continue
        s = r.summary
        row[pol] = {
            "admitted": True,
            "jobs": s["jobs"],
            "misses": s["misses"],
            "preemptions": s["preemptions"],
            "migrations": s["migrations"],
        }
    row["levels"] = reduction_levels(ts)
    return row


def table(results: dict[tuple[int, float], list[dict[str, Any]]]) -> str:
    lines = [
        "| m | U/m | sets | tasks (mean) | RUN fail | P-EDF fail (unpartitioned) | G-EDF fail "
        "| RUN pre/job | P-EDF pre/job | G-EDF pre/job | RUN mig/job | G-EDF mig/job | RUN levels 0/1/2/3+ |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (m, frac), rows in sorted(results.items()):
        n = len(rows)

        def fail(pol: str) -> int:
            return sum(1 for r in rows if not r[pol]["admitted"] or r[pol]["misses"] > 0)

        def per_job(pol: str, key: str) -> str:
            jobs = sum(r[pol]["jobs"] for r in rows if r[pol]["admitted"])
            val = sum(r[pol][key] for r in rows if r[pol]["admitted"])
            return f"{val / jobs:.3f}" if jobs else "-"

        unpart = sum(1 for r in rows if not r["pedf"]["admitted"])
        lv = Counter(min(r["levels"], 3) for r in rows)
        tasks = sum(r["tasks"] for r in rows) / n
        lines.append(
            f"| {m} | {frac:.2f} | {n} | {tasks:.1f} | {fail('run') / n:.2f} | {fail('pedf') / n:.2f} ({unpart}) "
            f"| {fail('gedf') / n:.2f} | {per_job('run', 'preemptions')} | {per_job('pedf', 'preemptions')} "
            f"| {per_job('gedf', 'preemptions')} | {per_job('run', 'migrations')} | {per_job('gedf', 'migrations')} "
            f"| {lv[0]}/{lv[1]}/{lv[2]}/{lv[3]} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpus", default="4,8,16", help="comma-separated CPU counts (default 4,8,16)")
    ap.add_argument(
        "--points", default="0.5,0.6,0.7,0.75,0.8,0.85,0.9,0.95,1.0", help="target U/m values (default 0.5 to 1.0)"
    )
    ap.add_argument("--sets", type=int, default=100, help="task sets per point (default 100)")
    ap.add_argument("--slack", type=float, default=0.01, help="sets land in [f·m − slack·m, f·m] (default 0.01)")
    ap.add_argument("--horizon", default="400ms", help="simulated time per set (default 400ms)")
    ap.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    ap.add_argument("--out", help="also write the table (with its command line) to this file")
    args = ap.parse_args()

    started = time.monotonic()
    results: dict[tuple[int, float], list[dict[str, Any]]] = {}
    seed = args.seed
    for m in (int(x) for x in args.cpus.split(",")):
        for frac in (float(x) for x in args.points.split(",")):
            rows = []
            for _ in range(args.sets):
                rows.append(one_set(m, frac, seed, args))
                seed += 1
            results[(m, frac)] = rows
            print(f"m={m} U/m={frac:.2f}: done", file=sys.stderr)
    out = table(results)
    elapsed = time.monotonic() - started
    cmd = "bench/reproduce_run.py " + " ".join(sys.argv[1:])
    print(out)
    print(f"\n{sum(len(v) for v in results.values())} task sets in {elapsed:.0f} s", file=sys.stderr)
    if args.out:
        with open(args.out, "w") as f:
            f.write(f"<!-- generated by: {cmd} -->\n{out}\n")


if __name__ == "__main__":
    main()
