#!/usr/bin/env python3
"""Ray sweep speed-up: the same sweep on a local Ray cluster of one node and
of two nodes (each node given one CPU), wall time of `schedlab.sweep(...,
backend="ray")` on each, and the rows compared.

Each measurement starts a fresh cluster on this machine (`ray start --head
--num-cpus=1`, plus `ray start --address=... --num-cpus=1` for two nodes),
runs the sweep --repeat times (the first run also starts the workers'
Python and the Rust core; later runs find them warm), reads Ray's task
timeline (time each worker spent executing chunks), and stops the cluster
(`ray stop --force`). Configurations alternate (1, 2, 1, 2, ...) for --runs
rounds, so a change of the machine's load hits both. The rows of every run
must equal the first run's.

    .venv/bin/python bench/ray_speedup.py                         # epos-ch5-m8, 40 samples, 2 rounds
    .venv/bin/python bench/ray_speedup.py --samples 10 --runs 1   # quick look

Results: bench/results/DATE-ray-speedup.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().split(" ")[0]


class Cluster:
    """A local Ray cluster of `nodes` nodes with one CPU each; stopped on exit."""

    def __init__(self, nodes: int) -> None:
        self.nodes = nodes
        self.env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
        self.temp = tempfile.mkdtemp(prefix="ray-bench-", dir="/tmp")
        self.port = free_port()

    def __enter__(self) -> Cluster:
        common = ["--num-cpus=1", "--disable-usage-stats"]
        ray = str(BIN / "ray")
        subprocess.run(
            [ray, "start", "--head", f"--port={self.port}", f"--temp-dir={self.temp}", "--include-dashboard=false", *common],
            check=True, capture_output=True, env=self.env, timeout=300,
        )
        for _ in range(self.nodes - 1):
            subprocess.run([ray, "start", f"--address=127.0.0.1:{self.port}", *common], check=True, capture_output=True, env=self.env, timeout=300)
        return self

    def __exit__(self, *exc: object) -> None:
        import ray

        if ray.is_initialized():
            ray.shutdown()
        subprocess.run([str(BIN / "ray"), "stop", "--force"], capture_output=True, env=self.env, timeout=120)
        shutil.rmtree(self.temp, ignore_errors=True)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


def worker_cpu(daemons: bool = False) -> dict[int, float]:
    """CPU seconds (user + sys) of each Ray worker process on this machine
    (`ray::IDLE`, `ray::chunk`, ...), by PID; with `daemons`, of Ray's other
    processes instead (raylets, GCS, agents, log monitors)."""
    out = {}
    tick = os.sysconf("SC_CLK_TCK")
    me = os.getpid()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == me:
            continue
        try:
            cmd = (d / "cmdline").read_bytes()
            worker = cmd.startswith(b"ray::")
            if worker == daemons or (daemons and b"/ray/" not in cmd and b"ray" not in cmd.split(b"\0")[0]):
                continue
            f = (d / "stat").read_text().rsplit(")", 1)[1].split()
            out[int(d.name)] = (int(f[11]) + int(f[12])) / tick
        except OSError:
            continue
    return out


def busy_per_worker(timeline: list[dict]) -> dict[str, float]:
    """Seconds each worker spent executing `chunk` tasks (Ray's timeline)."""
    busy: dict[str, float] = defaultdict(float)
    for ev in timeline:
        if ev.get("ph") == "X" and ev.get("cat") == "task:execute":
            busy[f"{ev.get('pid')}/{ev.get('tid')}"] += float(ev.get("dur", 0)) / 1e6
    return dict(busy)


def measure(nodes: int, exp: str, samples: int, repeat: int) -> tuple[list[dict], object]:
    import ray

    import schedlab

    out = []
    frame = None
    with Cluster(nodes) as c:
        ray.init(address=c.address, log_to_driver=False)
        deadline = time.monotonic() + 60
        while int(ray.cluster_resources().get("CPU", 0)) < nodes and time.monotonic() < deadline:
            time.sleep(0.2)
        assert int(ray.cluster_resources().get("CPU", 0)) == nodes, ray.cluster_resources()
        for r in range(repeat):
            cpu0, d0 = worker_cpu(), worker_cpu(daemons=True)
            before = resource.getrusage(resource.RUSAGE_SELF)
            la = loadavg()
            t0 = time.perf_counter()
            frame = schedlab.sweep(exp, backend="ray", samples=samples, progress=False)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_SELF)
            cpu1, d1 = worker_cpu(), worker_cpu(daemons=True)
            workers_cpu = sum(v - cpu0.get(pid, 0.0) for pid, v in cpu1.items())
            daemons_cpu = sum(v - d0.get(pid, 0.0) for pid, v in d1.items())
            busy = busy_per_worker(ray.timeline())
            prev = out[-1]["busy_s_cumulative"] if out else {}
            run_busy = {k: v - prev.get(k, 0.0) for k, v in busy.items()}
            out.append({
                "nodes": nodes,
                "repeat": r,
                "wall_s": wall,
                "driver_cpu_s": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
                "load_before": la,
                "load_after": loadavg(),
                # Cumulative over the cluster's life: subtract the previous repeat's.
                "busy_s_cumulative": busy,
                "busy_s": sorted(run_busy.values(), reverse=True),
                # Of the workers' executing time, the part they had a CPU.
                "workers_cpu_s": workers_cpu,
                "daemons_cpu_s": daemons_cpu,
                "rows": len(frame),
            })
            b = " + ".join(f"{v:.1f}" for v in out[-1]["busy_s"])
            print(
                f"  {nodes} node(s), run {r + 1}: {wall:.2f} s, workers busy {b} s, their CPU {workers_cpu:.1f} s "
                f"(load {la} → {loadavg()})",
                flush=True,
            )
    return out, frame


def main() -> int:
    import logging

    logging.getLogger("ray").setLevel(logging.ERROR)  # the timeline's notice of a future change
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--experiment", default=str(ROOT / "experiments" / "epos-ch5-m8.yaml"))
    ap.add_argument("--samples", type=int, default=40)
    ap.add_argument("--runs", type=int, default=2, help="rounds of (1 node, 2 nodes)")
    ap.add_argument("--repeat", type=int, default=2, help="sweeps per cluster (the first one cold)")
    ap.add_argument("--no-save", action="store_true")
    a = ap.parse_args()
    import pandas as pd

    import schedlab

    e = schedlab.experiment._experiment(a.experiment, a.samples)
    points, sets, evals, rows, chunks = e.size()
    print(f"{a.experiment}: {sets} sets, {rows} rows, {chunks} chunks; load {loadavg()}", flush=True)
    results = []
    first = None
    for rnd in range(a.runs):
        for nodes in (1, 2):
            res, frame = measure(nodes, a.experiment, a.samples, a.repeat)
            for r in res:
                r["round"] = rnd
            results.extend(res)
            if first is None:
                first = frame
            else:
                pd.testing.assert_frame_equal(frame, first)
    print("rows equal in every run")

    def best(nodes: int, warm: bool) -> float:
        w = [r["wall_s"] for r in results if r["nodes"] == nodes and (r["repeat"] > 0) == warm]
        return min(w) if w else float("nan")

    lines = [
        f"# Ray sweep speed-up, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        "",
        f"`{' '.join([Path(sys.executable).name, *sys.argv])}`: {sets} sets, {rows} rows, {chunks} chunks.",
        "",
        "| round | nodes | run | wall s | workers executing chunks, s | workers' CPU s | Ray daemons' CPU s | driver CPU s | load before → after |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['round'] + 1} | {r['nodes']} | {'cold' if r['repeat'] == 0 else 'warm'} | {r['wall_s']:.2f} "
            f"| {' + '.join(f'{v:.1f}' for v in r['busy_s'])} | {r['workers_cpu_s']:.1f} | {r['daemons_cpu_s']:.1f} "
            f"| {r['driver_cpu_s']:.2f} | {r['load_before']} → {r['load_after']} |"
        )
    summary = {}
    for warm in (False, True):
        one, two = best(1, warm), best(2, warm)
        key = "warm" if warm else "cold"
        summary[key] = {"one_node_s": one, "two_nodes_s": two, "speedup": one / two}
        lines.append("")
        lines.append(f"{key}: best of 1 node {one:.2f} s, best of 2 nodes {two:.2f} s: **{one / two:.2f}×**")
    text = "\n".join(lines) + "\n"
    print(text)
    if not a.no_save:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        d = ROOT / "bench" / "results"
        (d / f"{stamp}-ray-speedup.md").write_text(text)
        (d / f"{stamp}-ray-speedup.json").write_text(json.dumps({"args": vars(a), "runs": results, "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
