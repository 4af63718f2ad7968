#!/usr/bin/env python3
"""FPDS preemption-point latency on real threads (docs/performance.md,
"FPDS preemption-point latency"): the time from a higher-priority job's
release to the switch at the running job's next preemption point, against
the length of the subjobs, on the dispatch backend.

For each subjob length L (default 0.5, 1, 2, 4 ms) one run of a P-FPDS set on
CPU 1: `low` is 20 ms of CPU time in subjobs of L every 25 ms, `high` is
200 µs every 9.7 ms (so its releases fall at every phase of `low`'s subjobs);
spin-cpu job bodies, 90 % of the lengths (`--exec fraction:0.9`: a subjob
is 0.9 L of CPU time, and the wall-clock time the validator measures, which
includes interrupts and the dispatcher's share of CPU 1, stays within the
WCET). From the
trace, for every release of `high` while `low` runs on CPU 1:

- point latency: release -> `low`'s switch-away at its next point (a
  release during the final subjob waits for the job's end: counted apart);
- wait: release -> `high`'s first instruction (point or end);
- switch cost: `low`'s segment-end -> its switch-away (the worker's report,
  the dispatcher's decision, the preemption signal).

A release at a uniformly random phase of a subjob waits 0.45 L on average
and at most 0.9 L, plus the switch cost; the table gives both beside the measured
quantiles, and how many waits exceeded L + 1 ms (a platform stall: the run's
own stall notes are printed). The validator runs on every trace
(`schedlab validate --tolerance 1ms`).

Release builds by default (it builds `schedlab`); `--debug` uses
target/debug/schedlab instead (slower dispatcher, said in the output). Needs
root. Writes bench/results/<UTC stamp>-fpds-points.{json,md}.

Usage: sudo python3 bench/fpds_points.py [--seconds 5] [--lengths 0.5,1,2,4] [--no-build | --debug]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import record
from record import REPO, quantiles, sh


def spec(length_us: int) -> str:
    k = 20_000 // length_us
    subjobs = ", ".join([f"{length_us}us"] * k)
    return (
        "platform: {cpus: 2}\npolicy: {name: fpds}\ntasks:\n"
        "  - {name: high, wcet: 200us, period: 9700us, cpu: 1}\n"
        f"  - {{name: low, period: 25ms, subjobs: [{subjobs}], cpu: 1}}\n"
    )


def measure(events: list[dict]) -> dict[str, object]:
    """Point latency, wait and switch cost (µs) from a trace's events."""
    low_running = False
    pending: list[int] = []  # releases of `high` while `low` ran, not yet served
    last_point: int | None = None
    point_lat: list[float] = []
    final_wait: list[float] = []
    wait: list[float] = []
    cost: list[float] = []
    served_by_point: set[int] = set()
    for e in events:
        ev, t = e.get("ev"), e.get("t", 0)
        if ev == "release" and e["task"] == 0 and low_running:
            pending.append(t)
        elif ev == "segment-end" and e["task"] == 1:
            last_point = t
        elif ev == "switch-to" and e["task"] == 1:
            low_running = True
        elif ev == "switch-away" and e["task"] == 1:
            low_running = False
            if e["reason"] == "preempt":
                for r in pending:
                    point_lat.append((t - r) / 1e3)
                    served_by_point.add(r)
                if last_point is not None:
                    cost.append((t - last_point) / 1e3)
        elif ev == "switch-to" and e["task"] == 0 and pending:
            for r in pending:
                wait.append((t - r) / 1e3)
                if r not in served_by_point:
                    final_wait.append((t - r) / 1e3)
            pending = []
    return {
        "point_latency_us": quantiles(point_lat),
        "final_subjob_wait_us": quantiles(final_wait),
        "wait_us": quantiles(wait),
        "switch_cost_us": quantiles(cost),
        "waits": wait,
    }


def run_one(schedlab: Path, length_us: int, seconds: int, d: Path) -> dict[str, object]:
    s = d / f"fpds-{length_us}us.yaml"
    s.write_text(spec(length_us))
    trace = d / f"fpds-{length_us}us.jsonl"
    cmd = [str(schedlab), "run", str(s), "--backend", "dispatch", "--duration", f"{seconds}s", "--exec", "fraction:0.9",
           "--workload", "spin-cpu", "--wait", "--json", "--trace", str(trace)]
    r = sh(cmd)
    try:
        doc = json.loads(r.stdout)
    except json.JSONDecodeError:
        return {"subjob_us": length_us, "error": f"exit {r.returncode}: {r.stderr[-800:]}"}
    if "error" in doc or not trace.exists():
        return {"subjob_us": length_us, "error": f"exit {r.returncode}: {r.stderr[-800:]}"}
    v = sh([str(schedlab), "validate", str(trace), "--tolerance", "1ms"])
    events = [json.loads(x) for x in trace.read_text().splitlines()[1:]]
    m = measure(events)
    waits = m.pop("waits")
    return {
        "subjob_us": length_us,
        "command": " ".join(["schedlab", *cmd[1:]]).replace(str(d) + "/", ""),
        "exit": r.returncode,
        "jobs": doc["totals"]["jobs"],
        "misses": doc["totals"]["misses"],
        "validate": (v.stdout.splitlines() or ["?"])[0],
        "violations": [x for x in v.stdout.splitlines() if x.startswith("t=")][:3],
        "over_bound": sum(1 for w in waits if w > length_us + 1000),  # type: ignore[union-attr]
        "notes": [n for n in doc["run"].get("notes", []) if "stall" in n or "preemption points" in n],
        **m,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--lengths", default="0.5,1,2,4", help="subjob lengths in ms")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--no-build", action="store_true", help="use the existing release build")
    g.add_argument("--debug", action="store_true", help="use target/debug/schedlab (no build)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("fpds_points.py: needs root (SCHED_FIFO)")
    profile = "debug" if a.debug else "release"
    schedlab = REPO / "target" / profile / "schedlab"
    if not a.debug and not a.no_build:
        if subprocess.run(["cargo", "build", "--release", "-p", "schedlab-cli", "--bin", "schedlab"], cwd=REPO).returncode:
            sys.exit("fpds_points.py: the release build failed")
    lengths = [int(round(float(x) * 1000)) for x in a.lengths.split(",")]
    res = record.machine(build=profile, seconds_per_run=a.seconds)
    load_before = res["loadavg_before"]
    with tempfile.TemporaryDirectory() as d:
        runs = [run_one(schedlab, L, a.seconds, Path(d)) for L in lengths]
    res["runs"] = runs
    res["loadavg_after"] = os.getloadavg()

    def f(s: dict[str, float], k: str) -> str:
        return f"{s[k] / 1e3:.3f}" if s.get("n") else "–"

    lines = [
        f"# FPDS preemption-point latency — {res['date']}, {res['host']} ({res['os_kernel']}, {res['cpus']} CPUs), "
        f"{profile} build, {a.seconds} s per run, load average before {load_before[0]:.2f}, "
        f"after {res['loadavg_after'][0]:.2f}",  # type: ignore[index]
        "",
        "Release of `high` → `low`'s switch-away at its next point (ms); a subjob executes 0.9 L: "
        "expected mean 0.45 L, bound 0.9 L + switch cost.",
        "",
        "| subjob L | n | mean | p50 | p99 | max | switch cost p50 / p99 (µs) | wait (to first instruction) p99 / max | waits > L + 1 ms | validate |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        if "error" in r:
            lines.append(f"| {r.get('subjob_us')} µs | error: {r['error']} |||||||||")
            continue
        p, c, w = r["point_latency_us"], r["switch_cost_us"], r["wait_us"]
        cost = f"{c['p50']:.1f} / {c['p99']:.1f}" if c.get("n") else "–"
        lines.append(
            f"| {r['subjob_us'] / 1e3:g} ms | {p.get('n', 0)} | {f(p, 'mean')} | {f(p, 'p50')} | {f(p, 'p99')} | {f(p, 'max')} "
            f"| {cost} | {f(w, 'p99')} / {f(w, 'max')} | {r['over_bound']} of {w.get('n', 0)} | {r['validate'].split(';')[0]} |"
        )
    lines += ["", "Commands (one per length; the spec is written by the script):", ""]
    lines += [f"    {r.get('command')}" for r in runs if "command" in r]
    notes = [f"- {r['subjob_us'] / 1e3:g} ms: {n}" for r in runs for n in [*r.get("notes", []), *r.get("violations", [])]]
    if notes:
        lines += ["", "Run notes:", "", *notes]
    md = "\n".join(lines) + "\n"
    record.save("fpds-points", res, md)


if __name__ == "__main__":
    main()
