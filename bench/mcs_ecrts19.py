#!/usr/bin/env python3
"""Memory-centric scheduling (Rivas et al., ECRTS 2019) in simulation
(docs/reproductions.md, "MCS"): the paper's evaluation (§6; notes
seed-002-004-mcs-run.md §A4–A5) on the simulator with the platform model's
memory contention (docs/platform-model.md), and its holistic analyses.

The sets follow §A4: one task per CPU, the task's index is its CPU and its
memory priority (τ0 the highest), 4 CPUs with CPU 3 the master. Every task
has the same data size B, split by `schedlab gen --prem` into Sections of
200 KiB that fit a 256 KiB partition (A-MP: 100 KiB on half of it); memory
phases move 1 GiB/s, E phases process 1 GiB/s (E = P = W: a
memory-heavy task like the paper's `sum`). The tasks' data stays in their
partitions (no `wss`, so the cache model adds no misses to E phases); the
platform has a 1 MiB 16-way cache and a 1 GiB/s memory, so memory accesses
running together stretch one another. Periods are T_i = f_i · C_i with
f = 4, 4.6, 5.3, 6.1 (whole ms, D = T), offsets random per run, so the
tasks meet in every phasing.

Configurations: Contention (`mps: false`: no memory-phase scheduler, each
task's memory accesses interleaved with its execution), S-MP (`mcs`) and
A-MP (`memory_mode: amp`, when the simulator runs it). The "execution
time" of a job is, as on the paper's one-task-per-core board, the time from
its release (= its start) to its end: the response time; its CPU time is
reported apart (the "operation" portion).

Published orderings checked (notes §A5):
  1. Contention inflates τ0 (inflation factor woet(3)/woet(1) > 1, the paper
     measures up to 1.4); S-MP keeps it at about 1.
  2. τ0 under S-MP is always better than under Contention (improvement
     factor woet_S(3)/woet_C(3) < 1 at every size).
  3. τ1, τ2 under S-MP are worse than Contention at small sizes (< 0.8 MB)
     and better at large ones.
  4. The jitter of the execution (the CPU time of a job) is higher under
     Contention than under S-MP, where there is none.
  5. Analysis vs simulation, 4 tasks (S-MP): every bound / WOET ≥ 1; the
     bounds order HOL ≥ best-case ≥ precedence (the paper: HOL > OFF >
     OFF-OPT, our refinements are not OFF/OFF-OPT); τ0's tightest bound is
     close to its WOET; the tightest bound / WOET of τ1, τ2 is below 2 and of
     τ3 below 4 (the paper's OFF-OPT).
  6. A-MP better than S-MP (improvement factor lower), with these phases and
     again with E = 4·P (compute 256 MiB/s), where the E phases can cover the
     worker's write-back and prefetch (the paper's condition, [S2:L312]).

Debug or release build (`--debug` uses target/debug/schedlab). Writes
bench/results/<UTC stamp>-mcs-ecrts19.{json,md}.

Usage: python3 bench/mcs_ecrts19.py [--sets 10] [--seed 2014] [--seconds 3] [--debug | --no-build]
(--sets: runs with random offsets per configuration)
"""

from __future__ import annotations

import csv
import io
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import record

SIZES = ["200KiB", "800KiB", "2MiB", "4MiB", "7800KiB"]
FACTORS = [4.0, 4.6, 5.3, 6.1]
PREM = "section=200KiB,partition=256KiB,bandwidth=1GiB/s,compute=1GiB/s,write=1"
# Compute-heavier phases (E = 4·P), where A-MP's E phases can cover the worker's W + P.
PREM_E4 = "section=200KiB,partition=256KiB,bandwidth=1GiB/s,compute=256MiB/s,write=1"
TESTS = ["mcs.holistic", "mcs.holistic.best-case", "mcs.holistic.precedence"]
UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


def ns(text: str) -> int:
    for u in ("ns", "us", "ms", "s"):
        if text.endswith(u):
            return round(float(text[: -len(u)]) * UNITS[u])
    raise ValueError(text)


def gen(binary: Path, m: int, size: str, mode: str, prem: str = PREM) -> dict:  # type: ignore[type-arg]
    cmd = [str(binary), "gen", "--seed", "1", "--cpus", "4", "--tasks", str(m), "--policy", "mcs",
           "--prem", f"mode={mode},{prem}", "--wss", f"list:{size}", "--util", "0.1", "--format", "json"]
    out = record.sh(cmd)
    if out.returncode != 0:
        sys.exit(f"gen failed: {out.stderr}")
    spec = json.loads(out.stdout)
    for i, t in enumerate(spec["tasks"]):
        t.pop("wss", None)
        t.pop("deadline", None)
        c = sum(ns(next(iter(s.values()))) for s in t["segments"])
        t["period"] = f"{-(-int(c * FACTORS[i]) // 1_000_000)}ms"
    spec["platform"] = {"cpus": 4, "cache": {"size": "1MiB", "ways": 16, "line": "64B"}, "memory": {"bandwidth": "1GiB/s"}}
    return spec


def simulate(binary: Path, spec: dict, seconds: int, seed: int) -> list[dict] | None:  # type: ignore[type-arg]
    """Per-job rows (response, exec) of one run with random offsets; None when the policy refuses the spec."""
    rnd = random.Random(seed)
    spec = json.loads(json.dumps(spec))
    for t in spec["tasks"]:
        t["offset"] = f"{rnd.randrange(ns(t['period']) // 1000)}us"
    with tempfile.TemporaryDirectory() as d:
        path, table = Path(d) / "s.json", Path(d) / "jobs.csv"
        path.write_text(json.dumps(spec))
        out = record.sh([str(binary), "simulate", str(path), "--horizon", f"{seconds}s", "--csv", str(table), "--json"])
        if out.returncode == 2:
            return None
        if out.returncode not in (0, 1):
            sys.exit(f"simulate failed: {out.stderr}\n{json.dumps(spec)}")
        return [r for r in csv.DictReader(io.StringIO(table.read_text())) if r["status"] == "completed"]


def stats(rows: list[dict], task: int, key: str) -> dict[str, float]:  # type: ignore[type-arg]
    v = [int(r[key]) for r in rows if int(r["task_index"]) == task]
    if not v:
        return {"n": 0}
    return {"n": len(v), "best": min(v), "mean": sum(v) / len(v), "worst": max(v)}


def runs(binary: Path, spec: dict, args) -> list[dict] | None:  # type: ignore[no-untyped-def, type-arg]
    rows: list[dict] = []  # type: ignore[type-arg]
    for k in range(args.sets):
        r = simulate(binary, spec, args.seconds, args.seed * 1000 + k)
        if r is None:
            return None
        rows += r
    return rows


def main() -> None:
    args = record.study_options(__doc__, ("--seconds", 3, "simulated seconds per run"))
    binary = record.schedlab(args.debug, not args.no_build)
    results: list[dict] = []  # type: ignore[type-arg]
    amp_runs = True
    for size in SIZES:
        for m in (1, 3):
            for config in ("Contention", "S-MP", "A-MP"):
                if config == "A-MP" and not amp_runs:
                    continue
                spec = gen(binary, m, size, "amp" if config == "A-MP" else "smp")
                if config == "Contention":
                    spec["policy"]["mps"] = False
                rows = runs(binary, spec, args)
                if rows is None:
                    amp_runs = False
                    print(f"{config} is not simulated (the policy refuses it); skipped", file=sys.stderr)
                    continue
                for t in range(m):
                    results.append({"size": size, "m": m, "config": config, "task": t,
                                    "response": stats(rows, t, "response"), "exec": stats(rows, t, "exec"),
                                    "misses": sum(1 for r in rows if int(r["task_index"]) == t and r["missed"] == "true")})

    def woet(size: str, m: int, config: str, t: int) -> float:
        for r in results:
            if (r["size"], r["m"], r["config"], r["task"]) == (size, m, config, t):
                return float(r["response"]["worst"])
        return float("nan")

    def jitter(size: str, config: str, t: int) -> float:
        for r in results:
            if (r["size"], r["m"], r["config"], r["task"]) == (size, 3, config, t):
                e = r["exec"]
                return (e["worst"] - e["best"]) / e["mean"]
        return float("nan")

    # S-MP against A-MP where the E phases can cover the worker (E = 4·P).
    covered: list[dict] = []  # type: ignore[type-arg]
    if amp_runs:
        for size in SIZES:
            for config in ("S-MP", "A-MP"):
                rows = runs(binary, gen(binary, 3, size, "amp" if config == "A-MP" else "smp", PREM_E4), args) or []
                for t in range(3):
                    covered.append({"size": size, "config": config, "task": t, "response": stats(rows, t, "response")})

    def woet_e4(size: str, config: str, t: int) -> float:
        for r in covered:
            if (r["size"], r["config"], r["task"]) == (size, config, t):
                return float(r["response"]["worst"])
        return float("nan")

    # Analysis vs simulation, 4 tasks under S-MP.
    bounds: list[dict] = []  # type: ignore[type-arg]
    for size in ("800KiB", "2MiB"):
        spec = gen(binary, 4, size, "smp")
        for t in spec["tasks"]:  # longer periods: the analyses answer with bounds
            t["period"] = f"{ns(t['period']) * 10 // 1_000_000}ms"
        rows = runs(binary, spec, args) or []
        text = json.dumps(spec)
        ans = record.schedlab_json(binary, ["analyze"], text)
        per = {o["test"]: o for o in ans["outcomes"] if o["test"] in TESTS}
        for t in range(4):
            w = stats(rows, t, "response")
            row = {"size": size, "task": t, "woet": w.get("worst", 0), "misses": sum(1 for r in rows if int(r["task_index"]) == t and r["missed"] == "true")}
            for test in TESTS:
                o = per[test]
                rt = (o.get("response_times_ns") or [None] * 4)[t]
                row[test] = {"verdict": o["verdict"], "bound": rt, "ratio": (rt / w["worst"]) if rt and w.get("worst") else None}
            bounds.append(row)

    table = ["| data | τ | config | WOET m=1 (ms) | WOET m=3 (ms) | inflation | improvement vs Contention (m=3) | CPU-time jitter (m=3) |",
             "|---|---|---|---|---|---|---|---|"]
    configs = ["Contention", "S-MP"] + (["A-MP"] if amp_runs else [])
    for size in SIZES:
        for t in range(3):
            for c in configs:
                w1 = woet(size, 1, c, 0) if t == 0 else float("nan")
                w3 = woet(size, 3, c, t)
                table.append(f"| {size} | τ{t} | {c} | {w1 / 1e6:.3f} | {w3 / 1e6:.3f} | {w3 / w1:.3f} | {w3 / woet(size, 3, 'Contention', t):.3f} | {jitter(size, c, t):.3f} |")
    if covered:
        table += ["", "E = 4·P (compute 256 MiB/s), 3 tasks: WOET (ms)", "", "| data | τ | S-MP | A-MP | A-MP / S-MP |", "|---|---|---|---|---|"]
        for size in SIZES:
            for t in range(3):
                a, b = woet_e4(size, "S-MP", t), woet_e4(size, "A-MP", t)
                table.append(f"| {size} | τ{t} | {a / 1e6:.3f} | {b / 1e6:.3f} | {b / a:.3f} |")
    table += ["", "| data | τ | WOET (ms) | " + " | ".join(f"{x} bound / WOET" for x in TESTS) + " |", "|---|---|---|---|---|---|"]
    for b in bounds:
        cells = [f"{b[x]['ratio']:.2f}" if b[x]["ratio"] else f"— ({b[x]['verdict']})" for x in TESTS]
        table.append(f"| {b['size']} | τ{b['task']} | {b['woet'] / 1e6:.3f} | " + " | ".join(cells) + " |")

    infl_c = [woet(s, 3, "Contention", 0) / woet(s, 1, "Contention", 0) for s in SIZES]
    infl_s = [woet(s, 3, "S-MP", 0) / woet(s, 1, "S-MP", 0) for s in SIZES]
    imp = {t: [woet(s, 3, "S-MP", t) / woet(s, 3, "Contention", t) for s in SIZES] for t in range(3)}
    small = [i for i, s in enumerate(SIZES) if s == "200KiB"]
    large = [i for i, s in enumerate(SIZES) if s in ("4MiB", "7800KiB")]
    ratios_ok = [b for b in bounds if all(b[x]["ratio"] for x in TESTS)]
    verdicts = {
        "1. Contention inflates τ0 (inflation > 1), S-MP keeps it at 1 (±0.01)": max(infl_c) > 1.0 and all(abs(x - 1) <= 0.01 for x in infl_s),
        "2. τ0 better under S-MP than Contention at every size": all(x < 1 for x in imp[0]),
        "3. τ1, τ2 worse under S-MP at small data, better at large": all(imp[t][i] > 1 for t in (1, 2) for i in small) and all(imp[t][i] < 1 for t in (1, 2) for i in large),
        "4. CPU-time jitter higher under Contention than under S-MP (none)": all(jitter(s, "Contention", t) > jitter(s, "S-MP", t) == 0 for s in SIZES for t in range(3)),
        "5a. every bound / WOET >= 1": all(b[x]["ratio"] >= 1 for b in bounds for x in TESTS if b[x]["ratio"]),
        "5b. HOL >= best-case >= precedence": all(b[TESTS[0]]["bound"] >= b[TESTS[1]]["bound"] >= b[TESTS[2]]["bound"] for b in ratios_ok) and bool(ratios_ok),
        "5c. τ0's tightest bound within 10 % of its WOET": all(b[TESTS[2]]["ratio"] and b[TESTS[2]]["ratio"] <= 1.1 for b in bounds if b["task"] == 0),
        "5d. tightest bound / WOET < 2 for τ1, τ2 and < 4 for τ3": all(b[TESTS[2]]["ratio"] and b[TESTS[2]]["ratio"] < (4 if b["task"] == 3 else 2) for b in bounds if b["task"] > 0),
    }
    if amp_runs:
        verdicts["6. A-MP better than S-MP (improvement factor lower) at every size, τ0–τ2"] = all(
            woet(s, 3, "A-MP", t) < woet(s, 3, "S-MP", t) for s in SIZES for t in range(3))
        verdicts["6b. ... with E = 4·P (E covers the worker's W + P)"] = all(
            woet_e4(s, "A-MP", t) < woet_e4(s, "S-MP", t) for s in SIZES for t in range(3))
    meta = {"sets": args.sets, "seed": args.seed, "seconds": args.seconds, "sizes": SIZES, "prem": PREM,
            "factors": FACTORS, "amp_simulated": amp_runs,
            "command": "python3 bench/mcs_ecrts19.py " + " ".join(sys.argv[1:])}
    meta["prem_e4"] = PREM_E4
    record.save_study("mcs-ecrts19", meta, results + [{"bounds": bounds}, {"covered": covered}], verdicts, table)


if __name__ == "__main__":
    main()
