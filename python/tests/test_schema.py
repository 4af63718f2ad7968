"""The JSON Schema of the spec."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import schedlab
from schedlab import _native


def test_schema_is_valid_json_describing_the_spec() -> None:
    text = _native.schema()
    s = json.loads(text)
    assert s == schedlab.schema()
    assert s["$schema"].startswith("https://json-schema.org/")
    assert {"platform", "tasks"} <= set(s["required"])
    assert {"platform", "policy", "tasks", "meta", "overheads"} <= set(s["properties"])


def test_schema_matches_the_shipped_copy(repo: Path) -> None:
    shipped = json.loads((repo / "docs" / "spec.schema.json").read_text(encoding="utf-8"))
    assert schedlab.schema() == shipped


def test_schema_matches_the_cli(schedlab_exe: Path) -> None:
    r = subprocess.run([str(schedlab_exe), "schema"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == schedlab.schema()
