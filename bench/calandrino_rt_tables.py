#!/usr/bin/env python3
"""Calandrino Tables 6.9/6.10 on real threads (docs/reproductions.md,
"Calandrino Tables 6.9 and 6.10 on real threads"): the dissertation ran its
cache-aware scheduler (CA-SCHED) against G-EDF in LITMUS^RT and reported
deadline tardiness (average and maximum, ms; Table 6.9) and kernel
overheads (average and worst case, µs, the top 1 % of samples discarded;
Table 6.10). Here the dispatch backend runs one small MTT set (Fig. 4.6's,
examples/ca-gedf-threads.yaml: 10 ms quanta, an MTT of two threads over
768 KiB, three tasks with working sets of their own) under `gedf`,
`ca-gedf` and megatask `pd2` (`megatasks: greedy`), with the synthetic MTT
benchmark (`memwalk`, jobs at 80 % of their WCETs), and prints the two
tables from each run's trace:

- tardiness: max(0, finish − deadline) of every job the run completed
  (`schedlab stats --jobs-csv`), average and maximum in ms;
- overheads: every kind the dispatcher records (release, schedule,
  context-switch = dispatch on the same CPU, ipi = dispatch on another CPU,
  release-latency) from the trace's `overhead` events; per kind, the
  largest ⌊n / 100⌋ samples are discarded, then the average and the
  maximum (the worst case) in µs;
- the working-set profiler's estimate of the MTT (`wss-profile` note).

Every run is validated against its policy (`--validate`). Release build
(built unless --no-build; --debug uses the debug binary). Needs root. Writes
bench/results/<UTC stamp>-calandrino-rt-tables.{json,md}.

Usage: sudo python3 bench/calandrino_rt_tables.py [--seconds 5] [--no-build] [--debug]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
from pathlib import Path

import record
from record import REPO, sh

BASE = (REPO / "examples" / "ca-gedf-threads.yaml").read_text()
CA_POLICY = "policy: {name: ca-gedf, quantum: 10ms}"

POLICIES = {
    "gedf": "policy: {name: gedf}",
    "ca-gedf": CA_POLICY,
    "pd2 megatasks": "policy: {name: pd2, quantum: 10ms, megatasks: greedy}",
}

KINDS = ["release", "schedule", "context-switch", "ipi", "release-latency"]


def trimmed(samples: list[int]) -> dict[str, float]:
    """n, the samples discarded, and the average and worst case (µs) of the rest."""
    v = sorted(samples)
    drop = len(v) // 100
    kept = v[: len(v) - drop]
    if not kept:
        return {"n": 0, "discarded": 0}
    return {"n": len(v), "discarded": drop, "avg_us": sum(kept) / len(kept) / 1e3, "wc_us": kept[-1] / 1e3}


def run_one(binary: Path, name: str, policy: str, seconds: int, scratch: Path) -> dict[str, object]:
    spec = scratch / f"{name.replace(' ', '-')}.yaml"
    spec.write_text(BASE.replace(CA_POLICY, policy))
    trace = spec.with_suffix(".jsonl")
    jobs_csv = spec.with_suffix(".csv")
    r = sh([str(binary), "run", str(spec), "--backend", "dispatch", "--workload", "memwalk", "--exec", "fraction:0.8",
            "--duration", f"{seconds}s", "--trace", str(trace), "--validate", "--wait", "--json"])
    try:
        doc = json.loads(r.stdout)
    except json.JSONDecodeError:
        return {"error": f"exit {r.returncode}: {r.stderr[-400:]}"}
    s = sh([str(binary), "stats", str(trace), "--jobs-csv", str(jobs_csv)])
    if s.returncode != 0:
        return {"error": f"stats exit {s.returncode}: {s.stderr[-400:]}"}
    tard = [int(row["tardiness"]) for row in csv.DictReader(jobs_csv.open()) if row["status"] == "completed"]
    over: dict[str, list[int]] = {k: [] for k in KINDS}
    profile = None
    for line in trace.open():
        e = json.loads(line)
        if e.get("ev") == "overhead" and e["kind"] in over:
            over[e["kind"]].append(e["dur"])
        elif e.get("ev") == "note" and e.get("name") == "wss-profile":
            profile = e["data"]
    v = doc.get("validation") or {}
    verdict = "pass" if v.get("pass") else "fail: " + "; ".join(f"{c['check']} ×{c['violations']}" for c in v.get("checks", []) if c.get("violations"))
    return {
        "exit": r.returncode,
        "jobs": len(tard),
        "misses": sum(t.get("misses", 0) for t in doc["tasks"]),
        "tardiness_ms": {"avg": sum(tard) / len(tard) / 1e6 if tard else 0.0, "max": max(tard, default=0) / 1e6},
        "overheads": {k: trimmed(v) for k, v in over.items()},
        "validation": verdict,
        "wss_profile": profile,
    }


def tables(runs: dict[str, dict[str, object]]) -> list[str]:
    md = ["Table 6.9 shape: deadline tardiness (ms) of the completed jobs", "",
          "| Algorithm | jobs | misses | Average | Maximum | validation |", "|---|---|---|---|---|---|"]
    for name, r in runs.items():
        if "error" in r:
            md.append(f"| {name} | error: {r['error']} | | | | |")
            continue
        t = r["tardiness_ms"]
        md.append(f"| {name} | {r['jobs']} | {r['misses']} | {t['avg']:.2f} | {t['max']:.2f} | {r['validation']} |")
    md += ["", "Table 6.10 shape: dispatcher overheads (µs), top 1 % of each kind's samples discarded: average / worst case (n)", "",
           "| Algorithm | " + " | ".join(KINDS) + " |", "|---|" + "---|" * len(KINDS)]
    for name, r in runs.items():
        if "error" in r:
            continue
        o = r["overheads"]
        cells = [f"{o[k]['avg_us']:.1f} / {o[k]['wc_us']:.1f} ({o[k]['n']})" if o[k]["n"] else "–" for k in KINDS]
        md.append(f"| {name} | " + " | ".join(cells) + " |")
    md += ["", "Working-set profiler (MTT `video`, declared 768 KiB):", ""]
    for name, r in runs.items():
        p = r.get("wss_profile")
        if p:
            for m in p["mtts"]:
                err = "-" if m["error"] is None else f"{m['error'] * 100:+.1f} %"
                md.append(f"- {name}: source {p['source']}, estimate {m['estimate']} B, error {err}, "
                          f"{m['profiled']} MTT-jobs profiled, {m['discarded']} discarded, {m['overlapping']} overlapping")
    return md


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--debug", action="store_true")
    ap.add_argument("--no-build", action="store_true")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("calandrino_rt_tables.py: needs root (SCHED_FIFO threads)")
    binary = record.schedlab(a.debug, not a.no_build)
    res = record.machine(seconds_per_run=a.seconds, binary=str(binary.relative_to(REPO)))
    with tempfile.TemporaryDirectory() as d:
        runs = {name: run_one(binary, name, policy, a.seconds, Path(d)) for name, policy in POLICIES.items()}
    record.save("calandrino-rt-tables", {"meta": res, "runs": runs}, "\n".join(tables(runs)) + "\n")


if __name__ == "__main__":
    main()
