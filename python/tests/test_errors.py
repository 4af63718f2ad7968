"""Every kind of bad spec raises SpecError with the right path, line and column."""

from __future__ import annotations

import pickle

import pytest

import schedlab
from schedlab import Diagnostic, SpecError

HEAD = "platform: {cpus: 2}\ntasks:\n"


def _err(text: str) -> SpecError:
    with pytest.raises(SpecError) as e:
        schedlab.loads(text)
    return e.value


def test_unknown_key_with_did_you_mean() -> None:
    e = _err(HEAD + "  - {name: a, wcet: 1ms, perod: 10ms}\n")
    assert e.path == "tasks[0].perod"
    assert (e.line, e.column) == (3, 26)
    assert "unknown key `perod`" in e.message
    assert "did you mean `period`?" in e.message


def test_unknown_top_level_key() -> None:
    e = _err("platfrom: {cpus: 2}\ntasks: []\n")
    assert e.path == "platfrom"
    assert e.line == 1
    assert "did you mean `platform`?" in e.message


def test_unknown_policy_name() -> None:
    e = _err("platform: {cpus: 2}\npolicy: {name: gedff}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n")
    assert e.path == "policy.name"
    assert e.line == 2
    assert "did you mean `gedf`?" in e.message


def test_missing_field() -> None:
    e = _err(HEAD + "  - name: a\n    period: 10ms\n")
    assert e.path == "tasks[0]"
    assert e.line == 3
    assert "`wcet` is missing" in e.message


def test_missing_platform() -> None:
    e = _err("tasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n")
    assert "`platform` is missing" in e.message


@pytest.mark.parametrize(
    ("task", "path", "column", "words"),
    [
        ("{name: a, wcet: 10, period: 10ms}", "tasks[0].wcet", 21, "has no unit"),
        ("{name: a, wcet: 1ms, period: 10 hours}", "tasks[0].period", 34, "unknown unit `hours`"),
        ("{name: a, wcet: 1ms, period: 10ms, wss: 64KB}", "tasks[0].wss", 45, "write `KiB`"),
        ("{name: a, wcet: -1ms, period: 10ms}", "tasks[0].wcet", 21, "-1ms"),
    ],
)
def test_bad_unit(task: str, path: str, column: int, words: str) -> None:
    e = _err(HEAD + f"  - {task}\n")
    assert e.path == path
    assert (e.line, e.column) == (3, column)
    assert words in e.message


def test_duplicate_name() -> None:
    e = _err(HEAD + "  - {name: a, wcet: 1ms, period: 10ms}\n  - {name: a, wcet: 2ms, period: 10ms}\n")
    assert e.path == "tasks[1].name"
    assert (e.line, e.column) == (4, 12)
    assert "already the name of tasks[0]" in e.message


def test_cpu_out_of_range() -> None:
    e = _err(HEAD + "  - {name: a, wcet: 1ms, period: 10ms, cpu: 5}\n")
    assert e.path == "tasks[0].cpu"
    assert (e.line, e.column) == (3, 45)
    assert "CPU 5 does not exist" in e.message
    assert "0 to 1" in e.message


def test_every_problem_is_reported_and_str_reads_like_the_cli() -> None:
    e = _err(
        HEAD
        + "  - {name: a, wcet: 1ms, period: 10ms, cpu: 5}\n"
        + "  - {name: a, wcet: 0, period: 10ms}\n"
    )
    assert [d.path for d in e.diagnostics] == ["tasks[0].cpu", "tasks[1].name", "tasks[1].wcet"]
    assert all(isinstance(d, Diagnostic) for d in e.diagnostics)
    lines = str(e).splitlines()
    assert len(lines) == 3
    assert lines[0] == "<string>:3:45: tasks[0].cpu: CPU 5 does not exist; the platform has CPUs 0 to 1"
    assert lines[2].startswith("<string>:4:21: tasks[1].wcet: must be more than 0")


def test_json_errors_have_lines() -> None:
    text = '{"platform": {"cpus": 2},\n "tasks": [{"name": "a", "wcet": "1ms", "period": "10ms", "prio": 1}]}'
    e = _err(text)
    assert e.path == "tasks[0].prio"
    assert e.line == 2


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("platform: {cpus: 2\ntasks: []\n", 2, "not valid YAML"),
        ('{"platform": {"cpus": 2},\n "tasks": [}', 2, "not valid JSON"),
        ("- a\n- b\n", 1, "a spec is a mapping"),
        ("", None, "empty"),
    ],
)
def test_documents_that_are_not_specs(text: str, line: int | None, words: str) -> None:
    e = _err(text)
    assert e.path == ""
    assert e.line == line
    assert words in e.message


def test_spec_error_is_a_value_error_and_pickles() -> None:
    e = _err(HEAD + "  - {name: a, wcet: 1ms, period: 10ms, cpu: 5}\n")
    assert isinstance(e, ValueError)
    back = pickle.loads(pickle.dumps(e))
    assert isinstance(back, SpecError)
    assert (back.file, back.diagnostics) == (e.file, e.diagnostics)
    assert str(back) == str(e)


def test_spec_error_can_be_raised_from_python() -> None:
    e = SpecError("x.yaml", [{"path": "tasks", "line": 2, "column": None, "message": "bad"}])
    assert str(e) == "x.yaml:2: tasks: bad"
    assert e.column is None
    e = SpecError("x.yaml", [Diagnostic("", None, None, "unreadable")])
    assert str(e) == "x.yaml: unreadable"
    with pytest.raises(ValueError, match="at least one"):
        SpecError("x.yaml", [])
