"""What the benchmarks and reproductions in bench/ share: the machine they
ran on, sample quantiles, the schedlab binary and its JSON answers, and
writing bench/results/<UTC stamp>-<name>.{json,md}.

The scripts run as `python3 bench/<script>.py`, so this folder is on
sys.path and they import it as `record`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
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


def schedlab(debug: bool, build: bool) -> Path:
    """target/<profile>/schedlab, built first (a release build unless `debug`)
    when `build`."""
    if build:
        cmd = ["cargo", "build", "-q", "-p", "schedlab-cli", "--bin", "schedlab"] + ([] if debug else ["--release"])
        subprocess.run(cmd, cwd=REPO, check=True)
    return REPO / "target" / ("debug" if debug else "release") / "schedlab"


def schedlab_json(binary: Path, args: list[str], spec: str) -> dict:  # type: ignore[type-arg]
    """`schedlab VERB SPEC REST... --json` (args = [VERB, *REST]) on the spec
    text written to a scratch file: its JSON answer. Exit 0 or 1 is an answer
    (a miss, a failed check); any other code ends the script with stderr and
    the spec."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(spec)
        path = f.name
    out = subprocess.run([str(binary), args[0], path, *args[1:], "--json"], capture_output=True, text=True)
    Path(path).unlink()
    if out.returncode not in (0, 1):
        sys.exit(f"schedlab {args[0]} failed ({out.returncode}): {out.stderr}\n{spec}")
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def save_study(name: str, meta: dict[str, object], rows: list[dict[str, object]], verdicts: dict[str, bool], table: list[str]) -> None:
    """Writes a reproduction's result: its meta (with `machine()`'s head),
    rows and verdicts as JSON; the table and each verdict as it holds or
    not as Markdown."""
    md = table + [""] + [f"- {k}: {'holds' if v else 'does not hold'}" for k, v in verdicts.items()]
    head = machine(**meta)
    head["loadavg_after"] = head.pop("loadavg_before")  # read at the end of the study
    save(name, {"meta": head, "rows": rows, "verdicts": verdicts}, "\n".join(md) + "\n")


def study_options(doc: str, horizon: tuple[str, int, str], sets: int = 10) -> argparse.Namespace:
    """A reproduction's command line: --sets (default `sets`), --seed, its
    horizon option (`horizon` = (flag, default, help)), --debug and
    --no-build."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=sets)
    ap.add_argument("--seed", type=int, default=2014)
    ap.add_argument(horizon[0], type=int, default=horizon[1], help=horizon[2])
    ap.add_argument("--debug", action="store_true")
    ap.add_argument("--no-build", action="store_true")
    return ap.parse_args()
