#!/usr/bin/env python3
"""Linux runtime latency, side by side in one run (docs/performance.md,
"Linux runtime latency"):

1. cyclictest -m -Sp90 -i200 (Debian rt-tests): timer wake-up latency of a
   SCHED_FIFO 90 thread per CPU, the platform's reference;
2. rt-app (Debian rt-app), a periodic SCHED_FIFO 90 thread per CPU: its
   logged wake-up latency (wu_lat);
3. schedlab's kernel backend on bench/sets/rt-20.yaml (20 tasks, G-EDF on
   SCHED_DEADLINE): release latency (timer expiry -> the job's first instruction);
4. schedlab's dispatch backend on the same set: release latency and the
   dispatcher's scheduling-decision time;
5. the same dispatch run again with SCHEDLAB_DISPATCH_PHASES: where each
   decision's time goes (phases, system calls and their time, the
   dispatcher's own CPU time and context switches; a separate run, so that
   its stamps are not in the measurement of 4);
6. the cost of one trace record (crates/rt/examples/trace_cost.rs).

Release builds only (it builds them). Needs root; installs rt-tests and rt-app
with apt-get when they are missing (this is the benchmark's setup, not
`make test`'s). Each phase runs --seconds (default 5); the phases run one
after another in one invocation, so they share the machine's state. Writes
bench/results/<UTC stamp>-rt-latency.{json,md}. Records what it measured,
targets met or not:

  kernel p99 <= 1.2 x cyclictest p99; dispatch p99 <= 2 x cyclictest p99;
  decision p99 <= 10 us at 20 tasks; tracing <= 100 ns per record.

cyclictest holds a 0 us request on /dev/cpu_dma_latency (its default), so
idle CPUs poll while it runs; schedlab's runs do the same by default
(`--idle poll`); `--idle kernel` runs them with the kernel's idle states
instead, to see what the request is worth.

Usage: sudo python3 bench/rt_latency.py [--seconds 5] [--no-build] [--idle poll|kernel]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import record
from record import REPO, quantiles, sh

SET = REPO / "bench" / "sets" / "rt-20.yaml"
SCHEDLAB = REPO / "target" / "release" / "schedlab"
TRACE_COST = REPO / "target" / "release" / "examples" / "trace_cost"


def setup(build: bool) -> None:
    if os.geteuid() != 0:
        sys.exit("rt_latency.py: needs root (SCHED_FIFO / SCHED_DEADLINE, tracefs)")
    missing = [p for p, exe in (("rt-tests", "cyclictest"), ("rt-app", "rt-app")) if shutil.which(exe) is None]
    if missing:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        sh(["apt-get", "update", "-qq"], env=env)
        r = sh(["apt-get", "install", "-y", "-qq", *missing], env=env)
        if r.returncode != 0:
            print(f"apt-get install {' '.join(missing)} failed:\n{r.stderr}", file=sys.stderr)
    if shutil.which("cyclictest") is None:
        sys.exit("rt_latency.py: cyclictest (Debian rt-tests) is needed")
    if build:
        for args in (["-p", "schedlab-cli", "--bin", "schedlab"], ["-p", "schedlab-rt", "--example", "trace_cost"]):
            r = subprocess.run(["cargo", "build", "--release", *args], cwd=REPO)
            if r.returncode != 0:
                sys.exit("rt_latency.py: the release build failed")


def from_histogram(counts: dict[int, int], overflow: list[float]) -> dict[str, float]:
    """Percentiles (µs) from cyclictest's 1 µs histogram plus its overflow samples."""
    total = sum(counts.values()) + len(overflow)
    if total == 0:
        return {"n": 0}
    over = sorted(overflow)

    def q(p: float) -> float:
        rank = min(total - 1, max(0, int(round(p * (total - 1)))))
        acc = 0
        for us in sorted(counts):
            acc += counts[us]
            if acc > rank:
                return float(us)
        return over[rank - acc] if over else float(max(counts))

    mean = (sum(us * c for us, c in counts.items()) + sum(over)) / total
    mx = max([float(max(counts, default=0))] + over)
    return {"n": total, "p50": q(0.5), "p99": q(0.99), "p999": q(0.999), "max": mx, "mean": mean}


def cyclictest(seconds: int) -> dict[str, object]:
    limit = 20000
    r = sh(["cyclictest", "-m", "-Sp90", "-i200", "-D", f"{seconds}s", "-q", "-h", str(limit)])
    counts: dict[int, int] = {}
    overflow: list[float] = []
    maxes: list[float] = []
    for line in r.stdout.splitlines():
        if line and line[0].isdigit():
            cells = line.split()
            n = sum(int(c) for c in cells[1:])
            if n:
                counts[int(cells[0])] = counts.get(int(cells[0]), 0) + n
        elif line.startswith("# Max Latencies:"):
            maxes = [float(x) for x in line.split(":")[1].split()]
    s = from_histogram(counts, overflow)
    if maxes:
        s["max"] = max(maxes)
    return {"command": "cyclictest -m -Sp90 -i200 -D %ds -q -h %d" % (seconds, limit), "latency_us": s, "per_cpu_max_us": maxes}


def rt_app(seconds: int) -> dict[str, object]:
    if shutil.which("rt-app") is None:
        return {"available": False, "why": "rt-app is not installed (apt-get install rt-app failed)"}
    with tempfile.TemporaryDirectory() as d:
        cpus = os.cpu_count() or 1
        tasks = {
            f"cpu{c}": {
                "instance": 1,
                "loop": -1,
                "cpus": [c],
                "policy": "SCHED_FIFO",
                "priority": 90,
                # rt-app logs a row per loop of a phase (not for a task without phases).
                "phases": {"p0": {"loop": 1, "run": 20, "timer": {"ref": f"t{c}", "period": 1000}}},
            }
            for c in range(cpus)
        }
        conf = {
            "tasks": tasks,
            "global": {"duration": seconds, "calibration": 100, "default_policy": "SCHED_OTHER", "lock_pages": True,
                       "logdir": d, "log_basename": "rtapp", "log_size": 64, "ftrace": False, "gnuplot": False},
        }
        p = Path(d) / "conf.json"
        p.write_text(json.dumps(conf))
        r = sh(["rt-app", str(p)])
        lat: list[float] = []
        for f in Path(d).glob("rtapp-*.log"):
            for line in f.read_text().splitlines():
                if line.startswith("#") or not line.strip():
                    continue
                cells = line.split()
                try:
                    lat.append(float(cells[-1]))
                except ValueError:
                    pass
        return {"available": True, "command": "rt-app: one SCHED_FIFO 90 thread per CPU, timer period 1 ms, run 20 us, log wu_lat",
                "exit": r.returncode, "latency_us": quantiles(lat), "stderr_tail": r.stderr[-400:]}


IDLE = "poll"


def schedlab_run(backend: str, seconds: int, env: dict[str, str] | None = None) -> dict[str, object]:
    cmd = [str(SCHEDLAB), "run", str(SET), "--backend", backend, "--duration", f"{seconds}s", "--workload", "spin-cpu",
           "--idle", IDLE, "--json"]
    r = sh(cmd, env={**os.environ, **env} if env else None)
    try:
        doc = json.loads(r.stdout)
    except json.JSONDecodeError:
        return {"error": f"exit {r.returncode}: {r.stderr[-800:]}"}
    if "error" in doc:
        return {"error": doc["error"]}
    oh = {o["kind"]: {"n": o["count"], "p50": o["p50_ns"] / 1000, "p99": o["p99_ns"] / 1000, "p999": o["p999_ns"] / 1000,
                      "max": o["max_ns"] / 1000, "mean": o["mean_ns"] / 1000} for o in doc["run"]["overheads"]}
    return {"command": f"schedlab run bench/sets/rt-20.yaml --backend {backend} --duration {seconds}s --workload spin-cpu "
                       f"--idle {IDLE} --json",
            "exit": r.returncode, "jobs": doc["totals"]["jobs"], "misses": doc["totals"]["misses"], "overheads_us": oh,
            "notes": doc["run"].get("notes", [])}


def decision_phases(seconds: int) -> dict[str, object]:
    """The dispatch run with each decision's phases recorded (crates/rt/src/backend/dispatch/phases.rs)."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "phases.csv"
        run = schedlab_run("dispatch", seconds, {"SCHEDLAB_DISPATCH_PHASES": str(path)})
        if not path.exists():
            return {"error": run.get("error", "no phases file written")}
        lines = path.read_text().splitlines()
    cols = lines[0].split(",")
    rows = [[int(x) for x in line.split(",")] for line in lines[1:]]
    col = {c: [r[i] for r in rows] for i, c in enumerate(cols)}
    us = lambda v: [x / 1000 for x in v]  # noqa: E731
    out: dict[str, object] = {"command": "SCHEDLAB_DISPATCH_PHASES=<file> " + str(run.get("command")), "n": len(rows)}
    for c in cols:
        out[c] = quantiles(us(col[c])) if c.endswith("_ns") else {"mean": sum(col[c]) / max(1, len(rows)), "max": max(col[c], default=0)}
    # Work and interruption told apart: the dispatcher's own CPU time over
    # the window, wall time it did not run, and the decisions it was
    # switched out of.
    out["not_running_us"] = quantiles([max(0, w - c) / 1000 for w, c in zip(col["wall_ns"], col["cpu_ns"])])
    out["switched_out"] = sum(1 for a, b in zip(col["involuntary"], col["voluntary"]) if a + b > 0)
    # The decisions that made no system call: the policy's and driver's work alone.
    out["wall_without_syscalls_us"] = quantiles(
        [r[cols.index("wall_ns")] / 1000 for r in rows if r[cols.index("signals")] + r[cols.index("futex_wakes")] + r[cols.index("affinity")] == 0])
    out["wall_minus_syscalls_us"] = quantiles(
        [(r[cols.index("wall_ns")] - r[cols.index("signal_ns")] - r[cols.index("futex_wake_ns")] - r[cols.index("affinity_ns")]) / 1000 for r in rows])
    return out


def trace_cost() -> dict[str, object]:
    r = sh([str(TRACE_COST)])
    try:
        return json.loads(r.stdout)  # type: ignore[no-any-return]
    except json.JSONDecodeError:
        return {"error": f"exit {r.returncode}: {r.stderr[-400:]}"}


def row(name: str, s: dict[str, float] | None, unit: str = "µs") -> str:
    if not s or not s.get("n", s.get("batches")):
        return f"| {name} | – | – | – | – | – |"
    n = s.get("n", s.get("batches"))
    f = (lambda x: f"{x:.1f}") if unit == "µs" else (lambda x: f"{x:.1f}")
    return f"| {name} | {int(n)} | {f(s['p50'])} | {f(s['p99'])} | {f(s['p999'])} | {f(s['max'])} |"


def phase_lines(p: dict[str, object]) -> list[str]:
    if "error" in p:
        return [f"Decision phases: {p['error']}"]
    names = [("wall_ns", "decision, wall (wake-up → switches issued)"), ("cpu_ns", "the dispatcher's CPU time in the window"),
             ("inputs_ns", "inputs reported (completions, requests, releases)"), ("instant_ns", "the driver's instant (policy)"),
             ("apply_ns", "switches carried out (apply)"), ("rest_ns", "runs reported, requests answered, want flags"),
             ("futex_wake_ns", "of which: futex wakes"), ("affinity_ns", "of which: sched_setaffinity"), ("signal_ns", "of which: preemption signals")]
    lines = [f"Decision phases (a second dispatch run, SCHEDLAB_DISPATCH_PHASES, {p['n']} decisions; µs):", "",
             "| part | n | p50 | p99 | p99.9 | max |", "|---|---|---|---|---|---|"]
    lines += [row(label, p[c]) for c, label in names]  # type: ignore[arg-type]
    lines += [row("wall minus the switches' system calls", p["wall_minus_syscalls_us"]),  # type: ignore[arg-type]
              row("wall of the decisions that made no system call", p["wall_without_syscalls_us"]),  # type: ignore[arg-type]
              row("wall − CPU time (not running: preempted or stolen)", p["not_running_us"]), "",  # type: ignore[arg-type]
              f"Decisions during which the dispatcher was switched out: {p['switched_out']}; system calls per decision "
              f"(mean): futex wakes {p['futex_wakes']['mean']:.2f}, affinity {p['affinity']['mean']:.2f}, "  # type: ignore[index]
              f"signals {p['signals']['mean']:.2f}."]  # type: ignore[index]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--idle", choices=["poll", "kernel"], default="poll", help="schedlab's --idle for its runs")
    a = ap.parse_args()
    global IDLE
    IDLE = a.idle
    setup(not a.no_build)
    res = record.machine(seconds_per_phase=a.seconds)
    res["schedlab_idle"] = a.idle
    load_before = res["loadavg_before"]
    res["cyclictest"] = cyclictest(a.seconds)
    res["rt_app"] = rt_app(a.seconds)
    res["kernel"] = schedlab_run("kernel", a.seconds)
    res["dispatch"] = schedlab_run("dispatch", a.seconds)
    res["decision_phases"] = decision_phases(a.seconds)
    res["trace"] = trace_cost()
    res["loadavg_after"] = os.getloadavg()

    cyc = res["cyclictest"]["latency_us"]  # type: ignore[index]
    k = res["kernel"].get("overheads_us", {}).get("release-latency")  # type: ignore[union-attr]
    d = res["dispatch"].get("overheads_us", {}).get("release-latency")  # type: ignore[union-attr]
    dec = res["dispatch"].get("overheads_us", {}).get("schedule")  # type: ignore[union-attr]
    tr = res["trace"].get("clock+push") if isinstance(res["trace"], dict) else None
    trp = res["trace"].get("push") if isinstance(res["trace"], dict) else None
    ra = res["rt_app"].get("latency_us") if res["rt_app"].get("available") else None  # type: ignore[union-attr]

    def verdict(ok: bool | None) -> str:
        return "–" if ok is None else ("met" if ok else "**not met**")

    cp99 = cyc.get("p99") if cyc else None
    targets = [
        ("kernel release latency p99 ≤ 1.2 × cyclictest p99", k and cp99 and f"{k['p99']:.1f} vs {1.2 * cp99:.1f} µs", verdict(k and cp99 and k["p99"] <= 1.2 * cp99)),
        ("dispatch release latency p99 ≤ 2 × cyclictest p99", d and cp99 and f"{d['p99']:.1f} vs {2 * cp99:.1f} µs", verdict(d and cp99 and d["p99"] <= 2 * cp99)),
        ("decision p99 ≤ 10 µs at 20 tasks", dec and f"{dec['p99']:.1f} µs", verdict(dec and dec["p99"] <= 10)),
        ("tracing ≤ 100 ns per record (clock read + push, p99 of batches)", tr and f"{tr['p99']:.1f} ns", verdict(tr and tr["p99"] <= 100)),
    ]
    res["targets"] = [{"target": t, "value": v, "verdict": s} for t, v, s in targets]
    lines = [
        f"# Linux runtime latency — {res['date']}, {res['host']} ({res['os_kernel']}, {res['cpus']} CPUs), "
        f"{a.seconds} s per phase, schedlab runs with `--idle {a.idle}`, load average before {load_before[0]:.2f}, after {res['loadavg_after'][0]:.2f}",  # type: ignore[index]
        "",
        "| measurement | n | p50 | p99 | p99.9 | max |",
        "|---|---|---|---|---|---|",
        row("cyclictest -m -Sp90 -i200, wake-up latency (µs)", cyc),
        row("rt-app, SCHED_FIFO 90, 1 ms timer, wu_lat (µs)", ra) if ra else "| rt-app | not available | | | | |",
        row("schedlab kernel backend, 20 tasks, release latency (µs)", k),
        row("schedlab dispatch backend, 20 tasks, release latency (µs)", d),
        row("schedlab dispatch backend, 20 tasks, scheduling decision (µs)", dec),
        row("trace record, push only (ns, per-record cost of 1000-record batches)", trp),
        row("trace record, CLOCK_MONOTONIC read + push (ns)", tr),
        "",
        "| target | measured | verdict |",
        "|---|---|---|",
        *[f"| {t} | {v or '–'} | {s} |" for t, v, s in targets],
        "",
        *phase_lines(res["decision_phases"]),  # type: ignore[arg-type]
        "",
        f"schedlab runs: kernel {res['kernel'].get('jobs')} jobs, {res['kernel'].get('misses')} misses; "  # type: ignore[union-attr]
        f"dispatch {res['dispatch'].get('jobs')} jobs, {res['dispatch'].get('misses')} misses.",  # type: ignore[union-attr]
    ]
    md = "\n".join(lines) + "\n"
    record.save("rt-latency", res, md)


if __name__ == "__main__":
    main()
