#!/usr/bin/env python3
"""Calandrino's Table 3.2 in simulation (docs/reproductions.md, "Calandrino
Table 3.2"): shared-cache miss ratios of the Table 3.1 sets under P-EDF,
PD^2 and PD^2 with megatasks (`policy.megatasks`, docs/policies.md), with
the platform model (docs/platform-model.md) standing in for SESC.

The sets are Table 3.1's (notes seed-001-calandrino.md §6.1): a shared
8-way 512 KiB cache, 64 B lines, 1 ms quanta; BASIC 3 × (3, 5, 250K) on 4
CPUs for 100 quanta; SMALL_BASIC 5 × (7, 20, 250K) on 4 CPUs for 60;
ONE_MEGA 5 × (7, 10, 120K) on 8 CPUs for 50; TWO_MEGA 3 × (3, 5, 190K) and
3 × (3, 5, 60K) on 8 CPUs for 50 ((e, p) in ms, WSS). P-EDF places the
tasks first-fit by decreasing utilisation (the thesis: decreasing WSS,
first fit; the WSSs within a set are equal or follow the utilisations'
order, so the placements agree). The megatasks are the table's rows: one
of all tasks; ONE_MEGA also as two (3 tasks, u = 2.1, and 2, u = 1.4);
TWO_MEGA also as one of the 190K tasks only and as two (190K ones, 60K
ones). Each task is declared as an MTT of its own so the simulator reports
its references and misses (`platform_model.mtts`); the miss ratio is Σ
misses / Σ references over the set's tasks. Deadline misses are reported
beside it: the model's slowdowns and CPMD are not in the WCETs, and PD^2
does not let a job that overruns catch up (docs/policies.md).

The published orderings (notes §6.2): in every row the megatask ratio is
below both P-EDF's and PD^2's; ONE_MEGA with one megatask is below ONE_MEGA
with two; TWO_MEGA with two megatasks is below both one-megatask variants.
The script says whether each holds.

Debug or release build as the other reproductions (`--debug`, `--no-build`).
Writes bench/results/<UTC stamp>-calandrino-table32.{json,md}.

Usage: python3 bench/calandrino_table32.py [--debug | --no-build]
"""

from __future__ import annotations

import argparse

import record

SETS = {
    "BASIC": (4, 100, [(3, 5, 250)] * 3),
    "SMALL_BASIC": (4, 60, [(7, 20, 250)] * 5),
    "ONE_MEGA": (8, 50, [(7, 10, 120)] * 5),
    "TWO_MEGA": (8, 50, [(3, 5, 190)] * 3 + [(3, 5, 60)] * 3),
}

# (row label, set, megatasks as task-index lists)
ROWS = [
    ("BASIC", "BASIC", [[0, 1, 2]]),
    ("SMALL_BASIC", "SMALL_BASIC", [[0, 1, 2, 3, 4]]),
    ("ONE_MEGA (1 megatask)", "ONE_MEGA", [[0, 1, 2, 3, 4]]),
    ("ONE_MEGA (2 megatasks, u = 2.1 and 1.4)", "ONE_MEGA", [[0, 1, 2], [3, 4]]),
    ("TWO_MEGA (1 megatask, all tasks)", "TWO_MEGA", [[0, 1, 2, 3, 4, 5]]),
    ("TWO_MEGA (1 megatask, only 190K tasks)", "TWO_MEGA", [[0, 1, 2]]),
    ("TWO_MEGA (2 megatasks, 190K and 60K)", "TWO_MEGA", [[0, 1, 2], [3, 4, 5]]),
]


def spec(name: str, policy: str) -> str:
    cpus, _, tasks = SETS[name]
    lines = [f"platform: {{cpus: {cpus}, cache: {{size: 512KiB, ways: 8, line: 64B}}}}", f"policy: {policy}", "tasks:"]
    lines += [f"  - {{name: t{i}, wcet: {e}ms, period: {p}ms, wss: {w}KiB}}" for i, (e, p, w) in enumerate(tasks)]
    lines += ["mtt:"] + [f"  - {{name: m{i}, tasks: [t{i}]}}" for i in range(len(tasks))]
    return "\n".join(lines) + "\n"


def run(binary: object, name: str, policy: str) -> dict[str, float]:
    quanta = SETS[name][1]
    out = record.schedlab_json(binary, ["simulate", "--horizon", f"{quanta}ms"], spec(name, policy))  # type: ignore[arg-type]
    mtts = out["platform_model"]["mtts"]
    misses = sum(m["cache_misses"] for m in mtts)
    refs = sum(m["cache_references"] for m in mtts)
    return {"miss_ratio": misses / refs if refs else 0.0, "misses": misses, "references": refs, "deadline_misses": out["totals"]["misses"], "jobs": out["totals"]["jobs"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--debug", action="store_true")
    ap.add_argument("--no-build", action="store_true")
    a = ap.parse_args()
    binary = record.schedlab(a.debug, not a.no_build)
    base = {name: {"P-EDF": run(binary, name, "{name: pedf, partitioning: ffd}"), "PD^2": run(binary, name, "{name: pd2, quantum: 1ms}")} for name in SETS}
    rows: list[dict[str, object]] = []
    table = ["| Task set | P-EDF | PD^2 | Megatasks | deadline misses (P-EDF / PD^2 / megatasks, of jobs) |", "|---|---|---|---|---|"]
    mega: dict[str, float] = {}
    verdicts: dict[str, bool] = {}
    for label, name, groups in ROWS:
        lists = ", ".join("[" + ", ".join(f"t{i}" for i in g) + "]" for g in groups)
        m = run(binary, name, f"{{name: pd2, quantum: 1ms, megatasks: [{lists}]}}")
        pedf, pd2 = base[name]["P-EDF"], base[name]["PD^2"]
        mega[label] = m["miss_ratio"]
        rows.append({"row": label, "set": name, "megatasks": groups, "pedf": pedf, "pd2": pd2, "mega": m})
        table.append(
            f"| {label} | {100 * pedf['miss_ratio']:.2f}% | {100 * pd2['miss_ratio']:.2f}% | {100 * m['miss_ratio']:.2f}% | "
            f"{pedf['deadline_misses']} / {pd2['deadline_misses']} / {m['deadline_misses']} of {m['jobs']} |"
        )
        verdicts[f"{label}: megatasks below P-EDF and PD^2"] = m["miss_ratio"] < min(pedf["miss_ratio"], pd2["miss_ratio"])
    verdicts["ONE_MEGA: 1 megatask below 2 megatasks"] = mega["ONE_MEGA (1 megatask)"] < mega["ONE_MEGA (2 megatasks, u = 2.1 and 1.4)"]
    two = mega["TWO_MEGA (2 megatasks, 190K and 60K)"]
    verdicts["TWO_MEGA: 2 megatasks below both 1-megatask rows"] = two < min(mega["TWO_MEGA (1 megatask, all tasks)"], mega["TWO_MEGA (1 megatask, only 190K tasks)"])
    record.save_study("calandrino-table32", {"cache": "512 KiB, 8 ways, 64 B", "quantum": "1 ms"}, rows, verdicts, table)


if __name__ == "__main__":
    main()
