"""Shared fixtures for the Python API tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo() -> Path:
    """The repository root."""
    return REPO


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
