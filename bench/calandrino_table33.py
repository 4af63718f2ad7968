#!/usr/bin/env python3
"""Calandrino's Table 3.3 in simulation (docs/reproductions.md, "Calandrino
Table 3.3"): the spread of multithreaded tasks under PD^2, without and with
the early-release spread minimisation (`policy.spread`, docs/policies.md).

The sets (notes seed-001-calandrino.md §5.2; the dissertation leaves the
generator's periods and total utilisation out, notes §9.1 item 13, so these
are decided here): 4 CPUs, quantum 1 ms; MTTs of 1 to 4 tasks (uniform),
all tasks of an MTT with one period and one WCET; periods uniform from
{10, 12, 15, 20, 24, 30, 40, 60} quanta (hyperperiod at most 120 quanta);
each task's utilisation uniform in (0, cap], the WCET ⌈u·p⌉ quanta clipped
to ⌊cap·p⌋ (at least 1); MTTs are added while the total stays ≤ 4 and the
first one that does not fit ends the set. Each set is simulated for one
hyperperiod under plain PD^2 and under PD^2 with `spread: true` (early
release X − 1 quanta, X from the set's largest weight by Theorem 3.1; the
table's X is the cap's). The metric is the thesis': per MTT of 2, 3 or 4
tasks, the spread (largest, over i, of the quanta between the first and
the last of its tasks' i-th quanta, plus 1), min / avg / max over the MTTs
of that size in all sets. In brackets, the average over the MTTs of each
one's mean per-quantum spread (last − first + 1 of its tasks' i-th quanta,
averaged over i): the dissertation does not say which average it gives.

The published orderings (notes §6.3): with the method the maximum spread of
every size stays ≤ X of the cap (3, 4, 7: Theorem 3.1), and the average
(both averages) is lower than without it for every cap and size. The script says whether each
holds.

The thesis ran 50,000 sets per cap; that takes hours here (one process per
simulation), so the default is 300 sets per cap and `--sets 50000` the full
count. Release build by default (it builds `schedlab`); `--debug` uses
target/debug/schedlab. Writes bench/results/<UTC stamp>-calandrino-table33.{json,md}.

Usage: python3 bench/calandrino_table33.py [--sets 300] [--seed 2014] [--debug | --no-build]
"""

from __future__ import annotations

import argparse
import math
import random
import time
from fractions import Fraction

import record

M = 4
PERIODS = [10, 12, 15, 20, 24, 30, 40, 60]
CAPS = [(Fraction(1, 3), "(0, 1/3]", 3), (Fraction(1, 2), "(0, 1/2]", 4), (Fraction(3, 4), "(0, 3/4]", 7)]
SIZES = [2, 3, 4]


def generate(rng: random.Random, cap: Fraction) -> list[tuple[int, int, int]]:
    """MTTs as (tasks, wcet, period) in quanta, total utilisation ≤ M."""
    out: list[tuple[int, int, int]] = []
    total = Fraction(0)
    while True:
        n = rng.randint(1, 4)
        p = rng.choice(PERIODS)
        u = rng.uniform(0, float(cap))
        e = min(max(1, math.ceil(u * p)), max(1, math.floor(cap * p)))
        if total + Fraction(n * e, p) > M:
            return out
        total += Fraction(n * e, p)
        out.append((n, e, p))


def spec(mtts: list[tuple[int, int, int]], spread: bool) -> str:
    """The spec text: task k.j is thread j of MTT k."""
    tasks, groups = [], []
    for k, (n, e, p) in enumerate(mtts):
        names = [f"t{k}_{j}" for j in range(n)]
        tasks += [f"  - {{name: {name}, wcet: {e}ms, period: {p}ms}}" for name in names]
        groups.append(f"  - {{name: m{k}, tasks: [{', '.join(names)}]}}")
    return "\n".join(
        [f"platform: {{cpus: {M}}}", f"policy: {{name: pd2, quantum: 1ms, spread: {str(spread).lower()}}}", "tasks:"]
        + tasks
        + ["mtt:"]
        + groups
    ) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=300)
    ap.add_argument("--seed", type=int, default=2014)
    ap.add_argument("--debug", action="store_true")
    ap.add_argument("--no-build", action="store_true")
    a = ap.parse_args()
    binary = record.schedlab(a.debug, not a.no_build)
    rng = random.Random(a.seed)
    rows: list[dict[str, object]] = []
    verdicts: dict[str, bool] = {}
    table = [
        "| Alg. | Util. cap | X | ER | size 2 min / avg / max | size 3 min / avg / max | size 4 min / avg / max |",
        "|---|---|---|---|---|---|---|",
    ]
    start = time.time()
    for cap, label, x in CAPS:
        sets = [generate(rng, cap) for _ in range(a.sets)]
        per: dict[bool, dict[int, list[int]]] = {False: {s: [] for s in SIZES}, True: {s: [] for s in SIZES}}
        unit: dict[bool, dict[int, list[float]]] = {False: {s: [] for s in SIZES}, True: {s: [] for s in SIZES}}
        for mtts in sets:
            hyper = math.lcm(*(p for _, _, p in mtts))
            for method in (False, True):
                out = record.schedlab_json(binary, ["simulate", "--horizon", f"{hyper}ms"], spec(mtts, method))
                for k, m in enumerate(out["mtt_spread"]):
                    n = mtts[k][0]
                    if n in SIZES and m["spread"] is not None:
                        per[method][n].append(m["spread"])
                        unit[method][n].append(m["mean_unit_spread"])
        for method in (False, True):
            cells = []
            for s in SIZES:
                v = per[method][s]
                w = unit[method][s]
                stats = {"n": len(v), "min": min(v), "avg": sum(v) / len(v), "max": max(v), "avg_unit": sum(w) / len(w)} if v else {"n": 0}
                rows.append({"cap": label, "method": method, "size": s, **stats})
                cells.append(f"{stats['min']} / {stats['avg']:.2f} / {stats['max']} ({stats['avg_unit']:.2f})" if v else "–")
            name = "[3] (spread: true)" if method else "PD^2"
            table.append(f"| {name} | {label} | {x if method else '–'} | {x - 1 if method else 0} | " + " | ".join(cells) + " |")
        for s in SIZES:
            on, off = per[True][s], per[False][s]
            if on:
                verdicts[f"cap {label}, size {s}: max spread with the method ≤ X = {x}"] = max(on) <= x
            if on and off:
                verdicts[f"cap {label}, size {s}: average spread lower with the method"] = sum(on) / len(on) < sum(off) / len(off)
                u_on, u_off = unit[True][s], unit[False][s]
                verdicts[f"cap {label}, size {s}: average per-quantum spread lower with the method"] = sum(u_on) / len(u_on) < sum(u_off) / len(u_off)
    meta = {"sets_per_cap": a.sets, "seed": a.seed, "simulated_cpus": M, "periods_quanta": PERIODS, "seconds": round(time.time() - start, 1)}
    record.save_study("calandrino-table33", meta, rows, verdicts, table)


if __name__ == "__main__":
    main()
