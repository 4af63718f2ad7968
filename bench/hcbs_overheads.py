#!/usr/bin/env python3
"""H-CBS scheduler overheads on real threads (docs/reproductions.md, "H-CBS
scheduler overheads"): the OSPERT 2009 paper timed its kernel's RT hooks for
a flat and a full hierarchy against the stock RT class. Here the dispatch
backend runs the same four tasks on this machine's CPUs under `gfp` (the
baseline: global FP, no reservations), `hcbs` with one group (flat) and
`hcbs` with two root groups, a subgroup and a leaf queue (full), and the
dispatcher's measured overheads are compared: `release` (a job's release
handled, the policy's release callback included), `schedule` (one
scheduling decision, every callback of the instant included) and
`release-latency` (timer expiry to the job's first instruction).

Every run is validated against its policy (`--validate`). Release build
(it builds it unless --no-build). Needs root. Writes
bench/results/<UTC stamp>-hcbs-overheads.{json,md}.

Usage: sudo python3 bench/hcbs_overheads.py [--seconds 3] [--runs 3] [--no-build]
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
from record import REPO, sh

SCHEDLAB = REPO / "target" / "release" / "schedlab"

TASKS = """tasks:
  - {name: t0, wcet: 2ms, period: 10ms}
  - {name: t1, wcet: 2ms, period: 10ms}
  - {name: t2, wcet: 1ms, period: 20ms}
  - {name: t3, wcet: 1ms, period: 5ms}
"""

SPECS = {
    "gfp": "policy: {name: gfp}\n",
    "hcbs flat": "policy: {name: hcbs}\nreservations:\n"
    "  - {name: all, budget: 9500us, period: 10ms, tasks: [t0, t1, t2, t3]}\n",
    "hcbs full": "policy: {name: hcbs}\nreservations:\n"
    "  - name: a\n    budget: 5ms\n    period: 10ms\n    tasks: [t0, t1]\n    leaf_budget: 3ms\n"
    "    groups:\n      - {name: a1, budget: 1ms, period: 10ms, tasks: [t2]}\n"
    "  - {name: b, budget: 2ms, period: 5ms, tasks: [t3]}\n",
}

KINDS = ["release", "schedule", "release-latency"]


def run_one(spec: Path, seconds: int) -> dict[str, object]:
    r = sh([str(SCHEDLAB), "run", str(spec), "--backend", "dispatch", "--duration", f"{seconds}s", "--validate", "--wait", "--json"])
    try:
        doc = json.loads(r.stdout)
    except json.JSONDecodeError:
        return {"error": f"exit {r.returncode}: {r.stderr[-400:]}"}
    means = {o["kind"]: o["total"] / o["count"] / 1e3 for o in doc["overheads"] if o["kind"] in KINDS and o["count"]}
    jobs = sum(t.get("jobs", 0) for t in doc["tasks"])
    v = doc.get("validation") or {}
    verdict = "pass" if v.get("pass") else "fail: " + "; ".join(f"{c['check']} ×{c['violations']}" for c in v.get("checks", []) if c.get("violations"))
    return {"exit": r.returncode, "mean_us": means, "jobs": jobs, "misses": sum(t.get("misses", 0) for t in doc["tasks"]), "validation": verdict}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-build", action="store_true")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("hcbs_overheads.py: needs root (SCHED_FIFO threads)")
    if not a.no_build and subprocess.run(["cargo", "build", "--release", "-p", "schedlab-cli", "--bin", "schedlab"], cwd=REPO).returncode:
        sys.exit("hcbs_overheads.py: the release build failed")
    cpus = os.cpu_count() or 2
    res = record.machine(seconds_per_run=a.seconds, runs=a.runs)
    runs: dict[str, list[dict[str, object]]] = {}
    with tempfile.TemporaryDirectory() as d:
        # Round-robin over the workloads, so that a slow phase of the machine
        # falls on all of them.
        for _ in range(a.runs):
            for name, policy in SPECS.items():
                p = Path(d) / (name.replace(" ", "-") + ".yaml")
                p.write_text(f"platform: {{cpus: {cpus}}}\n{policy}{TASKS}")
                runs.setdefault(name, []).append(run_one(p, a.seconds))
    res["runs"] = runs
    res["loadavg_after"] = os.getloadavg()

    def median(name: str, kind: str) -> float | None:
        v = sorted(r["mean_us"][kind] for r in runs[name] if "mean_us" in r and kind in r["mean_us"])  # type: ignore[index, operator]
        return v[len(v) // 2] if v else None

    lines = [
        f"# H-CBS overheads on the dispatch backend — {res['date']}, {res['host']} ({res['os_kernel']}, {cpus} CPUs), "
        f"{a.runs} runs of {a.seconds} s per workload, load average before {res['loadavg_before'][0]:.2f}, "  # type: ignore[index]
        f"after {res['loadavg_after'][0]:.2f}",  # type: ignore[index]
        "",
        "Median over the runs of each run's mean (µs); in brackets the ratio to `gfp`.",
        "",
        "| workload | " + " | ".join(KINDS) + " | validation |",
        "|---|" + "---|" * (len(KINDS) + 1),
    ]
    for name in SPECS:
        cells = []
        for k in KINDS:
            m, base = median(name, k), median("gfp", k)
            cells.append("–" if m is None else f"{m:.1f}" + ("" if name == "gfp" or not base else f" ({m / base:.2f}×)"))
        valid = [str(r.get("validation", r.get("error")))[:80] for r in runs[name]]
        passed = sum(v == "pass" for v in valid)
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {passed} of {len(valid)} pass |")
        lines += [f"|  | {v} |" for v in sorted(set(valid) - {"pass"})]
    lines += ["", "Command: `sudo python3 bench/hcbs_overheads.py " + " ".join(sys.argv[1:]) + "`"]
    record.save("hcbs-overheads", res, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
