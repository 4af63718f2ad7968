#!/usr/bin/env python3
"""Import speed beside the validator's: events per second of CPU.

Writes, in a scratch folder, a large input for each reader, then times the
whole commands (user + sys CPU of the process, best of --runs):

  sched-trace  `schedlab simulate` of a 4-CPU G-EDF set over --horizon
               (binary trace), `schedlab export sched-trace` to st-*.bin,
               then `schedlab import sched-trace` of those files;
  ftrace       a tracefs text of two SCHED_FIFO threads (the fuzz seed's
               pattern of crates/interop/tests/fuzz.rs, repeated --periods
               times), `schedlab import ftrace`;

and `schedlab validate --tolerance 1ms` of each imported trace (the
recording's wake-ups lag 10 µs). Events are the records
read (sched_trace: 24-byte records; ftrace: text lines) and, for the
validator, the events of the trace it checks.

    python3 bench/interop_speed.py                 # release build, default sizes
    python3 bench/interop_speed.py --periods 20000 --horizon 20s --runs 1
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEDLAB = ROOT / "target" / "release" / "schedlab"

GEDF = """platform: {cpus: 4}
policy: {name: gedf}
tasks:
  - {name: a, wcet: 1ms, period: 4ms}
  - {name: b, wcet: 2ms, period: 6ms}
  - {name: c, wcet: 3ms, period: 10ms}
  - {name: d, wcet: 2ms, period: 5ms}
  - {name: e, wcet: 4ms, period: 12ms}
  - {name: f, wcet: 1ms, period: 3ms}
"""

GFP = """platform: {cpus: 2}
policy: {name: gfp, priorities: rm}
tasks:
  - {name: hi, wcet: 1ms, period: 4ms}
  - {name: lo, wcet: 2ms, period: 8ms}
"""


def cpu(cmd: list) -> float:
    """Runs `cmd`; the user + sys CPU seconds of the process."""
    p = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))}: exit status {status}\n{err.decode()}")
    return ru.ru_utime + ru.ru_stime


def best(cmd: list, runs: int) -> float:
    return min(cpu(cmd) for _ in range(runs))


def trace_events(path: Path) -> int:
    out = subprocess.run([SCHEDLAB, "--json", "validate", path, "--tolerance", "1ms"], capture_output=True, text=True).stdout
    return int(json.loads(out)["events"])


def ftrace_text(periods: int) -> str:
    us = lambda x: f"{100 + x // 1_000_000}.{x % 1_000_000:06d}"  # noqa: E731
    sw = lambda t, cpu, pc, pp, ppr, st, nc, np_, npr: (  # noqa: E731
        f"{pc}-{pp} [{cpu:03}] d..2. {us(t)}: sched_switch: prev_comm={pc} prev_pid={pp} prev_prio={ppr} "
        f"prev_state={st} ==> next_comm={nc} next_pid={np_} next_prio={npr}\n"
    )
    wk = lambda t, cpu, c, p, pr: (  # noqa: E731
        f"<idle>-0 [{cpu:03}] dNh3. {us(t)}: sched_wakeup: comm={c} pid={p} prio={pr} target_cpu={cpu:03}\n"
    )
    lines = ["# tracer: nop\n#\n"]
    lines.append(sw(0, 0, "swapper/0", 0, 120, "R", "hi", 10, 89))
    lines.append(sw(100, 0, "hi", 10, 89, "S", "lo", 11, 90))
    lines.append(sw(200, 0, "lo", 11, 90, "S", "swapper/0", 0, 120))
    for k in range(periods):
        base = 1000 + k * 8000
        lines += [
            wk(base, 0, "hi", 10, 89),
            wk(base + 2, 1, "lo", 11, 90),
            sw(base + 10, 0, "swapper/0", 0, 120, "R", "hi", 10, 89),
            sw(base + 12, 1, "swapper/1", 0, 120, "R", "lo", 11, 90),
            sw(base + 1010, 0, "hi", 10, 89, "S", "swapper/0", 0, 120),
            sw(base + 2012, 1, "lo", 11, 90, "S", "swapper/1", 0, 120),
            wk(base + 4000, 0, "hi", 10, 89),
            sw(base + 4010, 0, "swapper/0", 0, 120, "R", "hi", 10, 89),
            sw(base + 5010, 0, "hi", 10, 89, "S", "swapper/0", 0, 120),
        ]
    return "".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--horizon", default="100s", help="simulated time of the sched_trace input")
    ap.add_argument("--periods", type=int, default=100_000, help="8 ms periods of the ftrace input")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    if not SCHEDLAB.exists():
        subprocess.run(["cargo", "build", "--release", "-p", "schedlab-cli"], cwd=ROOT, check=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="schedlab-interop-speed-") as tmp:
        d = Path(tmp)
        # sched_trace
        (d / "gedf.yaml").write_text(GEDF)
        sim = d / "sim.sltrace"
        subprocess.run([SCHEDLAB, "simulate", d / "gedf.yaml", "--horizon", a.horizon, "--horizon-cap", a.horizon,
                        "--trace", sim], check=True, capture_output=True)
        st = d / "st"
        subprocess.run([SCHEDLAB, "export", "sched-trace", sim, "-o", st], check=True, capture_output=True)
        files = sorted(st.glob("st-*.bin"))
        records = sum(f.stat().st_size for f in files) // 24
        imported = d / "st.sltrace"
        t = best([SCHEDLAB, "import", "sched-trace", *files, "--plugin", "GSN-EDF", "-o", imported], a.runs)
        rows.append(("import sched-trace", records, "records", t))
        n = trace_events(imported)
        rows.append(("validate (that trace)", n, "events", best([SCHEDLAB, "validate", imported, "--tolerance", "1ms"], a.runs)))
        # ftrace
        (d / "gfp.yaml").write_text(GFP)
        txt = d / "trace.txt"
        txt.write_text(ftrace_text(a.periods))
        lines = sum(1 for line in txt.open() if not line.startswith("#"))
        out = d / "ft.sltrace"
        t = best([SCHEDLAB, "import", "ftrace", txt, "--spec", d / "gfp.yaml", "-o", out], a.runs)
        rows.append(("import ftrace", lines, "lines", t))
        n = trace_events(out)
        rows.append(("validate (that trace)", n, "events", best([SCHEDLAB, "validate", out, "--tolerance", "1ms"], a.runs)))
    print("| command | input | CPU (best of %d) | per second of CPU |" % a.runs)
    print("|---|---|---|---|")
    for name, n, unit, t in rows:
        print(f"| `schedlab {name}` | {n:,} {unit} | {t:.2f} s | {n / t / 1e6:.1f} M {unit}/s |")


if __name__ == "__main__":
    sys.exit(main())
