"""The `schedlab` console script installed with the package: the Rust CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import schedlab
from schedlab._cli import main


def _run(exe: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(exe), *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, cwd=cwd
    )


def test_version(schedlab_exe: Path) -> None:
    r = _run(schedlab_exe, "--version")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"schedlab {schedlab.__version__}"


def test_check_valid_file(schedlab_exe: Path, demo_path: Path) -> None:
    r = _run(schedlab_exe, "check", str(demo_path))
    assert r.returncode == 0, r.stderr
    assert "valid spec" in r.stdout
    assert "decode" in r.stdout


def test_check_bad_file_exits_2(schedlab_exe: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("platform: {cpus: 2}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms, cpu: 5}\n", encoding="utf-8")
    r = _run(schedlab_exe, "check", str(bad))
    assert r.returncode == 2
    assert f"{bad}:3:45: tasks[0].cpu: CPU 5 does not exist" in r.stderr
    with pytest.raises(schedlab.SpecError) as e:
        schedlab.load(bad)
    assert str(e.value) in r.stderr


def test_bad_usage_exits_2(schedlab_exe: Path) -> None:
    r = _run(schedlab_exe, "frobnicate")
    assert r.returncode == 2
    assert r.stderr


def test_gen_then_check_matches_the_python_api(schedlab_exe: Path, tmp_path: Path) -> None:
    out = tmp_path / "set.yaml"
    r = _run(schedlab_exe, "gen", "--seed", "7", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert schedlab.load(out) == schedlab.generate(seed=7)
    assert _run(schedlab_exe, "check", str(out)).returncode == 0


def test_python_dash_m(demo_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "schedlab", "check", "--json", str(demo_path)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert '"valid": true' in r.stdout


def test_main_in_process_returns_the_exit_code(capfd: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["check", str(tmp_path / "missing.yaml")]) == 2
    assert "missing.yaml" in capfd.readouterr().err
