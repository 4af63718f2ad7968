"""Shared fixtures for the Python API tests."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[2]

#: Retries of runtime tests (each under a platform stall, with its evidence),
#: and whether any runtime test asked for the list: printed in the summary.
_RUNTIME_RETRIES: list[str] = []
_RUNTIME_USED: list[bool] = []


@pytest.fixture
def runtime_retries() -> list[str]:
    """Where a runtime test records a retry (tests/test_run.py)."""
    _RUNTIME_USED.append(True)
    return _RUNTIME_RETRIES


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The test log states how many runtime retries happened, and why."""
    if not _RUNTIME_USED:
        return
    terminalreporter.write_line(f"runtime tests: {len(_RUNTIME_RETRIES)} retries (platform stalls)")
    for line in _RUNTIME_RETRIES:
        terminalreporter.write_line(f"  {line}")


@pytest.fixture
def repo() -> Path:
    """The repository root."""
    return REPO


@pytest.fixture(scope="session")
def bench_script() -> Iterator[Callable[[str], ModuleType]]:
    """Imports a script of bench/ by name, with bench/ on the path while the
    tests run (the scripts import each other, some inside functions)."""
    bench = str(REPO / "bench")
    sys.path.insert(0, bench)
    try:
        yield importlib.import_module
    finally:
        sys.path.remove(bench)


@pytest.fixture
def demo_path() -> Path:
    """The demo spec shipped in examples/."""
    return REPO / "examples" / "demo.yaml"


@pytest.fixture
def schedlab_exe() -> Path:
    """The `schedlab` console script of the environment running the tests."""
    exe = Path(sys.executable).parent / "schedlab"
    if not exe.exists():
        pytest.fail(f"{exe} is missing: install the package (make develop) before running the tests")
    return exe


SMALL_YAML = """\
meta:
  description: two tasks
platform:
  cpus: 2
  cache: {size: 2MiB, ways: 8, line: 64B}
policy:
  name: pfp
  priorities: dm
tasks:
  - {name: fast, wcet: 250us, period: 5ms, deadline: 4ms, cpu: 1, wss: 32KiB, colors: [0-3, 7]}
  - {name: slow, wcet: 1.5ms, period: 20ms}
"""

SMALL_JSON = """\
{
  "meta": {"description": "two tasks"},
  "platform": {"cpus": 2, "cache": {"size": "2MiB", "ways": 8, "line": "64B"}},
  "policy": {"name": "pfp", "priorities": "dm"},
  "tasks": [
    {"name": "fast", "wcet": "250us", "period": "5ms", "deadline": "4ms", "cpu": 1,
     "wss": "32KiB", "colors": ["0-3", 7]},
    {"name": "slow", "wcet": "1.5ms", "period": "20ms"}
  ]
}
"""


@pytest.fixture
def small_yaml() -> str:
    """A small valid spec in YAML."""
    return SMALL_YAML


@pytest.fixture
def small_json() -> str:
    """The same spec in JSON."""
    return SMALL_JSON


# CI runs are reproducible: the same examples every time, and no example
# database left in the work tree. Locally, Hypothesis explores anew each run.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("dev", database=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
