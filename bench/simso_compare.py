#!/usr/bin/env python3
"""schedlab's simulator against SimSo: the same task sets, timed side by side.

Subcommands (all paths are relative to the repository root):

  sets                 write the task sets bench/sets/gedf_m{4,8,16,32,64}.json
                       (seeded UUniFast-discard, n = 2.5·m, U = 0.6·m, implicit
                       deadlines, periods in whole ms; deterministic) and
                       bench/sets/optimal_{pd2,run}_m4{,_u4}.json (m = 4, 10
                       tasks, U = 3.8 and 4 exactly, periods and WCETs in whole
                       ms; the same tasks under pd2 and under run)
  setup                create bench/.venv-simso and install SimSo 0.8.5 from PyPI
  simso-run SPEC       run one spec in SimSo (the venv's Python runs this file);
                       prints jobs, misses and the in-process wall times as JSON
  compare              everything below, writes bench/results/<stamp>.json/.md:
      --part headline    m = 4, 10 s: jobs in both tools (must agree), SimSo
                         in-process (EDF and EDF2), hyperfine of both whole
                         commands in one run
      --part criterion   cargo bench (in-process schedlab: 1000 s G-EDF,
                         m-scaling, policy families) and its estimates
      --part scaling     SimSo at m = 4, 16, 64 on the same sets
      --part memory      peak RSS of `schedlab simulate` at 100 s vs 1000 s
                         (and 10000 s), /usr/bin/time -v
      --part optimal     (not in the default) PD^2 and RUN against SimSo's PD2
                         and RUN, m = 4, 10 s: jobs and misses in both tools,
                         SimSo in-process, criterion optimal/, one hyperfine
                         run of the four whole commands
      --part four        (not in the default) G-EDF, P-EDF, PD^2 (100 us
                         quantum) and RUN at m = 4 and m = 64, whole commands
                         interleaved in one run, CPU time (user + sys of the
                         process) per job; job counts must be equal

The SimSo side never imports schedlab and the schedlab side never imports
SimSo; the spec files are the only thing they share. SimSo is called, not
copied: it lives in bench/.venv-simso (git-ignored).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import json
import math
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
SETS = BENCH / "sets"
RESULTS = BENCH / "results"
VENV = BENCH / ".venv-simso"
VPY = VENV / "bin" / "python"
SCHEDLAB = ROOT / "target" / "release" / "schedlab"
CRITERION = ROOT / "target" / "criterion"

# SimSo 0.8.5 is the last PyPI release (2016); it pins SimPy==2.3.1 and
# needs numpy>=1.6 (only its task generator uses numpy, which we do not call).
SIMSO_REQUIREMENTS = ["simso==0.8.5", "SimPy==2.3.1"]

MS = 1_000_000  # ns
SCALING_M = [4, 8, 16, 32, 64]
SEED = 2024


# --------------------------------------------------------------------------
# Task sets
# --------------------------------------------------------------------------

def uunifast_discard(rng: random.Random, n: int, total: float, cap: float = 1.0) -> list[float]:
    """UUniFast (Bini & Buttazzo 2005), retried until every u_i <= cap
    (UUniFast-discard, Davis & Burns 2009)."""
    while True:
        us, rest = [], total
        for i in range(1, n):
            nxt = rest * rng.random() ** (1.0 / (n - i))
            us.append(rest - nxt)
            rest = nxt
        us.append(rest)
        if max(us) <= cap:
            return us


def make_set(m: int, seed: int = SEED) -> dict:
    """n = 2.5·m tasks, U ≈ 0.6·m, periods log-uniform in whole ms [10, 100],
    WCET = u·T rounded to whole µs (at least 1 µs), implicit deadlines."""
    n = int(2.5 * m)
    rng = random.Random(seed * 1000 + m)
    # cap 0.95 keeps every task comfortably below 1 (G-EDF needs u_i < 1).
    us = uunifast_discard(rng, n, 0.6 * m, cap=0.95)
    tasks = []
    for i, u in enumerate(us):
        period_ms = int(round(math.exp(rng.uniform(math.log(10), math.log(100)))))
        wcet_us = max(1, round(u * period_ms * 1000))
        tasks.append({"name": f"t{i}", "wcet": f"{wcet_us}us", "period": f"{period_ms}ms"})
    util = sum(int(t["wcet"][:-2]) / (int(t["period"][:-2]) * 1000) for t in tasks)
    return {
        "meta": {
            "description": f"bench/simso_compare.py: G-EDF, m={m}, n={n}, U={util:.4f} "
            f"(target {0.6 * m:g}), periods log-uniform whole ms in [10, 100], implicit deadlines",
            "seed": seed,
        },
        "platform": {"cpus": m},
        "policy": {"name": "gedf"},
        "tasks": tasks,
    }


# The optimal policies' sets (part `optimal`): m = 4, 10 tasks, periods and
# WCETs in whole ms. Periods come from a menu with lcm 240 ms, so that the
# total utilisation can be hit exactly in integers (Σ Cᵢ·240/Tᵢ = U·240) and
# the harmonic mean period is about 15 ms (≈ 6,500 jobs in 10 s).
OPTIMAL_PERIODS_MS = [8, 10, 12, 15, 16, 20, 24, 30]
OPTIMAL_LCM_MS = 240
# name suffix -> total utilisation (exact, in 1/240ths: 3.8 = 912/240)
OPTIMAL_UTIL = {"": (912, "3.8"), "_u4": (960, "4")}
OPTIMAL_N = 10
OPTIMAL_M = 4
OPTIMAL_SEED = 2025
# SimSo's PD2 fixes its quantum at cycles_per_ms // 10 cycles = 0.1 ms in its
# init() (simso/schedulers/PD2.py), whatever cycles_per_ms is; schedlab's
# PD^2 is given the same quantum (its default is 1 ms).
PD2_QUANTUM = "100us"
# SimSo's RUN packs servers first-fit in task order (simso/schedulers/RUN.py,
# pack()); schedlab's RUN is told to do the same (its default is wfd).
RUN_PACKING = "ff"


def _exact_wcets(periods: list[int], costs: list[int], target: int, umax_num: int = 9, umax_den: int = 10) -> list[int]:
    """The fewest changes of ±1..3 ms to `costs` (each 1 ≤ C ≤ 0.9·T) so that
    Σ Cᵢ·(240/Tᵢ) == target exactly (a small DP over the sum)."""
    w = [OPTIMAL_LCM_MS // t for t in periods]
    # state: sum -> (changes, deltas) ; deterministic: tasks in order, deltas in a fixed order
    states = {0: (0, ())}
    for i, t in enumerate(periods):
        nxt = {}
        for s, (cost, ds) in states.items():
            for d in (0, 1, -1, 2, -2, 3, -3):
                c = costs[i] + d
                if c < 1 or c * umax_den > t * umax_num:
                    continue
                key = s + c * w[i]
                val = (cost + abs(d), ds + (d,))
                if key not in nxt or val[0] < nxt[key][0]:
                    nxt[key] = val
        states = nxt
    if target not in states:
        raise ValueError("no exact WCETs near the rounded ones")
    return [c + d for c, d in zip(costs, states[target][1])]


def make_optimal_sets(suffix: str, seed: int = OPTIMAL_SEED) -> dict[str, dict]:
    """One task set, twice: policy `pd2` (quantum = SimSo's) and `run`
    (first-fit packing = SimSo's). Periods from OPTIMAL_PERIODS_MS (seeded,
    redrawn until 10 s hold 6,560 ± 200 jobs), utilisations by
    UUniFast-discard (each ≤ 0.9), WCET = round(u·T) in whole ms, then
    nudged so that U is exactly the target."""
    target, label = OPTIMAL_UTIL[suffix]
    rng = random.Random(seed * 1000 + target)
    n, m = OPTIMAL_N, OPTIMAL_M
    while True:  # about 6,560 jobs in 10 s, the workload
        periods = [rng.choice(OPTIMAL_PERIODS_MS) for _ in range(n)]
        if abs(sum(-(-10_000 // t) for t in periods) - 6560) <= 200:
            break
    us = uunifast_discard(rng, n, target / OPTIMAL_LCM_MS, cap=0.9)
    costs = [min(max(1, round(u * t)), (9 * t) // 10) for u, t in zip(us, periods)]
    costs = _exact_wcets(periods, costs, target)
    tasks = [{"name": f"t{i}", "wcet": f"{c}ms", "period": f"{t}ms"} for i, (c, t) in enumerate(zip(costs, periods))]
    assert sum(c * (OPTIMAL_LCM_MS // t) for c, t in zip(costs, periods)) == target
    jobs10 = sum(-(-10_000 // t) for t in periods)
    out = {}
    for pol, extra, what in (("pd2", {"quantum": PD2_QUANTUM}, f"quantum {PD2_QUANTUM} = SimSo PD2's"),
                             ("run", {"partitioning": RUN_PACKING}, f"partitioning {RUN_PACKING} = SimSo RUN's first-fit packing")):
        out[pol] = {
            "meta": {
                "description": f"bench/simso_compare.py: {pol}, m={m}, n={n}, U={label} exactly, periods from "
                f"{OPTIMAL_PERIODS_MS} ms, WCETs in whole ms, implicit deadlines, {jobs10} jobs in 10 s; {what}",
                "seed": seed,
            },
            "platform": {"cpus": m},
            "policy": {"name": pol} | extra,
            "tasks": tasks,
        }
    return out


def optimal_set_path(policy: str, suffix: str = "") -> Path:
    return SETS / f"optimal_{policy}_m{OPTIMAL_M}{suffix}.json"


def write_sets() -> list[Path]:
    SETS.mkdir(parents=True, exist_ok=True)
    todo = [(SETS / f"gedf_m{m}.json", make_set(m)) for m in SCALING_M]
    for suffix in OPTIMAL_UTIL:
        for pol, spec in make_optimal_sets(suffix).items():
            todo.append((optimal_set_path(pol, suffix), spec))
    out = []
    for p, spec in todo:
        text = json.dumps(spec, indent=1) + "\n"
        if not p.exists() or p.read_text() != text:
            p.write_text(text)
        out.append(p)
    return out


_UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}


def parse_ns(text: str) -> int:
    mt = re.fullmatch(r"\s*(\d+)\s*(ns|us|ms|s)\s*", text)
    if not mt:
        raise ValueError(f"duration {text!r}: this script reads only `<integer><ns|us|ms|s>`")
    return int(mt.group(1)) * _UNITS[mt.group(2)]


def load_set(path: Path) -> tuple[int, list[tuple[str, int, int, int]]]:
    """(cpus, [(name, wcet_ns, period_ns, deadline_ns)])"""
    spec = json.loads(Path(path).read_text())
    tasks = []
    for t in spec["tasks"]:
        w, p = parse_ns(t["wcet"]), parse_ns(t["period"])
        d = parse_ns(t["deadline"]) if "deadline" in t else p
        tasks.append((t["name"], w, p, d))
    return spec["platform"]["cpus"], tasks


def expected_jobs(path: Path, horizon_ns: int) -> int:
    """Synchronous periodic releases in [0, horizon)."""
    _, tasks = load_set(path)
    return sum(-(-horizon_ns // p) for _, _, p, _ in tasks)


# --------------------------------------------------------------------------
# SimSo side (runs inside bench/.venv-simso)
# --------------------------------------------------------------------------

CYCLES_PER_MS = 1_000_000  # one SimSo cycle = 1 ns, schedlab's unit


def simso_model(spec_path: Path, horizon_ns: int, scheduler: str):
    """SimSo's model of a spec, from the configuration `schedlab export simso`
    writes (docs/interop.md): times as the floats SimSo truncates back to
    exact cycles (1 cycle = 1 ns), `duration` one cycle short of the horizon
    (SimPy 2 processes events at t <= until; schedlab simulates [0, horizon)
    for releases), etm wcet, no overheads, jobs not aborted at a miss (as in
    schedlab). `scheduler` picks SimSo's variant (EDF, EDF2, PD2, RUN)."""
    from simso.configuration import Configuration
    from simso.core import Model

    with tempfile.TemporaryDirectory() as d:
        xml = Path(d) / "config.xml"
        sh([str(SCHEDLAB), "export", "simso", str(spec_path), "--duration", f"{horizon_ns}ns", "-o", str(xml)],
           capture_output=True, text=True)
        cfg = Configuration(str(xml))
    if cfg.cycles_per_ms != CYCLES_PER_MS or cfg.duration != horizon_ns - 1:
        raise RuntimeError("the exported SimSo configuration does not count in ns over the horizon")
    for t in cfg.task_info_list:
        t.abort_on_miss = True
    cfg.scheduler_info.clas = f"simso.schedulers.{scheduler}"
    cfg.check_all()
    return Model(cfg)


def simso_run(spec_path: Path, horizon_ns: int, scheduler: str, reps: int, jobs_out: Path | None = None) -> dict:
    import simso  # noqa: F401  (fail early outside the venv)

    times, cpu_times, jobs, misses = [], [], None, None
    devnull = open(os.devnull, "w")
    for _ in range(reps):
        model = simso_model(spec_path, horizon_ns, scheduler)
        # simso.schedulers.EDF prints a debug line per decision; it goes to
        # /dev/null (still formatted and written: that cost is SimSo's).
        with contextlib.redirect_stdout(devnull):
            t0, c0 = time.perf_counter(), time.process_time()
            model.run_model()
            times.append(time.perf_counter() - t0)
            cpu_times.append(time.process_time() - c0)
        j = sum(len(t.jobs) for t in model.task_list)
        x = model.results.total_exceeded_count
        if jobs is not None and (j, x) != (jobs, misses):
            raise RuntimeError("SimSo is not deterministic across repetitions")
        jobs, misses = j, x
    # Every completed job's (task, job, release, finish) in ns, to check that
    # both tools computed the same schedule, not only the same number of jobs.
    finished = [[i, k, round(jb.activation_date * CYCLES_PER_MS), jb.end_date]
                for i, t in enumerate(model.task_list) for k, jb in enumerate(t.jobs)
                if jb.end_date is not None and not jb.aborted]
    # SimSo's miss count (Results.total_exceeded_count) counts jobs that
    # ended late or were aborted (simso_model keeps SimSo's default
    # abort_on_miss: a job is aborted at its deadline). Per task, and the jobs
    # still unfinished at the end whose deadline had passed, for the record.
    misses_by_task = {t.name: model.results.tasks[t].exceeded_count for t in model.task_list}
    aborted = sum(1 for t in model.task_list for jb in t.jobs if jb.aborted)
    late_unfinished = sum(1 for t in model.task_list for jb in t.jobs
                          if jb.end_date is None and jb.absolute_deadline * CYCLES_PER_MS < horizon_ns)
    if jobs_out is not None:
        Path(jobs_out).write_text("".join(f"{i},{k},{a},{e}\n" for i, k, a, e in finished))
    from importlib.metadata import version

    return {
        "tool": "simso",
        "scheduler": f"simso.schedulers.{scheduler}",
        "spec": str(spec_path),
        "horizon_ns": horizon_ns,
        "jobs": jobs,
        "misses": misses,
        "completed": len(finished),
        "aborted": aborted,
        "late_unfinished_at_end": late_unfinished,
        "misses_by_task": {k: v for k, v in misses_by_task.items() if v},
        "times_s": times,
        "cpu_times_s": cpu_times,
        "python": platform.python_version(),
        "simso_version": version("simso"),
        "simpy_version": version("SimPy"),
    }


# --------------------------------------------------------------------------
# Driver side (any Python >= 3.9; runs the tools as processes)
# --------------------------------------------------------------------------

def rel(p: Path) -> str:
    """A path as the commands are shown and run (from the repository root)."""
    return os.path.relpath(Path(p).absolute(), ROOT)


def sh(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    print("+ " + " ".join(map(str, cmd)), file=sys.stderr, flush=True)
    return subprocess.run(list(map(str, cmd)), check=True, cwd=ROOT, **kw)


def setup_venv() -> None:
    if not VPY.exists():
        py = shutil.which("python3.11") or sys.executable
        sh([py, "-m", "venv", VENV])
    probe = subprocess.run([VPY, "-c", "import simso, SimPy, numpy"], capture_output=True)
    if probe.returncode != 0:
        sh([VPY, "-m", "pip", "install", "--quiet", *SIMSO_REQUIREMENTS])


def build() -> None:
    sh(["cargo", "build", "--release", "-p", "schedlab-cli"])


def schedlab_json(spec: Path, horizon: str) -> dict:
    out = sh([rel(SCHEDLAB), "--json", "simulate", rel(spec), "--horizon", horizon], capture_output=True, text=True).stdout
    return json.loads(out)


def simso_subprocess(spec: Path, horizon_ns: int, scheduler: str, reps: int, jobs_out: Path | None = None) -> dict:
    extra = ["--jobs-out", jobs_out] if jobs_out else []
    out = sh([rel(VPY), rel(Path(__file__)), "simso-run", rel(spec), "--horizon-ns", horizon_ns, "--scheduler", scheduler,
              "--reps", reps, *extra], capture_output=True, text=True).stdout
    return json.loads(out)


def stats(xs: list[float]) -> dict:
    xs = sorted(xs)
    mean = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return {"mean": mean, "sd": sd, "min": xs[0], "median": xs[len(xs) // 2], "n": len(xs)}


def machine() -> dict:
    def out(cmd: str) -> str:
        try:
            return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
        except OSError:
            return ""

    return {
        "date": out("date"),
        "nproc": out("nproc"),
        "cpu": out("lscpu | grep 'Model name' | sed 's/Model name: *//'"),
        "memory": out("free -h | awk '/^Mem:/ {print $2}'"),
        "loadavg_before": out("cat /proc/loadavg"),
        "kernel": out("uname -r"),
        "rustc": out("rustc --version"),
        "python_simso": out(f"{VPY} --version") if VPY.exists() else "",
        "simso_pkgs": out(f"{VPY} -m pip freeze") if VPY.exists() else "",
        "hyperfine": out("hyperfine --version"),
        "git": out("git -C " + str(ROOT) + " describe --always --dirty"),
    }


def part_headline(res: dict, reps: int, runs: int) -> None:
    spec = SETS / "gedf_m4.json"
    horizon_ns = 10_000_000_000
    with tempfile.TemporaryDirectory() as tmp:
        csv_path = Path(tmp) / "schedlab_jobs.csv"
        sl = json.loads(sh([rel(SCHEDLAB), "--json", "simulate", rel(spec), "--horizon", "10s", "--csv", csv_path],
                           capture_output=True, text=True).stdout)
        import csv as _csv
        sl_finished = {(int(r["task_index"]), int(r["job"])): (int(r["release"]), int(r["finish"]))
                       for r in _csv.DictReader(csv_path.open()) if r["status"] == "completed"}
        sl_jobs = sl["totals"]["jobs"]
        h = {"spec": rel(spec), "horizon": "10s", "expected_jobs": expected_jobs(spec, horizon_ns),
             "schedlab": {"jobs": sl_jobs, "completed": len(sl_finished), "misses": sl["totals"]["misses"],
                          "trace_events": sl["totals"]["events"]}}
        for sched in ("EDF", "EDF2"):
            jobs_out = Path(tmp) / f"simso_{sched}.csv"
            r = simso_subprocess(spec, horizon_ns, sched, reps, jobs_out)
            r["stats"] = stats(r["times_s"])
            if abs(r["jobs"] - sl_jobs) > 3:
                raise SystemExit(f"job counts disagree: schedlab {sl_jobs}, SimSo {sched} {r['jobs']}")
            ss = {}
            for line in jobs_out.read_text().splitlines():
                i, k, a, e = map(int, line.split(","))
                ss[(i, k)] = (a, e)
            diff = sorted((v[1], key) for key, v in ss.items() if sl_finished.get(key) != v)
            r["jobs_identical_to_schedlab"] = len(ss) - len(diff)
            r["jobs_differing_from_schedlab"] = len(diff)
            if diff:
                key = diff[0][1]
                r["first_difference"] = {"task": f"t{key[0]}", "job": key[1], "release_ns": ss[key][0],
                                         "simso_finish_ns": ss[key][1], "schedlab_finish_ns": sl_finished.get(key, (None, None))[1]}
            h[f"simso_{sched}"] = r
    # Whole commands, side by side in one hyperfine run.
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / "hf.json"
        # The third command is schedlab's fixed cost (start-up, loading the
        # spec, admission, printing the table) with almost nothing simulated.
        cmds = [
            f"{rel(SCHEDLAB)} simulate {rel(spec)} --horizon 10s",
            f"{rel(VPY)} {rel(Path(__file__))} simso-run {rel(spec)} --horizon-ns {horizon_ns} --scheduler EDF --reps 1",
            f"{rel(SCHEDLAB)} simulate {rel(spec)} --horizon 1ms",
        ]
        sh(["hyperfine", "--style", "basic", "-N", "--warmup", "1", "--runs", str(runs), "--export-json", export,
            "--command-name", "schedlab simulate --horizon 10s", "--command-name", "SimSo EDF (python, whole command)",
            "--command-name", "schedlab simulate --horizon 1ms (fixed cost)",
            *cmds], stdout=subprocess.DEVNULL)
        hf = json.loads(export.read_text())
    h["hyperfine"] = {"commands": cmds, "results": [
        {k: r[k] for k in ("command", "mean", "stddev", "median", "min", "max")} | {"runs": len(r["times"])}
        for r in hf["results"]]}
    res["headline"] = h


def part_criterion(res: dict, filt: str) -> None:
    """Runs the criterion bench (crates/sim/benches/sim.rs) and reads its
    estimates; the bench prints one `bench-counts` JSON line per workload."""
    t0 = time.time()
    p = sh(["cargo", "bench", "-p", "schedlab-sim", "--bench", "sim", "--", filt], capture_output=True, text=True)
    sys.stderr.write(p.stderr[-2000:])
    counts, cpu = {}, {}
    for line in p.stdout.splitlines():
        if line.startswith("bench-counts "):
            c = json.loads(line[len("bench-counts "):])
            counts[c["id"]] = c
        elif line.startswith("bench-cpu "):  # optimal/: CPU time per run, beside the wall time
            c = json.loads(line[len("bench-cpu "):])
            cpu[c["id"]] = c
    out = {}
    for bid, c in counts.items():
        est = CRITERION / c["id"] / "new" / "estimates.json"
        if not est.exists() or est.stat().st_mtime < t0:
            continue  # filtered out of this run (a stale estimate otherwise)
        e = json.loads(est.read_text())
        ns = e["mean"]["point_estimate"]
        # The fastest sample (time per iteration): on a shared machine the
        # least disturbed one; the mean is what criterion reports.
        smp = json.loads((est.parent / "sample.json").read_text())
        best_ns = min(t / i for t, i in zip(smp["times"], smp["iters"]))
        out[bid] = c | {
            "mean_ns": ns,
            "mean_ci_ns": [e["mean"]["confidence_interval"]["lower_bound"], e["mean"]["confidence_interval"]["upper_bound"]],
            "median_ns": e["median"]["point_estimate"],
            "jobs_per_s": c["jobs"] / (ns * 1e-9),
            "best_ns": best_ns,
            "jobs_per_s_best": c["jobs"] / (best_ns * 1e-9),
            "ns_per_event": ns / c["events"],
            "ns_per_job": ns / c["jobs"],
        }
        if bid in cpu:
            x = cpu[bid]
            out[bid] |= {"cpu_ns": x["cpu_ns"] / x["iters"], "cpu_wall_ns": x["wall_ns"] / x["iters"], "cpu_iters": x["iters"],
                         "jobs_per_cpu_s": c["jobs"] / (x["cpu_ns"] / x["iters"] * 1e-9)}
    res.setdefault("criterion", {}).update(out)
    res.setdefault("criterion_stdout", []).append(p.stdout)


def part_scaling(res: dict, plan: list[tuple[int, int, int]]) -> None:
    rows = []
    for m, horizon_s, reps in plan:
        spec = SETS / f"gedf_m{m}.json"
        hns = horizon_s * 1_000_000_000
        r = simso_subprocess(spec, hns, "EDF", reps)
        sl = schedlab_json(spec, f"{horizon_s}s")
        r["stats"] = stats(r["times_s"])
        r["m"] = m
        r["schedlab_jobs"] = sl["totals"]["jobs"]
        rows.append(r)
    res["simso_scaling"] = rows


def part_memory(res: dict, horizons: list[str]) -> None:
    spec = SETS / "gedf_m4.json"
    rows = []
    for hz in horizons:
        p = subprocess.run(["/usr/bin/time", "-v", rel(SCHEDLAB), "--json", "simulate", rel(spec), "--horizon", hz],
                           cwd=ROOT, capture_output=True, text=True, check=True)
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
        wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr).group(1)
        jobs = json.loads(p.stdout)["totals"]["jobs"]
        rows.append({"horizon": hz, "jobs": jobs, "max_rss_kib": rss, "wall": wall,
                     "command": f"/usr/bin/time -v {rel(SCHEDLAB)} --json simulate {rel(spec)} --horizon {hz}"})
    res["memory"] = rows


OPTIMAL_SIMSO = {"pd2": "PD2", "run": "RUN"}  # schedlab policy -> simso.schedulers.<name>
OPTIMAL_CRITERION = {  # (policy, set suffix) -> criterion id (crates/sim/benches/sim.rs)
    ("pd2", ""): "optimal/pd2_m4_10s",
    ("run", ""): "optimal/run_m4_10s",
    ("pd2", "_u4"): "optimal/pd2_m4_u4_10s",
    ("run", "_u4"): "optimal/run_m4_u4_10s",
}


def _schedlab_jobs(spec: Path, horizon: str, csv_path: Path) -> tuple[dict, dict]:
    import csv as _csv

    sl = json.loads(sh([rel(SCHEDLAB), "--json", "simulate", rel(spec), "--horizon", horizon, "--csv", csv_path],
                       capture_output=True, text=True).stdout)
    finished = {(int(r["task_index"]), int(r["job"])): (int(r["release"]), int(r["finish"]))
                for r in _csv.DictReader(csv_path.open()) if r["status"] == "completed"}
    return sl, finished


def _same_jobs(simso_csv: Path, sl_finished: dict) -> dict:
    """How many of SimSo's completed jobs have the same release and finish
    time in schedlab (informative: ties and SimSo's own choices may differ)."""
    ss = {}
    for line in simso_csv.read_text().splitlines():
        i, k, a, e = map(int, line.split(","))
        ss[(i, k)] = (a, e)
    diff = sorted((v[1], key) for key, v in ss.items() if sl_finished.get(key) != v)
    out = {"jobs_identical_to_schedlab": len(ss) - len(diff), "jobs_differing_from_schedlab": len(diff)}
    if diff:
        key = diff[0][1]
        out["first_difference"] = {"task": f"t{key[0]}", "job": key[1], "release_ns": ss[key][0],
                                   "simso_finish_ns": ss[key][1], "schedlab_finish_ns": sl_finished.get(key, (None, None))[1]}
    return out


def part_optimal(res: dict, reps: int, runs: int, horizon_s: int = 10) -> None:
    """PD^2 and RUN against SimSo's PD2 and RUN, m = 4, 10 tasks, 10 s: the
    set at U = 3.8 (hyperfine, in process) and the one at U = 4 (in process)."""
    horizon_ns = horizon_s * 1_000_000_000
    horizon = f"{horizon_s}s"
    out = {"horizon": horizon, "reps": reps, "sets": {}, "pd2_quantum": PD2_QUANTUM, "run_partitioning": RUN_PACKING}
    with tempfile.TemporaryDirectory() as tmp:
        for suffix in OPTIMAL_UTIL:
            rows = {}
            for pol, sched in OPTIMAL_SIMSO.items():
                spec = optimal_set_path(pol, suffix)
                exp = expected_jobs(spec, horizon_ns)
                sl, sl_finished = _schedlab_jobs(spec, horizon, Path(tmp) / f"schedlab_{pol}{suffix}.csv")
                jobs_out = Path(tmp) / f"simso_{sched}{suffix}.csv"
                r = simso_subprocess(spec, horizon_ns, sched, reps, jobs_out)
                r["stats"] = stats(r["times_s"])
                r |= _same_jobs(jobs_out, sl_finished)
                row = {"spec": rel(spec), "expected_jobs": exp,
                       "schedlab": {"jobs": sl["totals"]["jobs"], "completed": len(sl_finished),
                                    "misses": sl["totals"]["misses"], "trace_events": sl["totals"]["events"]},
                       "simso": r}
                rows[pol] = row
                for who, j in (("schedlab", row["schedlab"]["jobs"]), (f"SimSo {sched}", r["jobs"])):
                    if j != exp:
                        raise SystemExit(f"{rel(spec)}: {who} released {j} jobs, expected Σ⌈H/T⌉ = {exp}")
            out["sets"][OPTIMAL_UTIL[suffix][1]] = rows | {"suffix": suffix}
    # Whole commands, side by side in one hyperfine run (the U = 3.8 set).
    pd2, run = optimal_set_path("pd2"), optimal_set_path("run")
    cmds = [
        (f"schedlab simulate pd2 --horizon {horizon}", f"{rel(SCHEDLAB)} simulate {rel(pd2)} --horizon {horizon}"),
        (f"schedlab simulate run --horizon {horizon}", f"{rel(SCHEDLAB)} simulate {rel(run)} --horizon {horizon}"),
        ("SimSo PD2 (python, whole command)",
         f"{rel(VPY)} {rel(Path(__file__))} simso-run {rel(pd2)} --horizon-ns {horizon_ns} --scheduler PD2 --reps 1"),
        ("SimSo RUN (python, whole command)",
         f"{rel(VPY)} {rel(Path(__file__))} simso-run {rel(run)} --horizon-ns {horizon_ns} --scheduler RUN --reps 1"),
        ("schedlab simulate pd2 --horizon 1ms (fixed cost)", f"{rel(SCHEDLAB)} simulate {rel(pd2)} --horizon 1ms"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / "hf.json"
        names = [a for n, _ in cmds for a in ("--command-name", n)]
        sh(["hyperfine", "--style", "basic", "-N", "--warmup", "1", "--runs", str(runs), "--export-json", export,
            *names, *(c for _, c in cmds)], stdout=subprocess.DEVNULL)
        hf = json.loads(export.read_text())
    # user + system: CPU time, less disturbed than wall time on a shared machine.
    out["hyperfine"] = {"commands": [c for _, c in cmds], "results": [
        {k: r[k] for k in ("command", "mean", "stddev", "median", "min", "max", "user", "system")} | {"runs": len(r["times"])}
        for r in hf["results"]]}
    res["optimal"] = out
    # schedlab in process: the criterion benches on the same files.
    part_criterion(res, "optimal/")


# The four policies at m = 4 and m = 64: (policy, m, set, extra
# policy fields, SimSo scheduler, horizon). The sets are the seeded ones
# above with the policy changed: G-EDF and P-EDF on gedf_m{4,64} (U = 0.6 m;
# P-EDF packs first-fit decreasing like SimSo's P_EDF), PD^2 (100 us
# quantum, SimSo's) and RUN (first fit, SimSo's) on the U = 3.8 set at m = 4
# and on gedf_m64 at m = 64. Horizons keep SimSo's side to tens of seconds.
FOUR = [
    ("gedf", 4, "gedf_m4.json", {}, "EDF2", "100s"),
    ("pedf", 4, "gedf_m4.json", {"partitioning": "ffd"}, "P_EDF", "100s"),
    ("pd2", 4, "optimal_pd2_m4.json", {"quantum": PD2_QUANTUM}, "PD2", "10s"),
    ("run", 4, "optimal_run_m4.json", {"partitioning": RUN_PACKING}, "RUN", "100s"),
    ("gedf", 64, "gedf_m64.json", {}, "EDF2", "10s"),
    ("pedf", 64, "gedf_m64.json", {"partitioning": "ffd"}, "P_EDF", "10s"),
    ("pd2", 64, "gedf_m64.json", {"quantum": PD2_QUANTUM}, "PD2", "500ms"),
    ("run", 64, "gedf_m64.json", {"partitioning": RUN_PACKING}, "RUN", "10s"),
]


def four_sets() -> list[tuple[str, int, Path, str, str]]:
    out = []
    for pol, m, base, extra, sched, horizon in FOUR:
        spec = json.loads((SETS / base).read_text())
        spec["policy"] = {"name": pol} | extra
        p = SETS / f"four_{pol}_m{m}.json"
        text = json.dumps(spec, indent=1) + "\n"
        if not p.exists() or p.read_text() != text:
            p.write_text(text)
        out.append((pol, m, p, sched, horizon))
    return out


def cpu_of(cmd: list) -> tuple[float, str]:
    """Runs `cmd`; (user + sys CPU seconds of the process, its stdout)."""
    p = subprocess.Popen([str(c) for c in cmd], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))}: exit status {status}")
    return ru.ru_utime + ru.ru_stime, out.decode()


def part_four(res: dict, runs: int, only: list | None = None) -> None:
    rows = []
    for pol, m, spec, sched, horizon in four_sets():
        if only and f"{pol}_m{m}" not in only:
            continue
        h_ns = parse_ns(horizon)
        exp = expected_jobs(spec, h_ns)
        sl_cmd = [SCHEDLAB, "--json", "simulate", rel(spec), "--horizon", horizon]
        ss_cmd = [VPY, rel(Path(__file__)), "simso-run", rel(spec), "--horizon-ns", h_ns, "--scheduler", sched]
        # Interleaved: schedlab, SimSo, schedlab, ... (the load changes slowly).
        sl_cpu, ss = [], None
        for i in range(runs):
            c, out = cpu_of(sl_cmd)
            sl_cpu.append(c)
            sl_jobs = json.loads(out)["totals"]["jobs"]
            if i == 0:
                c, out = cpu_of(ss_cmd)
                ss = json.loads(out) | {"cpu_s": c}
        # SimSo's PD2 reports one job more than the releases in [0, H) on
        # the m = 64 set (at every horizon tried); that one is tolerated and
        # recorded, the ratio uses the releases both simulate.
        slack = 1 if sched == "PD2" else 0
        if sl_jobs != exp or abs(ss["jobs"] - exp) > slack:
            raise SystemExit(f"{rel(spec)}: jobs schedlab {sl_jobs}, SimSo {ss['jobs']}, expected {exp}")
        row = {"policy": pol, "m": m, "spec": rel(spec), "horizon": horizon, "jobs": exp, "simso": sched,
               "simso_jobs": ss["jobs"],
               "schedlab_cpu_s": stats(sl_cpu), "simso_cpu_s": ss["cpu_s"], "simso_misses": ss["misses"],
               "simso_in_process_cpu_s": ss["cpu_times_s"][0],
               "load": open("/proc/loadavg").read().strip()}
        row["ratio_mean"] = ss["cpu_s"] / row["schedlab_cpu_s"]["mean"]
        row["ratio_min"] = ss["cpu_s"] / row["schedlab_cpu_s"]["min"]
        rows.append(row)
        print(f"{pol} m={m}: {exp} jobs, SimSo {ss['cpu_s']:.2f} s CPU, schedlab "
              f"{row['schedlab_cpu_s']['mean'] * 1e3:.2f} ms CPU (min {row['schedlab_cpu_s']['min'] * 1e3:.2f}): "
              f"{row['ratio_mean']:.0f}x (min-based {row['ratio_min']:.0f}x)", file=sys.stderr)
    res["four"] = {"runs": runs, "rows": rows}


def four_markdown(four: dict) -> list[str]:
    L = ["## The four policies, m = 4 and m = 64 (whole commands, CPU time)", "",
         f"schedlab: {four['runs']} runs per command (`schedlab --json simulate SPEC --horizon H`); SimSo: one run of "
         "`simso_compare.py simso-run` (imports SimSo, builds the model, runs it); interleaved. CPU time is user + sys "
         "of the process (os.wait4). Ratio = SimSo CPU time / schedlab CPU time for the same jobs.", "",
         "| policy | m | horizon | jobs | SimSo | SimSo CPU | schedlab CPU, mean (min) | ratio mean (min-based) | load |",
         "|---|---|---|---|---|---|---|---|---|"]
    for r in four["rows"]:
        s = r["schedlab_cpu_s"]
        L.append(f"| {r['policy']} | {r['m']} | {r['horizon']} | {r['jobs']} | `{r['simso']}` | {r['simso_cpu_s']:.2f} s "
                 f"| {s['mean'] * 1e3:.2f} ms ({s['min'] * 1e3:.2f} ms) | **{r['ratio_mean']:.0f}×** ({r['ratio_min']:.0f}×) "
                 f"| {r['load'].split()[0]} |")
    L.append("")
    return L


def fmt_rate(x: float) -> str:
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= div:
            return f"{x / div:.3g}{unit}"
    return f"{x:.3g}"


def cpu_rate(r: dict) -> float | None:
    """SimSo's jobs per CPU second (process_time around run_model())."""
    c = r.get("cpu_times_s")
    return r["jobs"] / (sum(c) / len(c)) if c else None


def optimal_ratios(res: dict) -> list[str]:
    """Part `optimal`: schedlab / SimSo for PD^2 and RUN, against the
    issue's target of 1000× SimSo's jobs per second."""
    o, cr = res.get("optimal"), res.get("criterion", {})
    if not o:
        return []
    L = ["## ratios, PD^2 and RUN (target ≥ 1000× SimSo's jobs/s)", ""]
    for label, rows in o["sets"].items():
        for pol, sched in OPTIMAL_SIMSO.items():
            bid = OPTIMAL_CRITERION[(pol, rows["suffix"])]
            r = rows[pol]["simso"]
            sj = r["jobs"] / r["stats"]["mean"]
            if bid in cr:
                x = cr[bid]["jobs_per_s"] / sj
                sb = r["jobs"] / r["stats"]["min"]
                xb = cr[bid].get("jobs_per_s_best", cr[bid]["jobs_per_s"]) / sb
                L.append(f"- U = {label}, in-process jobs/s, criterion `{bid}` / SimSo `{sched}` `run_model()`: "
                         f"mean {fmt_rate(cr[bid]['jobs_per_s'])} / {fmt_rate(sj)} = **{x:.0f}×** "
                         f"({'met' if x >= 1000 else 'NOT met'}); fastest sample / fastest rep "
                         f"{fmt_rate(cr[bid].get('jobs_per_s_best', 0))} / {fmt_rate(sb)} = **{xb:.0f}×** "
                         f"({'met' if xb >= 1000 else 'NOT met'})"
                         + (f"; CPU time {fmt_rate(cr[bid]['jobs_per_cpu_s'])} / {fmt_rate(sc)} = **{cr[bid]['jobs_per_cpu_s'] / sc:.0f}×** "
                            f"({'met' if cr[bid]['jobs_per_cpu_s'] / sc >= 1000 else 'NOT met'})"
                            if "jobs_per_cpu_s" in cr[bid] and (sc := cpu_rate(r)) else ""))
            else:
                L.append(f"- U = {label}, {pol}: no criterion estimate for `{bid}` in this run")
    hf = {r["command"]: r for r in o["hyperfine"]["results"]}
    for pol, sched in OPTIMAL_SIMSO.items():
        a, b = hf[f"schedlab simulate {pol} --horizon {o['horizon']}"], hf[f"SimSo {sched} (python, whole command)"]
        parts = []
        for what, f in (("mean", lambda r: r["mean"]), ("fastest", lambda r: r["min"]),
                        ("CPU time", lambda r: r.get("user", 0) + r.get("system", 0))):
            x = f(b) / f(a) if f(a) else 0
            parts.append(f"{what} SimSo {f(b) * 1e3:.0f} ms / schedlab {f(a) * 1e3:.2f} ms = **{x:.0f}×** "
                         f"({'met' if x >= 1000 else 'NOT met'})")
        L.append(f"- U = {OPTIMAL_UTIL[''][1]}, whole command (hyperfine, same jobs), {pol}: " + "; ".join(parts))
    return L + [""]


def ratios(res: dict) -> list[str]:
    L = []
    cr = res.get("criterion", {})
    h = res.get("headline")
    if h:
        simso = {s: h["simso_" + s]["jobs"] / h["simso_" + s]["stats"]["mean"] for s in ("EDF", "EDF2")}
        best = max(simso, key=simso.get)
        L += ["## ratios", ""]
        for bid in ("sim/gedf_m4_1000s", "sim/gedf_m4_10s", "sim/gedf_m4_1000s_metrics"):
            if bid in cr:
                L.append(f"- in-process jobs/s, criterion `{bid}` / SimSo `{best}` `run_model()` (the faster SimSo): "
                         f"{fmt_rate(cr[bid]['jobs_per_s'])} / {fmt_rate(simso[best])} = **{cr[bid]['jobs_per_s'] / simso[best]:.0f}×**")
        hf = {r["command"]: r["mean"] for r in h["hyperfine"]["results"]}
        a, b = (hf[k] for k in ("schedlab simulate --horizon 10s", "SimSo EDF (python, whole command)"))
        L.append(f"- whole command (hyperfine, same jobs): SimSo {b * 1e3:.0f} ms / schedlab {a * 1e3:.2f} ms = **{b / a:.0f}×**")
    L += optimal_ratios(res)
    sc = res.get("simso_scaling")
    if sc and cr:
        if not L:
            L += ["## ratios", ""]
        for r in sc:
            c = cr.get(f"scaling/gedf_m{r['m']:02}")
            if c:
                sj = r["jobs"] / r["stats"]["mean"]
                L.append(f"- m = {r['m']}: criterion `scaling/gedf_m{r['m']:02}` {fmt_rate(c['jobs_per_s'])} jobs/s / SimSo EDF "
                         f"{fmt_rate(sj)} jobs/s = **{c['jobs_per_s'] / sj:.0f}×**")
    if "scaling/gedf_m04" in cr and "scaling/gedf_m64" in cr:
        a, b = cr["scaling/gedf_m04"]["ns_per_event"], cr["scaling/gedf_m64"]["ns_per_event"]
        L.append(f"- schedlab ns/event, m = 64 / m = 4: {b:.1f} / {a:.1f} = **{b / a:.2f}×** (target ≤ 1.5×)")
    return L + ([""] if L else [])


def markdown(res: dict) -> str:
    L = [f"# bench/simso_compare.py results — {res['machine']['date']}", ""]
    mc = res["machine"]
    L += [f"- machine: {mc['nproc']} CPUs, {mc['cpu']}, {mc['memory']} RAM; load before: {mc['loadavg_before']}",
          f"- {mc['rustc']}; {mc['python_simso']} ({' '.join(mc['simso_pkgs'].split())}); {mc['hyperfine']}; git {mc['git']}",
          ""]
    if "headline" in res:
        h = res["headline"]
        L += ["## m = 4, 10 tasks, 10 s simulated", "",
              f"jobs: expected {h['expected_jobs']}, schedlab {h['schedlab']['jobs']} (misses {h['schedlab']['misses']}), "
              + ", ".join(f"SimSo {s} {h['simso_' + s]['jobs']} (misses {h['simso_' + s]['misses']})" for s in ("EDF", "EDF2")),
              ""]
        for s in ("EDF", "EDF2"):
            r = h["simso_" + s]
            line = (f"- SimSo `{s}` vs schedlab, completed jobs with the same release and finish time: "
                    f"{r['jobs_identical_to_schedlab']} of {r['completed']} (schedlab completed {h['schedlab']['completed']})")
            if r.get("first_difference"):
                line += f"; first difference: {r['first_difference']}"
            L.append(line)
        L += [
              "", "| tool | how timed | wall time | jobs/s |", "|---|---|---|---|"]
        for s in ("EDF", "EDF2"):
            st = h["simso_" + s]["stats"]
            L.append(f"| SimSo `{s}` | in-process `run_model()`, {st['n']} reps | {st['mean']:.3f} s ± {st['sd']:.3f} "
                     f"| {fmt_rate(h['simso_' + s]['jobs'] / st['mean'])} |")
        for r in h["hyperfine"]["results"]:
            if "fixed cost" in r["command"]:
                rate = f"({expected_jobs(ROOT / h['spec'], MS)} jobs)"
            else:
                jobs = h["schedlab"]["jobs"] if r["command"].startswith("schedlab") else h["simso_EDF"]["jobs"]
                rate = fmt_rate(jobs / r["mean"])
            L.append(f"| {r['command']} | hyperfine, {r['runs']} runs | {r['mean'] * 1e3:.2f} ms ± {r['stddev'] * 1e3:.2f} "
                     f"| {rate} |")
        L.append("")
    if "optimal" in res:
        o = res["optimal"]
        for label, rows in o["sets"].items():
            L += [f"## PD^2 and RUN, m = 4, 10 tasks, U = {label}, {o['horizon']} simulated", "",
                  f"Both PD^2s use a {o['pd2_quantum']} quantum (SimSo's PD2 fixes 0.1 ms); schedlab's RUN packs "
                  f"`{o['run_partitioning']}` (SimSo's RUN packs first-fit). SimSo aborts a job at a missed deadline "
                  "(its default), schedlab continues it (its default).", ""]
            for pol, sched in OPTIMAL_SIMSO.items():
                row, r = rows[pol], rows[pol]["simso"]
                sl = row["schedlab"]
                L.append(f"- `{row['spec']}`: jobs expected Σ⌈H/T⌉ = {row['expected_jobs']}, schedlab `{pol}` {sl['jobs']} "
                         f"(completed {sl['completed']}, misses **{sl['misses']}**), SimSo `{sched}` {r['jobs']} "
                         f"(completed {r['completed']}, misses **{r['misses']}**, of which aborted {r['aborted']}"
                         + (f"; by task {r['misses_by_task']}" if r["misses_by_task"] else "")
                         + f"; unfinished past their deadline at the end {r['late_unfinished_at_end']})")
                line = (f"  - SimSo `{sched}` vs schedlab, completed jobs with the same release and finish time: "
                        f"{r['jobs_identical_to_schedlab']} of {r['completed']}")
                if r.get("first_difference"):
                    line += f"; first difference: {r['first_difference']}"
                L.append(line)
            L += ["", "| tool | how timed | wall time, mean ± sd | fastest | CPU time (mean) | jobs/s (mean) | jobs/s (fastest) |",
                  "|---|---|---|---|---|---|---|"]

            def ms(x):
                return f"{x * 1e3:.2f} ms" if x < 1 else f"{x:.3f} s"
            for pol, sched in OPTIMAL_SIMSO.items():
                r = rows[pol]["simso"]
                st = r["stats"]
                cpu = sum(r["cpu_times_s"]) / len(r["cpu_times_s"]) if r.get("cpu_times_s") else None
                L.append(f"| SimSo `{sched}` | in-process `run_model()`, {st['n']} reps | {ms(st['mean'])} ± {ms(st['sd'])} "
                         f"| {ms(st['min'])} | {ms(cpu) if cpu else '—'} | {fmt_rate(r['jobs'] / st['mean'])} "
                         f"| {fmt_rate(r['jobs'] / st['min'])} |")
            for pol in OPTIMAL_SIMSO:
                c = res.get("criterion", {}).get(OPTIMAL_CRITERION[(pol, rows["suffix"])])
                if c:
                    cpu = ms(c["cpu_ns"] / 1e9) if "cpu_ns" in c else "—"
                    L.append(f"| schedlab `{pol}` | criterion `{c['id']}`, in process | {ms(c['mean_ns'] / 1e9)} "
                             f"| {ms(c['best_ns'] / 1e9)} | {cpu} | {fmt_rate(c['jobs_per_s'])} | {fmt_rate(c['jobs_per_s_best'])} |")
            if not rows["suffix"]:
                for r in o["hyperfine"]["results"]:
                    if "fixed cost" in r["command"]:
                        rate = best = "—"
                    else:
                        pol = "pd2" if ("pd2" in r["command"] or "PD2" in r["command"]) else "run"
                        rate = fmt_rate(rows[pol]["expected_jobs"] / r["mean"])
                        best = fmt_rate(rows[pol]["expected_jobs"] / r["min"])
                    cpu = r.get("user", 0) + r.get("system", 0)
                    L.append(f"| {r['command']} | hyperfine, {r['runs']} runs | {ms(r['mean'])} ± {ms(r['stddev'] or 0)} "
                             f"| {ms(r['min'])} | {ms(cpu)} | {rate} | {best} |")
            L.append("")
    if res.get("criterion"):
        L += ["## criterion (in-process schedlab)", "",
              "| id | m | tasks | horizon | jobs | events | mean time | jobs/s | ns/event |", "|---|---|---|---|---|---|---|---|---|"]
        for bid, c in sorted(res["criterion"].items()):
            L.append(f"| {bid} | {c['m']} | {c['tasks']} | {c['horizon_s']:g} s | {c['jobs']} | {c['events']} "
                     f"| {c['mean_ns'] / 1e6:.2f} ms | {fmt_rate(c['jobs_per_s'])} | {c['ns_per_event']:.1f} |")
        L.append("")
    if "simso_scaling" in res:
        L += ["## SimSo scaling (simso.schedulers.EDF)", "", "| m | tasks | horizon | jobs (SimSo / schedlab) | misses | reps | run_model() | jobs/s |",
              "|---|---|---|---|---|---|---|---|"]
        for r in res["simso_scaling"]:
            st = r["stats"]
            n = len(load_set(ROOT / r["spec"])[1])
            L.append(f"| {r['m']} | {n} | {r['horizon_ns'] / 1e9:g} s | {r['jobs']} / {r['schedlab_jobs']} | {r['misses']} | {st['n']} "
                     f"| {st['mean']:.2f} s ± {st['sd']:.2f} | {fmt_rate(r['jobs'] / st['mean'])} |")
        L.append("")
    L += ratios(res)
    if "four" in res:
        L += four_markdown(res["four"])
    if "memory" in res:
        L += ["## memory (trace off)", "", "| horizon | jobs | max RSS | wall |", "|---|---|---|---|"]
        for r in res["memory"]:
            L.append(f"| {r['horizon']} | {r['jobs']} | {r['max_rss_kib']} KiB | {r['wall']} |")
        L.append("")
    return "\n".join(L)


def compare(args) -> None:
    parts = args.part or ["headline", "criterion", "scaling", "memory"]
    need = [("hyperfine", shutil.which("hyperfine"), "headline"), ("hyperfine", shutil.which("hyperfine"), "optimal"),
            ("time", os.path.exists("/usr/bin/time"), "memory")]
    missing = sorted({pkg for pkg, ok, part in need if part in parts and not ok})
    if missing:
        raise SystemExit(f"missing: {' '.join(missing)} (Debian: apt-get install -y {' '.join(missing)})")
    setup_venv()
    if not args.no_build:
        build()
    write_sets()
    res = {"machine": machine(), "parts": parts}
    if "headline" in parts:
        part_headline(res, args.reps, args.runs)
    if "criterion" in parts:
        for filt in args.criterion_filter:
            part_criterion(res, filt)
    if "scaling" in parts:
        plan = [(4, 10, 3), (16, 10, 2), (64, 2, 2)]
        part_scaling(res, plan)
    if "memory" in parts:
        part_memory(res, ["100s", "1000s", "10000s"])
    if "optimal" in parts:
        part_optimal(res, args.optimal_reps, args.optimal_runs)
    if "four" in parts:
        part_four(res, args.four_runs, args.four_only)
    res["machine"]["loadavg_after"] = open("/proc/loadavg").read().strip()
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    tag = "-".join(parts)
    (RESULTS / f"{stamp}-{tag}.json").write_text(json.dumps(res, indent=1) + "\n")
    md = markdown(res)
    (RESULTS / f"{stamp}-{tag}.md").write_text(md + "\n")
    print(md)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("sets")
    sub.add_parser("setup")
    r = sub.add_parser("simso-run")
    r.add_argument("spec", type=Path)
    r.add_argument("--horizon-ns", type=int, default=10_000_000_000)
    r.add_argument("--scheduler", default="EDF", choices=["EDF", "EDF2", "PD2", "RUN", "P_EDF"])
    r.add_argument("--reps", type=int, default=1)
    r.add_argument("--jobs-out", type=Path, help="write task,job,release_ns,finish_ns of every completed job")
    c = sub.add_parser("compare")
    c.add_argument("--part", action="append", choices=["headline", "criterion", "scaling", "memory", "optimal", "four"],
                   help="default: headline, criterion, scaling, memory (optimal takes ~10 min more: SimSo's PD2)")
    c.add_argument("--reps", type=int, default=5, help="SimSo in-process repetitions (headline)")
    c.add_argument("--runs", type=int, default=10, help="hyperfine runs per command (headline)")
    c.add_argument("--criterion-filter", action="append", default=None,
                   help="cargo bench filter(s), one run each (default: gedf_1000s, scaling, policies)")
    c.add_argument("--optimal-reps", type=int, default=3, help="SimSo in-process repetitions (optimal)")
    c.add_argument("--optimal-runs", type=int, default=3, help="hyperfine runs per command (optimal)")
    c.add_argument("--four-runs", type=int, default=5, help="schedlab runs per command (four; SimSo runs once)")
    c.add_argument("--four-only", action="append", help="only these rows of four, e.g. pd2_m64 (repeatable)")
    c.add_argument("--no-build", action="store_true")
    a = ap.parse_args()
    if a.cmd == "sets":
        for p in write_sets():
            print(p.relative_to(ROOT))
    elif a.cmd == "setup":
        setup_venv()
    elif a.cmd == "simso-run":
        print(json.dumps(simso_run(a.spec, a.horizon_ns, a.scheduler, a.reps, a.jobs_out)))
    else:
        if a.criterion_filter is None:
            a.criterion_filter = ["sim/", "scaling/", "policies/"]
        compare(a)


if __name__ == "__main__":
    main()
