#!/usr/bin/env python3
"""Checks the published orderings of memory-centric scheduling (Rivas et
al., ECRTS 2019, §6; notes seed-002-004-mcs-run.md §A5) on the results of
``schedlab sweep experiments/mcs-ecrts19.yaml`` (CSV), and prints one
Markdown row per ordering: what the paper says, what the results show, and
whether it holds. Exit status 0 whatever the verdicts (1: unreadable file).

    python3 experiments/mcs_orderings.py mcs.csv

Every comparison of configurations is paired: Contention, S-MP and A-MP
simulate the same set (A-MP: the set drawn from the same seed and options
with ``mode=amp``, so the same utilisations and data sizes). A task's WOET
is its worst simulated response time (release to completion; each task has
its own CPU, as on the paper's board); its inflation is WOET / C, C its
contention-free execution time (alone, τ0's WOET is C). The improvement
factor of S-MP over Contention at a data size is the mean over the sets of
WOET(S-MP) / WOET(Contention). "E = P" is ``compute=1GiB/s`` (the paper's
memory-heavy ``sum``), "E = 4·P" is ``compute=256MiB/s``.

Standard library only (``csv``), so it runs without the Python package.
"""

from __future__ import annotations

import csv
import math
import sys
from collections import defaultdict

SMALL, LARGE = ("list:200KiB",), ("list:4MiB", "list:7800KiB")
EP, E4P = "mode=smp,compute=1GiB/s", "mode=smp,compute=256MiB/s"
TESTS = ("HOL", "best-case", "precedence")


def size_bytes(wss: str) -> float:
    """`list:800KiB` -> 819200."""
    text = wss.split(":")[-1]
    for unit, k in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("B", 1)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * k
    return math.nan


def num(x: str) -> float:
    return float(x) if x != "" else math.nan


def main(path: str) -> int:
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        print(f"{path}: {e}", file=sys.stderr)
        return 1
    need = {"wss", "prem", "sample", "evaluation", "verdict", "tau0_wcet_ns"}
    missing = sorted(need - set(rows[0] if rows else ()))
    if missing:
        print(f"{path}: not the rows of experiments/mcs-ecrts19.yaml (no column {', '.join(missing)}); "
              "run `schedlab sweep experiments/mcs-ecrts19.yaml -o mcs.csv` first", file=sys.stderr)
        return 1
    slots = sorted({int(k[3:].split("_")[0]) for k in rows[0] if k.startswith("tau") and k.endswith("_wcet_ns")})
    # (wss, prem, sample, evaluation) -> per task (C, response, mean response, jitter), and the verdict.
    at: dict[tuple[str, str, int, str], list[tuple[float, float, float, float]]] = {}
    verdict: dict[tuple[str, str, int, str], str] = {}
    for r in rows:
        key = (r["wss"], r["prem"], int(r["sample"]), r["evaluation"])
        at[key] = [tuple(num(r[f"tau{i}_{m}"]) for m in ("wcet_ns", "response_ns", "mean_response_ns", "exec_jitter"))  # type: ignore[misc]
                   for i in slots]
        verdict[key] = r["verdict"]
    sizes = sorted({k[0] for k in at}, key=size_bytes)
    sets = sorted({(k[0], k[1], k[2]) for k in at})
    tasks = [i for i in slots if any(not math.isnan(v[i][0]) for v in at.values())]

    def woet(s: tuple[str, str, int], ev: str, t: int) -> float:
        return at[(*s, ev)][t][1]

    def improvement(size: str, prem: str, a: str, b: str, t: int) -> float:
        v = [woet(s, a, t) / woet(s, b, t) for s in sets if s[:2] == (size, prem)]
        v = [x for x in v if not math.isnan(x)]
        return sum(v) / len(v) if v else math.nan

    out: list[tuple[str, str, bool]] = []
    ep = [s for s in sets if s[1] == EP]
    infl_c = [woet(s, "Contention", 0) / at[(*s, "Contention")][0][0] for s in ep]
    infl_s = [woet(s, "S-MP", 0) / at[(*s, "S-MP")][0][0] for s in ep]
    out.append(("1. Contention inflates τ0 (the paper: up to 1.4); S-MP keeps it at 1",
                f"τ0's WOET / C, E = P: Contention up to {max(infl_c):.2f}, S-MP {min(infl_s):.3f}–{max(infl_s):.3f}",
                max(infl_c) > 1.0 and all(abs(x - 1) <= 0.01 for x in infl_s)))
    imp0 = {z: improvement(z, EP, "S-MP", "Contention", 0) for z in sizes}
    out.append(("2. τ0 is better under S-MP than under Contention at every data size (improvement factor < 1)",
                "S-MP / Contention, τ0: " + ", ".join(f"{z[5:]} {x:.2f}" for z, x in imp0.items()),
                all(x < 1 for x in imp0.values())))
    steady = [imp0[z] for z in sizes if size_bytes(z) >= 2 << 20]
    out.append(("2b. τ0's improvement factor improves (falls) with the data size and is constant above about 2 MB",
                f"τ0 (above): {min(imp0.values()):.3f}–{max(imp0.values()):.3f}",
                all(b <= a + 0.01 for a, b in zip(list(imp0.values()), list(imp0.values())[1:]))
                and max(steady) - min(steady) <= 0.02))

    imp = {(z, t): improvement(z, EP, "S-MP", "Contention", t) for z in sizes for t in tasks if t in (1, 2)}
    shown = ", ".join(f"τ{t} {z[5:]} {imp[(z, t)]:.2f}" for t in (1, 2) if t in tasks for z in sizes if z in SMALL + LARGE)
    out.append(("3. τ1, τ2 are worse under S-MP than under Contention at small data (< 0.8 MB), better at large",
                f"S-MP / Contention: {shown}",
                all(imp[(z, t)] > 1 for (z, t) in imp if z in SMALL) and all(imp[(z, t)] < 1 for (z, t) in imp if z in LARGE)))
    def mean_jitter(z: str, ev: str, t: int) -> float:
        v = [at[(*s, ev)][t][3] for s in ep if s[0] == z]
        v = [x for x in v if not math.isnan(x)]
        return sum(v) / len(v) if v else math.nan

    jc = {(z, t): mean_jitter(z, "Contention", t) for z in sizes for t in tasks}
    jm = [mean_jitter(z, ev, t) for z in sizes for t in tasks for ev in ("S-MP", "A-MP")]
    out.append(("4. Jobs' execution times vary under Contention, not under S-MP and A-MP (none)",
                "mean over the sets of (max − min) / mean of a task's jobs' CPU time, E = P: Contention "
                f"{min(jc.values()):.3f}–{max(jc.values()):.3f} per data size and task, S-MP and A-MP up to {max(jm):.3f}",
                all(x > 0 for x in jc.values()) and all(x == 0 for x in jm)))
    ratios = defaultdict(list)
    order_ok, n_all, bounded = True, 0, defaultdict(set)
    for s in sets:
        for t in tasks:
            w = woet(s, "S-MP", t)
            if math.isnan(w):
                continue
            b = [at[(*s, x)][t][1] for x in TESTS]
            for x, v in zip(TESTS, b):
                if not math.isnan(v):
                    ratios[(x, t)].append(v / w)
                    bounded[x].add(s[0])
            if not any(math.isnan(x) for x in b):
                n_all += 1
                order_ok &= b[0] >= b[1] >= b[2]
    lo = min((v for k, vs in ratios.items() for v in vs), default=math.nan)
    counts = "; ".join(f"{x}: {sum(len(ratios[(x, t)]) for t in tasks)} (data {', '.join(z[5:] for z in sizes if z in bounded[x])})" for x in TESTS)
    out.append(("5a. Every analysed bound is at least the simulated WOET (S-MP)",
                f"task bounds per test: {counts}; smallest bound / WOET {lo:.3f}", lo >= 1))
    out.append(("5b. The bounds order HOL ≥ best-case ≥ precedence (the paper: HOL > OFF > OFF-OPT)",
                f"{n_all} tasks bounded by all three", order_ok and n_all > 0))
    r0 = ratios[("precedence", 0)]
    out.append(("5c. τ0's tightest bound is close to its WOET (within 10 %)",
                f"precedence bound / WOET, τ0: {min(r0):.3f}–{max(r0):.3f}" if r0 else "no bound", bool(r0) and max(r0) <= 1.1))
    hi = {t: max(ratios[("precedence", t)], default=math.nan) for t in tasks if t > 0}
    out.append(("5d. The tightest bound / WOET is below 2 for τ1, τ2 (the paper's OFF-OPT)",
                ", ".join(f"τ{t} up to {x:.2f}" for t, x in hi.items()), all(x < 2 for x in hi.values())))
    for prem, name in ((EP, "6. A-MP is better than S-MP (lower WOET) for τ0–τ2 at every data size, E = P"),
                       (E4P, "6b. ... with E = 4·P, where the E phases can cover the worker's W + P")):
        f = {(z, t): improvement(z, prem, "A-MP", "S-MP", t) for z in sizes for t in tasks}
        out.append((name, "A-MP / S-MP: " + ", ".join(f"τ{t} {z[5:]} {x:.2f}" for (z, t), x in f.items()),
                    all(x < 1 for x in f.values())))
    misses = sorted({k[3] for k, v in verdict.items() if v == "unschedulable"})
    print(f"{len(sets)} sets, {len(sizes)} data sizes; evaluations with an unschedulable verdict on some set: {', '.join(misses) or 'none'}\n")
    print("| ordering (ECRTS 2019 §6) | this sweep | holds |\n|---|---|---|")
    for claim, seen, ok in out:
        print(f"| {claim} | {seen} | {'holds' if ok else 'does not hold'} |")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
