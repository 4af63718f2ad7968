"""What every runtime benchmark in bench/ shares: the machine it ran on,
sample quantiles, and writing bench/results/<UTC stamp>-<name>.{json,md}.

The scripts run as `python3 bench/<script>.py`, so this folder is on
sys.path and they import it as `record`.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"


def sh(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    """Runs `cmd`, echoing it to stderr, and captures its output as text."""
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, text=True, capture_output=True, **kw)  # type: ignore[call-overload, no-any-return]


def machine(**extra: object) -> dict[str, object]:
    """The head of a result: date, host, kernel, CPU count and the load
    average before the measurement, then `extra` in order."""
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "host": platform.node(),
        "os_kernel": platform.release(),
        "cpus": os.cpu_count(),
        "loadavg_before": os.getloadavg(),
        **extra,
    }


def quantiles(samples: list[float]) -> dict[str, float]:
    """n, p50, p99, p99.9, max and mean of `samples` (nearest rank); {"n": 0} when empty."""
    v = sorted(samples)
    if not v:
        return {"n": 0}

    def q(p: float) -> float:
        return v[min(len(v) - 1, max(0, int(round(p * (len(v) - 1)))))]

    return {"n": len(v), "p50": q(0.5), "p99": q(0.99), "p999": q(0.999), "max": v[-1], "mean": sum(v) / len(v)}


def save(name: str, res: dict[str, object], md: str, indent: int = 2) -> None:
    """Writes the JSON and the Markdown table, and prints the table."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    (RESULTS / f"{stamp}-{name}.json").write_text(json.dumps(res, indent=indent) + "\n")
    (RESULTS / f"{stamp}-{name}.md").write_text(md)
    print(md)
    print(f"wrote bench/results/{stamp}-{name}.{{json,md}}", file=sys.stderr)
