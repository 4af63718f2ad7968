#!/usr/bin/env python3
"""The platform model's cost: whole `schedlab simulate` commands with the
model off and on (docs/performance.md, "The platform model's cost").

The G-EDF sets `bench/sets/gedf_m{4,8}.json` get an 8 MiB, 16-way cache and
64 KiB working sets, as the criterion group `platform/` of
`crates/sim/benches/sim.rs` builds them, in four variants:

- off: task i in colours 4i–4i+3, run with `--no-platform-model`;
- private: the same spec with the model (nothing shared);
- colours: every task in colours 0–15 (evictions between jobs);
- shared: colours 0–15 and one data group writing 2 % (every switch
  changes every running CPU's rate).

Each variant runs `--runs` times (default 31) over `--horizon` (default
100 s), the binaries interleaved run by run; the CPU time is the child's
user + system (`os.wait4`). The median and the minimum are printed with
their ratio to off. `--instructions` also counts each command's
instructions once with `valgrind --tool=callgrind` (minutes). `--baseline
BIN` times a second binary beside the first (before and after a change).

    python3 bench/platform_cost.py                      # release build first
    python3 bench/platform_cost.py --runs 101 --instructions
    python3 bench/platform_cost.py --no-build --baseline /tmp/schedlab-before
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import record  # noqa: E402

VARIANTS = ("off", "private", "colours", "shared")


def variant(base: dict, name: str) -> dict:  # type: ignore[type-arg]
    """The set `base` with the cache and the tasks' footprints of `name`."""
    spec = json.loads(json.dumps(base))
    spec["platform"]["cache"] = {"size": "8MiB", "ways": 16, "line": "64B"}
    shared = name in ("colours", "shared")
    for i, t in enumerate(spec["tasks"]):
        t["wss"] = "64KiB"
        t["colors"] = ["0-15" if shared else f"{4 * i}-{4 * i + 3}"]
        if name == "shared":
            t["data_group"] = "g"
            t["write_ratio"] = 0.02
    return spec


def command(binary: Path, spec: Path, name: str, horizon: str) -> list[str]:
    return [str(binary), "simulate", str(spec), "--horizon", horizon] + (["--no-platform-model"] if name == "off" else [])


def cpu_time(cmd: list[str]) -> float:
    """The CPU time (user + system, s) of one run of `cmd` (its output
    discarded), which must exit 0."""
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}")
    return usage.ru_utime + usage.ru_stime


def instructions(cmd: list[str]) -> int:
    """The instructions of one run of `cmd` (callgrind's total)."""
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        capture_output=True,
        text=True,
        check=True,
    )
    for line in out.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split()[-1])
    sys.exit(f"no instruction count from valgrind for {' '.join(cmd)}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=31, help="runs of each command (default 31)")
    p.add_argument("--horizon", default="100s", help="simulated time (default 100s)")
    p.add_argument("--m", type=int, nargs="+", default=[4, 8], choices=[4, 8, 16, 32, 64], help="sets (default 4 8)")
    p.add_argument("--instructions", action="store_true", help="also count instructions with valgrind")
    p.add_argument("--baseline", type=Path, help="a second schedlab binary, timed beside the first")
    p.add_argument("--no-build", action="store_true", help="use target/release/schedlab as it is")
    a = p.parse_args()
    binaries = [record.schedlab(False, not a.no_build)] + ([a.baseline] if a.baseline else [])
    with tempfile.TemporaryDirectory() as tmp:
        for m in a.m:
            base = json.loads((record.REPO / "bench" / "sets" / f"gedf_m{m}.json").read_text())
            specs = {}
            for name in VARIANTS:
                specs[name] = Path(tmp) / f"m{m}_{name}.json"
                specs[name].write_text(json.dumps(variant(base, name)))
            times: dict[tuple[Path, str], list[float]] = {}
            for _ in range(a.runs):
                for name in VARIANTS:
                    for b in binaries:
                        times.setdefault((b, name), []).append(cpu_time(command(b, specs[name], name, a.horizon)))
            print(f"m = {m}, {len(base['tasks'])} tasks, {a.horizon}, {a.runs} runs each (CPU time, ratio to off):")
            for b in binaries:
                for label, f in (("median", statistics.median), ("min", min)):
                    off = f(times[(b, "off")])
                    cells = "  ".join(f"{n} {f(times[(b, n)]) * 1e3:.2f} ms ({f(times[(b, n)]) / off:.2f}×)" for n in VARIANTS)
                    print(f"  {b}  {label}: {cells}")
                if a.instructions:
                    counts = {n: instructions(command(b, specs[n], n, a.horizon)) for n in VARIANTS}
                    cells = "  ".join(f"{n} {counts[n] / 1e6:.1f} M ({counts[n] / counts['off']:.2f}×)" for n in VARIANTS)
                    print(f"  {b}  instructions: {cells}")


if __name__ == "__main__":
    main()
