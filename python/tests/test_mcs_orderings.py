"""The MCS reproduction end to end (docs/reproductions.md, "MCS"): the
sweep of experiments/mcs-ecrts19.yaml on two sets per point, then
experiments/mcs_orderings.py on its rows, which states every published
ordering as holding or not."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_checker_states_every_ordering_of_a_sweep(schedlab_exe: Path, tmp_path: Path) -> None:
    rows = tmp_path / "mcs.csv"
    sweep = subprocess.run(
        [str(schedlab_exe), "sweep", str(REPO / "experiments" / "mcs-ecrts19.yaml"), "-o", str(rows), "--samples", "2"],
        capture_output=True,
        text=True,
    )
    assert sweep.returncode == 0, sweep.stderr
    header = rows.read_text().splitlines()[0].split(",")
    assert [c for c in header if c.startswith("tau2_")] == [
        "tau2_wcet_ns", "tau2_response_ns", "tau2_mean_response_ns", "tau2_exec_jitter"]
    out = subprocess.run([sys.executable, str(REPO / "experiments" / "mcs_orderings.py"), str(rows)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    verdicts = {}
    for line in out.stdout.splitlines():
        m = re.match(r"\| (\d+[a-z]?)\. .* \| (holds|does not hold) \|$", line)
        if m:
            verdicts[m.group(1)] = m.group(2)
    assert sorted(verdicts) == ["1", "2", "2b", "3", "4", "5a", "5b", "5c", "5d", "6", "6b"], out.stdout
    # What the model guarantees whatever the sets: S-MP runs τ0 as alone and
    # removes execution-time variation, contention stretches τ0, and the
    # analyses are sound and ordered.
    for k in ("1", "4", "5a", "5b"):
        assert verdicts[k] == "holds", out.stdout


def test_the_checker_refuses_other_files(tmp_path: Path) -> None:
    checker = str(REPO / "experiments" / "mcs_orderings.py")
    out = subprocess.run([sys.executable, checker, str(tmp_path / "none.csv")], capture_output=True, text=True)
    assert out.returncode == 1 and "none.csv" in out.stderr
    other = tmp_path / "other.csv"
    other.write_text("point,util,sample,evaluation,verdict\n0,2.0,0,G-EDF,schedulable\n")
    out = subprocess.run([sys.executable, checker, str(other)], capture_output=True, text=True)
    assert out.returncode == 1 and "no column prem, tau0_wcet_ns, wss" in out.stderr, out.stderr
