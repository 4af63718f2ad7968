"""The JSON Schemas of the spec's policy section and of the trace: the
shipped examples match the spec schema, whose policy section is a union
tagged by `name` (a parameter of another policy fails it); every line of
simulated traces (RUN's `server` events, FPDS's preemption points, segment
ends and suspensions) matches the trace header and event schemas."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml


def validator(repo: Path, name: str) -> jsonschema.Draft202012Validator:
    path = repo / "docs" / name
    return jsonschema.Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))


def test_every_example_matches_the_spec_schema(repo: Path) -> None:
    v = validator(repo, "spec.schema.json")
    examples = [p for p in sorted((repo / "examples").glob("*.yaml")) if p.name != "sweep.yaml"]
    assert len(examples) >= 7
    for p in examples:
        v.validate(yaml.safe_load(p.read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    "policy, ok",
    [
        ({"name": "pd2", "quantum": "500us", "stagger": True}, True),
        ({"name": "pfp", "partitioning": "ffd", "priorities": "dm"}, True),
        ({"name": "run", "partitioning": "wf", "slack": "greedy"}, True),
        ({"name": "pfp", "quantum": "1ms"}, False),
        ({"name": "gedf", "partitioning": "ffd"}, False),
        ({"name": "run", "partitioning": "cap"}, False),
        ({"name": "nope"}, False),
    ],
)
def test_the_policy_section_is_tagged_by_name(repo: Path, policy: dict, ok: bool) -> None:
    spec = {"platform": {"cpus": 2}, "policy": policy, "tasks": [{"name": "a", "wcet": "1ms", "period": "4ms"}]}
    assert validator(repo, "spec.schema.json").is_valid(spec) == ok


@pytest.mark.parametrize(
    "example, args, expect",
    [
        ("run.yaml", ["--horizon", "20ms"], {"policy:server"}),
        ("fpds-camera.yaml", [], {"policy:preemption-point", "segment-end"}),
        ("segments.yaml", ["--policy", "fpds", "--horizon", "40ms"], {"segment-end", "block", "resume"}),
    ],
)
def test_simulated_traces_match_the_trace_schemas(
    repo: Path, schedlab_exe: Path, tmp_path: Path, example: str, args: list[str], expect: set[str]
) -> None:
    out = tmp_path / "t.jsonl"
    subprocess.run(
        [str(schedlab_exe), "simulate", str(repo / "examples" / example), *args, "--trace", str(out)],
        check=True,
        capture_output=True,
    )
    lines = out.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["schedlab_trace"] == 2
    validator(repo, "schemas/trace-header.schema.json").validate(header)
    events = validator(repo, "schemas/trace-event.schema.json")
    seen = set()
    for line in lines[1:]:
        e = json.loads(line)
        events.validate(e)
        seen.add(e["ev"] + (":" + e["kind"] if e["ev"] == "policy" else ""))
    assert expect <= seen, seen
    bad = {"ev": "policy", "t": 0, "kind": "server-replenish", "server": "S1"}
    assert not events.is_valid(bad), "a replenish without budget and deadline"
