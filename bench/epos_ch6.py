#!/usr/bin/env python3
"""EPOS thesis Ch.6 in simulation (docs/reproductions.md, "EPOS Ch.6"):
partitioned page colours remove the inter-task slowdown that shared colours
cause, under G-EDF, P-EDF and C-EDF, with the platform model
(docs/platform-model.md).

The sets follow the thesis (notes seed-000-epos.md §4.4): 8 CPUs, periods
uniform from {25, 50, 100, 200} ms, utilisations uniform in [0.1, 0.7],
WCET = p·u (whole µs); tasks are added until the scheduler's test fails and
the failing task is dropped — G-EDF: GFB (U ≤ m − (m − 1)·u_max); P-EDF:
worst-fit decreasing onto 8 CPUs of capacity 1; C-EDF: WFD onto 4 clusters
of 2 CPUs (capacity 2), then GFB per cluster. 10 sets per scheduler. The
largest-period task is the best-effort server (512 KiB over all colours,
class `be`, left out of the metric). Every task has a write ratio of 20 %;
the tasks have private arrays, so no data group.

Scenarios (the platform: 8 MiB, 16 ways, 64 B lines = 128 colours of 64 KiB;
128 KiB private level per CPU, Ch.6's L2 per logical CPU):
  S1 — each task its own colour (task i: colour i + 2, Fig. 71's `id+2`);
  S3 — every task in colour 2.
(S2 = S1 in the model: it has no operating-system data.) Each task's WSS is
32, 64, 128 or 256 KiB. The metric is the thesis': the percentage of the
real-time tasks that miss at least one deadline in 200 jobs of the largest
period (40 s). A control run of S3 without the platform model must miss
nothing (the sets pass their tests).

The published ordering (notes §6.5): S3 misses more than S1 for every
scheduler and WSS, and S1 misses nothing at 32 and 64 KiB. The script says
whether each holds.

Release build by default (it builds `schedlab`); `--debug` uses
target/debug/schedlab. Writes bench/results/<UTC stamp>-epos-ch6.{json,md}.

Usage: python3 bench/epos_ch6.py [--sets 10] [--seed 2014] [--jobs 200] [--debug | --no-build]
"""

from __future__ import annotations

import random
import sys
import time
from fractions import Fraction
from pathlib import Path

import record
M = 8
PERIODS_MS = [25, 50, 100, 200]
WSS_KIB = [32, 64, 128, 256]
SCHEDULERS = ["G-EDF", "P-EDF", "C-EDF"]
CLUSTERS = [[0, 1], [2, 3], [4, 5], [6, 7]]


def wfd(utils: list[Fraction], bins: int, cap: Fraction) -> list[list[int]] | None:
    """Worst-fit decreasing (ties: lower index first); None when a task does not fit."""
    order = sorted(range(len(utils)), key=lambda i: (-utils[i], i))
    load = [Fraction(0)] * bins
    out: list[list[int]] = [[] for _ in range(bins)]
    for i in order:
        k = min(range(bins), key=lambda b: (load[b], b))
        if load[k] + utils[i] > cap:
            return None
        load[k] += utils[i]
        out[k].append(i)
    return out


def gfb(utils: list[Fraction], m: int) -> bool:
    return not utils or sum(utils) <= m - (m - 1) * max(utils)


def passes(scheduler: str, utils: list[Fraction]) -> bool:
    if scheduler == "G-EDF":
        return gfb(utils, M)
    if scheduler == "P-EDF":
        return wfd(utils, M, Fraction(1)) is not None
    packed = wfd(utils, len(CLUSTERS), Fraction(2))
    return packed is not None and all(gfb([utils[i] for i in b], 2) for b in packed)


def generate(scheduler: str, rng: random.Random) -> list[tuple[int, int]]:
    """(wcet µs, period ms) of one set: add until the test fails, drop the failing task."""
    tasks: list[tuple[int, int]] = []
    while True:
        p = rng.choice(PERIODS_MS)
        wcet = max(1, round(p * 1000 * rng.uniform(0.1, 0.7)))
        cand = tasks + [(wcet, p)]
        if not passes(scheduler, [Fraction(w, p * 1000) for w, p in cand]):
            return tasks
        tasks = cand


def spec(scheduler: str, tasks: list[tuple[int, int]], wss: int, scenario: str) -> str:
    policy = {"G-EDF": "{name: gedf}", "P-EDF": "{name: pedf, partitioning: wfd}", "C-EDF": "{name: cedf, partitioning: wfd}"}
    clusters = ", clusters: [[0, 1], [2, 3], [4, 5], [6, 7]]" if scheduler == "C-EDF" else ""
    be = max(range(len(tasks)), key=lambda i: (tasks[i][1], -i))
    lines = [
        f"meta: {{description: 'EPOS Ch.6 {scheduler} {scenario} {wss} KiB (bench/epos_ch6.py)'}}",
        f"platform: {{cpus: {M}{clusters}, cache: {{size: 8MiB, ways: 16, line: 64B, private: 128KiB}}}}",
        f"policy: {policy[scheduler]}",
        "tasks:",
    ]
    for i, (w, p) in enumerate(tasks):
        if i == be:
            lines.append(f"  - {{name: t{i}, wcet: {w}us, period: {p}ms, wss: 512KiB, write_ratio: 0.2, class: be}}")
            continue
        colour = i + 2 if scenario == "S1" else 2
        lines.append(f"  - {{name: t{i}, wcet: {w}us, period: {p}ms, wss: {wss}KiB, colors: [{colour}], write_ratio: 0.2}}")
    return "\n".join(lines) + "\n"


def simulate(binary: Path, text: str, horizon_ms: int, model: bool) -> dict:
    off = [] if model else ["--no-platform-model"]
    return record.schedlab_json(binary, ["simulate", "--horizon", f"{horizon_ms}ms", *off], text)


def real_time(result: dict, text: str) -> list[dict]:
    """The result's real-time tasks (the best-effort server left out)."""
    be = {line.split("name: ")[1].split(",")[0] for line in text.splitlines() if "class: be" in line}
    return [t for t in result["tasks"] if t["name"] not in be]


def missing_pct(result: dict, text: str) -> float:
    rt = real_time(result, text)
    return 100.0 * sum(1 for t in rt if t["misses"] > 0) / len(rt)


def main() -> None:
    a = record.study_options(__doc__, ("--jobs", 200, "jobs of the largest period (200: 40 s)"))
    profile = "debug" if a.debug else "release"
    binary = record.schedlab(a.debug, not a.no_build)
    horizon = a.jobs * max(PERIODS_MS)
    started = time.time()
    rows = []
    control_misses = 0
    for s_idx, scheduler in enumerate(SCHEDULERS):
        rng = random.Random(a.seed * 100 + s_idx)
        sets = [generate(scheduler, rng) for _ in range(a.sets)]
        for wss in WSS_KIB:
            pct = {"S1": [], "S3": []}
            for tasks in sets:
                for scenario in ("S1", "S3"):
                    text = spec(scheduler, tasks, wss, scenario)
                    pct[scenario].append(missing_pct(simulate(binary, text, horizon, True), text))
                    if scenario == "S3":
                        control = simulate(binary, text, horizon, False)
                        control_misses += sum(t["misses"] for t in real_time(control, text))
            rows.append(
                {
                    "scheduler": scheduler,
                    "wss_kib": wss,
                    "S1": sum(pct["S1"]) / len(pct["S1"]),
                    "S3": sum(pct["S3"]) / len(pct["S3"]),
                    "tasks": sum(len(t) - 1 for t in sets) / len(sets),
                }
            )
            r = rows[-1]
            print(f"{scheduler} {wss:3d} KiB: S1 {r['S1']:6.2f} %  S3 {r['S3']:6.2f} %  ({r['tasks']:.1f} rt tasks per set)", flush=True)
    s3_worse = all(r["S3"] > r["S1"] for r in rows)
    s1_clean = all(r["S1"] == 0 for r in rows if r["wss_kib"] <= 64)
    verdicts = {
        "S3 misses more than S1 for every scheduler and WSS": s3_worse,
        "S1 misses nothing at 32 and 64 KiB": s1_clean,
        "control (S3 without the platform model) misses nothing": control_misses == 0,
    }
    elapsed = time.time() - started
    meta = {
        "sets": a.sets,
        "seed": a.seed,
        "horizon_ms": horizon,
        "profile": profile,
        "seconds": round(elapsed, 1),
    }
    md = ["| scheduler | WSS | S1: % tasks missing | S3: % tasks missing |", "|---|---|---|---|"]
    md += [f"| {r['scheduler']} | {r['wss_kib']} KiB | {r['S1']:.2f} | {r['S3']:.2f} |" for r in rows]
    record.save_study("epos-ch6", meta, rows, verdicts, md)
    print(f"{elapsed:.0f} s")
    sys.exit(0 if all(verdicts.values()) else 1)


if __name__ == "__main__":
    main()
