"""`--json` on every verb: one shape per verb whatever the outcome, each
checked against its JSON Schema in docs/schemas/, and one error shape
(docs/schemas/error.schema.json) with the exit code of the text mode."""

from __future__ import annotations

import json
import os
import struct
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
        ("analyze", ["analyze", str(REPO / "examples" / "reservations.yaml"), "--test", "hcbs.msf"], 1),
        ("analyze", ["analyze", str(REPO / "examples" / "reservations.yaml"), "--select-budgets"], 1),
        ("analyze", ["analyze", str(REPO / "examples" / "reservations.yaml"), "--select-budgets", "--period", "2ms"], 0),
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


def ftrace_text() -> str:
    """A small sched_switch / sched_wakeup recording of two SCHED_FIFO threads."""
    lines = ["# tracer: nop", "#"]

    def ts(us: int) -> str:
        return f"{100 + us // 1_000_000}.{us % 1_000_000:06d}"

    def sw(t: int, cpu: int, pc: str, pp: int, ppr: int, st: str, nc: str, np: int, npr: int) -> None:
        lines.append(
            f"{pc}-{pp} [{cpu:03d}] d..2. {ts(t)}: sched_switch: prev_comm={pc} prev_pid={pp} prev_prio={ppr} "
            f"prev_state={st} ==> next_comm={nc} next_pid={np} next_prio={npr}"
        )

    def wk(t: int, cpu: int, c: str, p: int, pr: int) -> None:
        lines.append(f"<idle>-0 [{cpu:03d}] dNh3. {ts(t)}: sched_wakeup: comm={c} pid={p} prio={pr} target_cpu={cpu:03d}")

    sw(0, 0, "swapper/0", 0, 120, "R", "hi", 10, 89)
    sw(100, 0, "hi", 10, 89, "S", "lo", 11, 90)
    sw(200, 0, "lo", 11, 90, "S", "swapper/0", 0, 120)
    for k in range(10):
        base = 1000 + k * 8000
        wk(base, 0, "hi", 10, 89)
        wk(base + 2, 1, "lo", 11, 90)
        sw(base + 10, 0, "swapper/0", 0, 120, "R", "hi", 10, 89)
        sw(base + 12, 1, "swapper/1", 0, 120, "R", "lo", 11, 90)
        sw(base + 1010, 0, "hi", 10, 89, "S", "swapper/0", 0, 120)
        sw(base + 2012, 1, "lo", 11, 90, "S", "swapper/1", 0, 120)
    return "\n".join(lines) + "\n"


def test_import_export_sweep_plot_completions_have_one_shape(work: Path, schedlab_exe: Path) -> None:
    examples = REPO / "examples"
    (work / "ft.yaml").write_text(
        "platform: {cpus: 2}\npolicy: {name: gfp, priorities: rm}\ntasks:\n"
        "  - {name: hi, wcet: 1ms, period: 4ms}\n  - {name: lo, wcet: 2ms, period: 8ms}\n"
    )
    (work / "trace.txt").write_text(ftrace_text())
    # feather-trace: a context switch of 3000 cycles, a decision of 1500 (docs/interop.md)
    samples = [(10_000, 104), (13_000, 105), (20_000, 100), (21_500, 101)]
    (work / "ft-cpu0.bin").write_bytes(
        b"".join(struct.pack("<QIBBBx", t, seq, 0, ev, 1) for seq, (t, ev) in enumerate(samples))
    )
    (work / "junk.bin").write_bytes(b"\x01\x02\x03")
    spec = str(examples / "control-loop.yaml")
    cases: list[tuple[str, list[str], int]] = [
        ("simulate", ["simulate", spec, "--horizon", "100ms", "--trace", "t.jsonl"], 0),
        ("export", ["export", "rt-app", spec, "--duration", "1s", "-o", "out/w.json"], 0),
        ("export", ["export", "rt-app", spec, "--duration", "1s"], 0),
        ("export", ["export", "simso", spec, "-o", "out/c.xml"], 0),
        ("export", ["export", "sched-trace", "t.jsonl", "-o", "st"], 0),
        ("import", ["import", "rt-app", "out/w.json", "--cpus", "2", "-o", "from-rtapp.yaml"], 0),
        ("import", ["import", "simso", "out/c.xml"], 0),
        ("import", ["import", "sched-trace", "st/st-0.bin", "st/st-1.bin", "--plugin", "GSN-EDF", "-o", "b.jsonl"], 0),
        ("import", ["import", "ftrace", "trace.txt", "--spec", "ft.yaml", "-o", "ft.jsonl"], 0),
        ("import", ["import", "feather-trace", "ft-cpu0.bin", "--tasks", "4", "--cycles-per-us", "1000"], 0),
        ("sweep", ["sweep", str(examples / "sweep.yaml"), "--dry-run"], 0),
        ("sweep", ["sweep", str(examples / "sweep.yaml"), "--samples", "1", "-o", "rows.csv"], 0),
        ("plot", ["plot", "rows.csv", "-o", "out/fig.svg"], 0),
        ("report", ["report", "rows.csv", "-o", "out/r.html"], 0),
        ("completions", ["completions", "bash"], 0),
        ("completions", ["completions", "fish", "-o", "out/schedlab.fish"], 0),
        ("man", ["man"], 0),
    ]
    for verb, args, code in cases:
        got, doc = run(schedlab_exe, work, *args)
        assert got == code, (args, doc)
        check(verb, doc)
        if "-o" in args:
            assert doc.get("text") is None or verb in ("completions", "man"), args
    _, doc = run(schedlab_exe, work, "export", "rt-app", spec, "--duration", "1s")
    assert doc["written"] == [] and json.loads(doc["text"])["tasks"], "the workload rides in the document"
    _, doc = run(schedlab_exe, work, "import", "simso", "out/c.xml")
    assert "tasks:" in doc["text"] and doc["tasks"] == 4
    assert (work / "out" / "schedlab.fish").read_text() == run(schedlab_exe, work, "completions", "fish")[1]["text"]
    for args, code in [
        (["import", "rt-app", "junk.bin", "--cpus", "2"], 2),
        (["import", "simso", "junk.bin"], 2),
        (["import", "sched-trace", "junk.bin", "--plugin", "GSN-EDF", "-o", "x.jsonl"], 2),
        (["import", "ftrace", "junk.bin", "--spec", "ft.yaml", "-o", "x.jsonl"], 2),
        (["import", "feather-trace", "junk.bin", "--tasks", "4", "--cycles-per-us", "1000"], 2),
        (["export", "rt-app", "bad.yaml"], 2),
        (["export", "sched-trace", "junk.bin", "-o", "st2"], 2),
        (["sweep", "bad.yaml", "--dry-run"], 2),
        (["plot", "missing.csv", "-o", "f.svg"], 2),
        (["report", "missing.csv", "-o", "r.html"], 2),
        (["completions", "tcsh"], 2),
    ]:
        got, doc = run(schedlab_exe, work, *args)
        assert got == code, (args, doc)
        check("error", doc)
    assert not (work / "x.jsonl").exists() and not (work / "st2").exists()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="probes and measurements need root")
def test_root_verbs_have_one_shape(work: Path, schedlab_exe: Path) -> None:
    got, doc = run(schedlab_exe, work, "restore", "--wait")
    assert got in (0, 1), doc
    check("restore", doc)
    assert doc["complete"] == (got == 0)
    got, doc = run(schedlab_exe, work, "probe", "latency", "--duration", "200ms", "--no-load")
    assert got == 0, doc
    check("probe", doc)
    got, doc = run(schedlab_exe, work, "overheads", "measure", "--sizes", "2", "--duration", "300ms", "-o", "oh.csv")
    assert got == 0, doc
    check("overheads", doc)
    assert doc["csv"] == (work / "oh.csv").read_text()
    for verb, args in [
        ("probe", ["probe", "latency", "--interval", "0"]),
        ("overheads", ["overheads", "measure", "--sizes", "4,2"]),
    ]:
        got, doc = run(schedlab_exe, work, *args)
        assert got == 2, (verb, doc)
        check("error", doc)
