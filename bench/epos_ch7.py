#!/usr/bin/env python3
"""EPOS thesis Ch.7 in simulation (docs/reproductions.md, "EPOS Ch.7"): CAP
(colour-aware partitioning, worst fit over colour groups) against plain WFD
under P-EDF, in deadline misses, with the platform model
(docs/platform-model.md).

The sets follow the thesis (notes seed-000-epos.md §4.5): 8 CPUs and 8
colours, one colour group per colour. Periods are uniform from {25, 50, 75,
100, 150, 200} ms and u ~ U[0.1, 0.7] (WCET = p·u in whole µs). A group's
tasks are drawn until its u is in [0.9, 1.0] (a draw that overshoots 1.0 is
drawn again). A group's tasks share its colour and write the same lines (one
`data_group`), so tasks of a group on different CPUs cause coherence misses.
The cache is 8 MiB, 16 ways, 64 B lines, with 8 colours of 1 MiB (the
thesis' 8 super colours) and a 128 KiB private level per CPU. WSS is 32,
64, 128 or 256 KiB, and the write ratio is 20 % or 33 %.

A set that plain WFD cannot place is drawn again (the thesis ran every set
under both), and the number redrawn is recorded.

Placement: CAP WFD (`partitioning: cap`, capacity 1) or plain WFD
(`partitioning: wfd`). The metric is the thesis': the percentage of jobs
that miss their deadline, per set, averaged over the sets. A control run of
WFD without the platform model must miss nothing: every CPU's utilisation
is ≤ 1.

The published ordering (notes §6.6): CAP misses no deadline at any WSS or
write ratio, and WFD misses some. The script says whether each holds.

Release build by default; `--debug` uses target/debug/schedlab. Writes
bench/results/<UTC stamp>-epos-ch7.{json,md}.

Usage: python3 bench/epos_ch7.py [--sets 10] [--seed 2014] [--seconds 40] [--debug | --no-build]
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import record
M = 8
PERIODS_MS = [25, 50, 75, 100, 150, 200]
WSS_KIB = [32, 64, 128, 256]
WRITE_RATIOS = [0.2, 0.33]


def wfd_places(groups: list[list[tuple[int, int]]]) -> bool:
    """Plain worst-fit decreasing onto 8 CPUs of capacity 1 (ties: lower index)."""
    from fractions import Fraction

    utils = sorted((Fraction(w, p * 1000) for g in groups for w, p in g), reverse=True)
    load = [Fraction(0)] * M
    for u in utils:
        k = min(range(M), key=lambda b: (load[b], b))
        if load[k] + u > 1:
            return False
        load[k] += u
    return True


def generate(rng: random.Random) -> list[list[tuple[int, int]]]:
    """Per colour, (wcet µs, period ms) tasks until the colour's u is in [0.9, 1.0]."""
    groups = []
    for _ in range(M):
        tasks: list[tuple[int, int]] = []
        u = 0.0
        while u < 0.9:
            p = rng.choice(PERIODS_MS)
            w = max(1, round(p * 1000 * rng.uniform(0.1, 0.7)))
            if u + w / (p * 1000) > 1.0:
                continue
            tasks.append((w, p))
            u += w / (p * 1000)
        groups.append(tasks)
    return groups


def spec_text(groups: list[list[tuple[int, int]]], wss: int, wr: float, packing: str) -> str:
    lines = [
        "meta: {description: 'EPOS Ch.7 (bench/epos_ch7.py)'}",
        f"platform: {{cpus: {M}, cache: {{size: 8MiB, ways: 16, line: 64B, colors: 8, private: 128KiB}}}}",
        f"policy: {{name: pedf, partitioning: {packing}}}",
        "tasks:",
    ]
    for g, tasks in enumerate(groups):
        for k, (w, p) in enumerate(tasks):
            lines.append(
                f"  - {{name: g{g}_{k}, wcet: {w}us, period: {p}ms, colors: [{g}], wss: {wss}KiB, write_ratio: {wr}, data_group: g{g}}}"
            )
    return "\n".join(lines) + "\n"


def simulate(binary: Path, text: str, seconds: int, model: bool) -> dict:
    off = [] if model else ["--no-platform-model"]
    return record.schedlab_json(binary, ["simulate", "--horizon", f"{seconds}s", *off], text)


def miss_pct(result: dict) -> float:
    jobs = sum(t["jobs"] for t in result["tasks"])
    return 100.0 * sum(t["misses"] for t in result["tasks"]) / jobs


def main() -> None:
    a = record.study_options(__doc__, ("--seconds", 40, "simulated seconds (the thesis: 200 jobs, about 40 s)"))
    profile = "debug" if a.debug else "release"
    binary = record.schedlab(a.debug, not a.no_build)
    rng = random.Random(a.seed)
    # Sets plain WFD places (the thesis ran every set under both); the
    # others are drawn again, and counted.
    sets = []
    redrawn = 0
    while len(sets) < a.sets:
        s = generate(rng)
        if wfd_places(s):
            sets.append(s)
        else:
            redrawn += 1
    started = time.time()
    rows = []
    control_misses = 0
    for wr in WRITE_RATIOS:
        for wss in WSS_KIB:
            pct: dict[str, list[float]] = {"cap": [], "wfd": []}
            for groups in sets:
                for packing in ("cap", "wfd"):
                    text = spec_text(groups, wss, wr, packing)
                    pct[packing].append(miss_pct(simulate(binary, text, a.seconds, True)))
                    if packing == "wfd":
                        control_misses += sum(t["misses"] for t in simulate(binary, text, a.seconds, False)["tasks"])
            row = {
                "write_ratio": wr,
                "wss_kib": wss,
                "cap": sum(pct["cap"]) / len(pct["cap"]),
                "wfd": sum(pct["wfd"]) / len(pct["wfd"]),
                "wfd_min": min(pct["wfd"]),
                "wfd_max": max(pct["wfd"]),
            }
            rows.append(row)
            print(
                f"wr {wr:.2f} {wss:3d} KiB: CAP {row['cap']:6.2f} %  WFD {row['wfd']:6.2f} % ({row['wfd_min']:.2f}–{row['wfd_max']:.2f})",
                flush=True,
            )
    verdicts = {
        "CAP misses no deadline at any WSS or write ratio": all(r["cap"] == 0 for r in rows),
        "WFD misses deadlines at every WSS and write ratio": all(r["wfd"] > 0 for r in rows),
        "control (WFD without the platform model) misses nothing": control_misses == 0,
    }
    elapsed = time.time() - started
    meta = {
        "sets": a.sets,
        "tasks per set": [sum(len(g) for g in s) for s in sets],
        "redrawn (WFD could not place)": redrawn,
        "seed": a.seed,
        "seconds_simulated": a.seconds,
        "profile": profile,
        "seconds": round(elapsed, 1),
    }
    md = ["| write ratio | WSS | CAP: % jobs missed | WFD: % jobs missed (min–max over sets) |", "|---|---|---|---|"]
    md += [
        f"| {int(r['write_ratio'] * 100)} % | {r['wss_kib']} KiB | {r['cap']:.2f} % | {r['wfd']:.2f} % ({r['wfd_min']:.2f}–{r['wfd_max']:.2f}) |"
        for r in rows
    ]
    record.save_study("epos-ch7", meta, rows, verdicts, md)
    print(f"{elapsed:.0f} s")
    sys.exit(0 if all(verdicts.values()) else 1)


if __name__ == "__main__":
    main()
