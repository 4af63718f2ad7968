#!/usr/bin/env python3
"""Calandrino Fig. 5.2 in simulation (docs/reproductions.md, "Calandrino
Fig. 5.2"): the working-set profiler's convergence under `ca-gedf` with
`profile: true`, qualitatively.

The set is the one of Fig. 4.6 and Fig. 5.2 (`examples/mtt.yaml`): two CPUs
sharing 1 MiB, T (1, 2 ms, 768 KiB), U and V (1, 4 ms, 512 KiB each) and the
MTT `video` of w1 and w2 (2, 8 ms, 768 KiB), quanta of 1 ms. As in the
thesis every task is an MTT: T, U and V are groups of one task (the
profiler measures `mtt` groups, docs/policies.md). Every WSS is learnt: the
policy starts from 0 and reads the platform model's miss counts.

Runs (400 ms each):
  figure   — `--miss-cycles 0`: misses are counted but cost no time, as in
             the figure, where thrashing jobs still take their quantum;
  default  — the platform model's default calibration (a miss costs 200
             cycles: a thrashing job runs 2-3 times slower);
  declared — `profile: false` (the declared WSSs), default calibration,
             for reference.

Reported: the schedule of the first 24 quanta (tasks running a whole
quantum), the quanta whose declared WSSs exceed the cache ("thrashing"),
deadline misses, and the estimate of each MTT at every ms of the first 32
(simulations of 1, 2, ... 32 ms: the simulator's own profiler, fed the same
counts by the same rules, `platform_model.mtts`) with the ms at which it
converged. The published orderings (§3.4, notes seed-001-calandrino.md)
are stated as holding or not per run.

Usage: python3 bench/calandrino_fig52.py [--debug] [--no-build]
Writes bench/results/<UTC stamp>-calandrino-fig52.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import record  # noqa: E402

MS = 1_000_000
CACHE = 1 << 20
WSS = {"t": 768 << 10, "u": 512 << 10, "v": 512 << 10, "w1": 768 << 10, "w2": 768 << 10}
OWNER = {"t": "T", "u": "U", "v": "V", "w1": "video", "w2": "video"}
NAMES = ["t", "u", "v", "w1", "w2"]
HORIZON = 400
TIMELINE = 32


def spec() -> str:
    text = (record.REPO / "examples" / "mtt.yaml").read_text()
    return text.replace("mtt:\n", "mtt:\n  - {name: T, tasks: [t]}\n  - {name: U, tasks: [u]}\n  - {name: V, tasks: [v]}\n")


def simulate(binary: Path, path: str, horizon: int, extra: list[str], trace: str | None = None) -> dict:  # type: ignore[type-arg]
    cmd = [str(binary), "simulate", path, "--policy", "ca-gedf", "--horizon", f"{horizon}ms", "--json", *extra]
    if trace:
        cmd += ["--trace", trace, "--validate"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"schedlab simulate failed ({out.returncode}): {out.stderr}")
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def quanta(trace: str, h: int) -> list[list[str]]:
    """The tasks that ran a whole quantum [i, i+1) ms, per quantum."""
    open_: dict[int, tuple[int, int]] = {}
    stints: list[tuple[int, int, int]] = []
    for line in Path(trace).read_text().splitlines()[1:]:
        e = json.loads(line)
        if e.get("ev") == "switch-to":
            open_[e["cpu"]] = (e["task"], e["t"])
        elif e.get("ev") == "switch-away":
            task, s = open_.pop(e["cpu"])
            stints.append((task, s, e["t"]))
    return [sorted(NAMES[t] for t, s, f in stints if s <= i * MS and f >= (i + 1) * MS) for i in range(h)]


def thrashes(q: list[str]) -> bool:
    owners = {OWNER[t]: WSS[t] for t in q}
    return sum(owners.values()) > CACHE


def run(binary: Path, path: str, name: str, extra: list[str], profile: bool) -> tuple[dict[str, object], dict[str, bool]]:  # type: ignore[type-arg]
    flags = extra + ["--set", f"profile={'true' if profile else 'false'}"]
    with tempfile.TemporaryDirectory() as d:
        trace = f"{d}/t.jsonl"
        full = simulate(binary, path, HORIZON, flags, trace)
        q = quanta(trace, HORIZON)
    timeline: dict[str, list[int]] = {m: [] for m in ("T", "U", "V", "video")}
    converged_at: dict[str, int | None] = {m: None for m in timeline}
    if profile:
        for h in range(1, TIMELINE + 1):
            out = simulate(binary, path, h, flags)
            for m in out["platform_model"]["mtts"]:
                timeline[m["mtt"]].append(m["wss_estimate"] or 0)
                if m["converged"] and converged_at[m["mtt"]] is None:
                    converged_at[m["mtt"]] = h
    thrash = [i for i in range(HORIZON) if thrashes(q[i])]
    final = {m["mtt"]: m for m in full["platform_model"]["mtts"]}
    misses = sum(t["misses"] for t in full["tasks"])
    tard = max(t["max_tardiness"] for t in full["tasks"])
    golden = [["u", "v"], ["t"], ["t"], ["w1", "w2"], ["w1", "w2"], ["u", "v"], ["t"], ["t"]]
    settled = next((s for s in range(TIMELINE) if all(q[i][:] == golden[(i - s) % 8] for i in range(s, HORIZON))), None)
    row: dict[str, object] = {
        "run": name,
        "flags": flags,
        "first_quanta": [",".join(x) or "-" for x in q[:24]],
        "thrashing_quanta_first_32": sum(1 for i in thrash if i < TIMELINE),
        "thrashing_quanta_after_32": sum(1 for i in thrash if i >= TIMELINE),
        "deadline_misses": misses,
        "max_tardiness_ms": tard / MS,
        "settled_into_fig_4_6b_from_ms": settled,
        "estimates": {m: final[m]["wss_estimate"] for m in final},
        "profiled": {m: [final[m]["profiled_jobs"], final[m]["discarded_jobs"]] for m in final},
        "timeline_bytes": timeline,
        "converged_at_ms": converged_at,
        "validated": full.get("validation", {}).get("pass") if isinstance(full.get("validation"), dict) else full.get("validation"),
    }
    verdicts: dict[str, bool] = {}
    if profile:
        capped = [h for h in range(TIMELINE) if all(timeline[m][h] == CACHE for m in timeline)]
        verdicts[f"{name}: the first quanta thrash (every WSS unknown, 0)"] = bool(thrash) and thrash[0] < 2
        verdicts[f"{name}: the bootstrap's estimates reach the cache-size cap (1 MiB for every MTT at some ms ≤ 8)"] = any(h < 8 for h in capped)
        verdicts[f"{name}: isolation makes every estimate exact and converged (T, U, V, video)"] = all(
            final[m]["converged"] and final[m]["wss_estimate"] == final[m]["wss"] for m in final
        )
        c = converged_at
        verdicts[f"{name}: T converges first, U and V next, video last (thesis: 7, 9, 9, 21)"] = (
            None not in c.values() and c["T"] <= min(c["U"], c["V"]) and max(c["U"], c["V"]) <= c["video"]  # type: ignore[operator]
        )
        verdicts[f"{name}: the schedule then repeats Fig. 4.6(b)'s, no quantum thrashing"] = settled is not None
    return row, verdicts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--debug", action="store_true")
    ap.add_argument("--no-build", action="store_true")
    a = ap.parse_args()
    binary = record.schedlab(a.debug, not a.no_build)
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(spec())
        path = f.name
    rows, verdicts = [], {}
    for name, extra, profile in (("figure", ["--miss-cycles", "0"], True), ("default", [], True), ("declared", [], False)):
        row, v = run(binary, path, name, extra, profile)
        rows.append(row)
        verdicts.update(v)
    Path(path).unlink()
    table = [
        "| run | first 24 quanta | thrashing quanta (< 32 ms / after) | misses | max tard. | Fig. 4.6(b) from | converged at (T, U, V, video) | final estimates KiB (profiled/discarded) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        est = r["estimates"]
        prof = r["profiled"]
        conv = r["converged_at_ms"]
        table.append(
            f"| {r['run']} | {' '.join(r['first_quanta'])} | {r['thrashing_quanta_first_32']} / {r['thrashing_quanta_after_32']} | "  # type: ignore[index]
            f"{r['deadline_misses']} | {r['max_tardiness_ms']} ms | {r['settled_into_fig_4_6b_from_ms']} | "
            + (", ".join(str(conv[m]) for m in ("T", "U", "V", "video")) if r["run"] != "declared" else "–")  # type: ignore[index]
            + " | "
            + (", ".join(f"{m} {est[m] // 1024} ({prof[m][0]}/{prof[m][1]})" for m in est) if r["run"] != "declared" else "declared")  # type: ignore[index,operator]
            + " |"
        )
    table.append("")
    table.append("Estimates (KiB) at each ms of the first 32 (T / U / V / video):")
    table.append("")
    for r in rows[:2]:
        tl = r["timeline_bytes"]
        table.append(f"- {r['run']}: " + "; ".join(
            f"{h + 1}: {'/'.join(str(tl[m][h] // 1024) for m in ('T', 'U', 'V', 'video'))}" for h in range(TIMELINE)  # type: ignore[index]
        ))
    record.save_study("calandrino-fig52", {"horizon_ms": HORIZON, "timeline_ms": TIMELINE}, rows, verdicts, table)


if __name__ == "__main__":
    main()
