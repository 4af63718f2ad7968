#!/usr/bin/env python3
"""Ray sweep speed-up: the same sweep on a local Ray cluster of one node and
of two nodes (each node given one CPU), wall time of `schedlab.sweep(...,
backend="ray")` on each, how long each node executed chunks, and the rows
compared.

Each measurement starts a fresh cluster on this machine (`ray start --head
--num-cpus=1`, plus `ray start --address=... --num-cpus=1` for two nodes),
runs the sweep --repeat times (the first run also starts the workers'
Python and the Rust core; later runs find them warm), and stops the cluster
(`ray stop --force`). Configurations alternate (1, 2, 1, 2, ...) for --runs
rounds, so a change of the machine's load hits both. The rows of every run
must equal the first run's.

Per run it reports, from the sweep's per-task timings (`timings=`), each
node's busy time (its worker executing chunks), its share of the wall time,
when it started its first task and ended its last, and the balance (least
busy node / busiest); from /proc, the CPU time of the workers and of Ray's
own processes; and the load average, since wall times on a shared machine
say little.

Measure the release build of the extension: `make develop` builds a debug
one (chunks about 8x slower, which hides Ray's costs). Build it first with

    VIRTUAL_ENV=$PWD/.venv .venv/bin/maturin develop --release

(the script stops with exit 2 on a debug build unless --allow-debug).

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


def extension_has_debug_info() -> bool:
    """Whether the installed extension is a debug build (`make develop`):
    its ELF file has a .debug_info section (the release profile has none)."""
    import struct

    import schedlab._native as native

    data = Path(native.__file__).read_bytes()
    if data[:5] != b"\x7fELF\x02":  # not 64-bit ELF: cannot tell, assume release
        return False
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def section(i: int) -> tuple[int, int, int]:  # name offset, file offset, size
        name, = struct.unpack_from("<I", data, shoff + i * shentsize)
        off, size = struct.unpack_from("<QQ", data, shoff + i * shentsize + 0x18)
        return name, off, size

    _, stroff, _ = section(shstrndx)
    names = {data[stroff + n : data.index(b"\0", stroff + n)] for n, _, _ in map(section, range(shnum))}
    return b".debug_info" in names


def per_node(timings: list[dict], head: str, t0: float) -> list[dict]:
    """Each node's tasks, busy time (executing chunks) and first start and
    last end (seconds after the sweep began), the head node first."""
    by: dict[str, list[dict]] = defaultdict(list)
    for t in timings:
        by[t["node"]].append(t)
    out = []
    for node in sorted(by, key=lambda n: (n != head, n)):
        ts = by[node]
        out.append({
            "node": "head" if node == head else node[:8],
            "tasks": len(ts),
            "chunks": sum(t["chunks"] for t in ts),
            "workers": len({t["pid"] for t in ts}),
            "busy_s": sum(t["finished"] - t["started"] for t in ts),
            "planning_s": sum(t["computing"] - t["started"] for t in ts),
            "first_start_s": min(t["started"] for t in ts) - t0,
            "last_end_s": max(t["finished"] for t in ts) - t0,
        })
    return out


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
        head = ray.get_runtime_context().get_node_id()
        for r in range(repeat):
            cpu0, d0 = worker_cpu(), worker_cpu(daemons=True)
            before = resource.getrusage(resource.RUSAGE_SELF)
            la = loadavg()
            timings: list[dict] = []
            t0 = time.time()
            frame = schedlab.sweep(exp, backend="ray", samples=samples, progress=False, timings=timings)
            wall = time.time() - t0
            after = resource.getrusage(resource.RUSAGE_SELF)
            cpu1, d1 = worker_cpu(), worker_cpu(daemons=True)
            workers_cpu = sum(v - cpu0.get(pid, 0.0) for pid, v in cpu1.items())
            daemons_cpu = sum(v - d0.get(pid, 0.0) for pid, v in d1.items())
            nodes_used = per_node(timings, head, t0)
            busy = [n["busy_s"] for n in nodes_used]
            out.append({
                "nodes": nodes,
                "repeat": r,
                "wall_s": wall,
                "driver_cpu_s": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
                "load_before": la,
                "load_after": loadavg(),
                "per_node": nodes_used,
                # Busy time of the least busy node over the busiest's (0 when a node ran nothing).
                "balance": (min(busy) / max(busy) if len(busy) == nodes and max(busy) > 0 else 0.0),
                "workers_cpu_s": workers_cpu,
                "daemons_cpu_s": daemons_cpu,
                "rows": len(frame),
                "tasks": timings,
            })
            print(f"  {nodes} node(s), run {r + 1}: {wall:.2f} s, load {la} → {loadavg()}", flush=True)
            for n in nodes_used:
                print(
                    f"    {n['node']}: {n['tasks']} tasks, busy {n['busy_s']:.2f} s ({100 * n['busy_s'] / wall:.0f} % of the wall), "
                    f"first start {n['first_start_s']:.2f} s, last end {n['last_end_s']:.2f} s",
                    flush=True,
                )
            if nodes > 1:
                print(f"    balance (least busy / busiest) {out[-1]['balance']:.2f}", flush=True)
    return out, frame


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--experiment", default=str(ROOT / "experiments" / "epos-ch5-m8.yaml"))
    ap.add_argument("--samples", type=int, default=40)
    ap.add_argument("--runs", type=int, default=2, help="rounds of (1 node, 2 nodes)")
    ap.add_argument("--repeat", type=int, default=2, help="sweeps per cluster (the first one cold)")
    ap.add_argument("--no-save", action="store_true")
    ap.add_argument("--allow-debug", action="store_true", help="measure a debug build of the extension anyway")
    a = ap.parse_args()
    debug = extension_has_debug_info()
    if debug and not a.allow_debug:
        print(
            "bench/ray_speedup.py: the schedlab extension is a debug build (make develop); build the release one with "
            "`VIRTUAL_ENV=$PWD/.venv .venv/bin/maturin develop --release` or pass --allow-debug",
            file=sys.stderr,
        )
        return 2
    import pandas as pd

    import schedlab

    e = schedlab.experiment._experiment(a.experiment, a.samples)
    points, sets, evals, rows, chunks = e.size()
    build = "debug" if debug else "release"
    print(f"{a.experiment}: {sets} sets, {rows} rows, {chunks} chunks; {build} extension; load {loadavg()}", flush=True)
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
        f"`{' '.join([Path(sys.executable).name, *sys.argv])}`: {sets} sets, {rows} rows, {chunks} chunks, {build} extension.",
        "",
        "Busy: a node's worker executing chunks (seconds, and share of the wall time); tasks per node; "
        "balance: least busy node / busiest.",
        "",
        "| round | nodes | run | wall s | busy s (share): head + other | tasks | balance | first start / last end, s "
        "| workers' CPU s | Ray daemons' CPU s | driver CPU s | load before → after |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        pn = r["per_node"]
        busy = " + ".join(f"{n['busy_s']:.1f} ({100 * n['busy_s'] / r['wall_s']:.0f} %)" for n in pn)
        tasks = " + ".join(str(n["tasks"]) for n in pn)
        span = ", ".join(f"{n['first_start_s']:.1f}/{n['last_end_s']:.1f}" for n in pn)
        balance = f"{r['balance']:.2f}" if r["nodes"] > 1 else "–"
        lines.append(
            f"| {r['round'] + 1} | {r['nodes']} | {'cold' if r['repeat'] == 0 else 'warm'} | {r['wall_s']:.2f} "
            f"| {busy} | {tasks} | {balance} | {span} "
            f"| {r['workers_cpu_s']:.1f} | {r['daemons_cpu_s']:.1f} "
            f"| {r['driver_cpu_s']:.2f} | {r['load_before']} → {r['load_after']} |"
        )
    summary = {}
    for warm in (False, True):
        one, two = best(1, warm), best(2, warm)
        key = "warm" if warm else "cold"
        bal = [r["balance"] for r in results if r["nodes"] == 2 and (r["repeat"] > 0) == warm]
        summary[key] = {"one_node_s": one, "two_nodes_s": two, "speedup": one / two, "balance_min": min(bal, default=float("nan"))}
        lines.append("")
        lines.append(
            f"{key}: best of 1 node {one:.2f} s, best of 2 nodes {two:.2f} s: **{one / two:.2f}×**; "
            f"lowest balance on 2 nodes {summary[key]['balance_min']:.2f}"
        )
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
