"""`--json` on every verb: one shape per verb whatever the outcome, each
checked against its JSON Schema in docs/schemas/, and one error shape
(docs/schemas/error.schema.json) with the exit code of the text mode."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "docs" / "schemas"


def registry() -> Registry:
    resources = []
    for p in SCHEMAS.glob("*.schema.json"):
        doc = json.loads(p.read_text())
        resources.append((p.name, Resource.from_contents(doc)))
        resources.append((doc["$id"], Resource.from_contents(doc)))
    return Registry().with_resources(resources)


def check(verb: str, doc: Any) -> None:
    schema = json.loads((SCHEMAS / f"{verb}.schema.json").read_text())
    jsonschema.Draft202012Validator(schema, registry=registry()).validate(doc)


def run(exe: Path, cwd: Path, *args: str) -> tuple[int, Any]:
    p = subprocess.run([str(exe), *args, "--json"], cwd=cwd, capture_output=True, text=True, check=False)
    try:
        return p.returncode, json.loads(p.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"schedlab {' '.join(args)} --json printed no JSON (exit {p.returncode}):\n{p.stdout}\n{p.stderr}")


def test_every_schema_is_a_valid_schema() -> None:
    names = sorted(p.name for p in SCHEMAS.glob("*.schema.json"))
    assert "error.schema.json" in names and len(names) >= 10
    for p in SCHEMAS.glob("*.schema.json"):
        jsonschema.Draft202012Validator.check_schema(json.loads(p.read_text()))


@pytest.fixture
def work(tmp_path: Path, schedlab_exe: Path) -> Path:
    subprocess.run([str(schedlab_exe), "gen", "--seed", "7", "-o", "set.yaml"], cwd=tmp_path, check=True)
    (tmp_path / "hard.yaml").write_text(
        "platform: {cpus: 4}\npolicy: {name: gedf}\ntasks:\n"
        + "".join(f"  - {{name: h{i}, wcet: 6.5ms, period: 10ms}}\n" for i in range(5))
        + "  - {name: a, wcet: 2ms, period: 10ms}\n  - {name: b, wcet: 2ms, period: 10ms}\n"
        + "  - {name: c, wcet: 1.5ms, period: 10ms}\n"
    )
    (tmp_path / "bad.yaml").write_text("platform: {cpus: 2}\ntasks:\n  - {name: a, wcet: 1ms, perod: 3ms}\n")
    return tmp_path


def test_each_verb_has_one_shape_whatever_the_outcome(work: Path, schedlab_exe: Path) -> None:
    cases: list[tuple[str, list[str], int]] = [
        ("gen", ["gen", "--seed", "3"], 0),
        ("check", ["check", "set.yaml"], 0),
        ("analyze", ["analyze", "set.yaml"], 0),
        ("analyze", ["analyze", "hard.yaml"], 1),
        ("analyze", ["analyze", "set.yaml", "--policy", "np-gedf", "--all"], 1),
        ("partition", ["partition", "set.yaml", "--policy", "pedf", "-o", "pinned.yaml"], 0),
        ("partition", ["partition", "hard.yaml", "--policy", "pedf"], 1),
        ("simulate", ["simulate", "pinned.yaml", "--horizon", "200ms", "--trace", "t.jsonl", "--validate"], 0),
        ("simulate", ["simulate", "hard.yaml", "--horizon", "200ms", "--fail-on-miss"], 1),
        ("validate", ["validate", "t.jsonl"], 0),
        ("stats", ["stats", "t.jsonl"], 0),
        ("export", ["export", "t.jsonl", "--svg", "out/t.svg"], 0),
        ("reduce", ["reduce", "set.yaml"], 0),
        ("tests", ["tests"], 0),
    ]
    for verb, args, code in cases:
        got, doc = run(schedlab_exe, work, *args)
        assert got == code, (args, doc)
        check(verb, doc)


def test_errors_have_one_shape(work: Path, schedlab_exe: Path) -> None:
    (work / "junk.jsonl").write_text("junk\n")
    for args in [
        ["check", "bad.yaml"],
        ["analyze", "bad.yaml"],
        ["analyze", "set.yaml", "--policy", "nope"],
        ["simulate", "set.yaml", "--set", "quantum=1ms"],
        ["partition", "set.yaml"],
        ["validate", "junk.jsonl"],
        ["stats", "junk.jsonl"],
        ["export", "junk.jsonl", "--csv", "x.csv"],
        ["gen", "--utils", "nope"],
        ["simulate", "--bogus"],
    ]:
        got, doc = run(schedlab_exe, work, *args)
        assert got == 2, (args, doc)
        check("error", doc)
    _, doc = run(schedlab_exe, work, "check", "bad.yaml")
    assert doc["error"]["path"] == "tasks[0].perod" and doc["error"]["line"] == 3
    _, doc = run(schedlab_exe, work, "simulate", "set.yaml", "--set", "quantum=1ms")
    assert doc["error"]["path"] == "--set" and "gedf" in doc["error"]["message"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="a real run needs root")
def test_run_has_one_shape(work: Path, schedlab_exe: Path) -> None:
    (work / "light.yaml").write_text(
        "platform: {cpus: 2}\npolicy: {name: gedf}\ntasks:\n"
        "  - {name: a, wcet: 1ms, period: 20ms}\n  - {name: b, wcet: 1ms, period: 30ms}\n"
    )
    got, doc = run(schedlab_exe, work, "run", "light.yaml", "--duration", "300ms", "--backend", "dispatch", "--wait")
    assert got in (0, 1), doc
    check("run", doc)
    assert doc["run"]["backend"] == "dispatch"
