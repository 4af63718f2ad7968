"""Loading specs from files and text, YAML and JSON."""

from __future__ import annotations

from pathlib import Path

import pytest

import schedlab


def test_loads_yaml_and_json_give_the_same_task_set(small_yaml: str, small_json: str) -> None:
    a = schedlab.loads(small_yaml)
    b = schedlab.loads(small_json)
    assert a == b
    assert a.file == "<string>"
    assert a.names == ("fast", "slow")


def test_format_is_detected_or_forced(small_yaml: str, small_json: str) -> None:
    assert schedlab.loads(small_json, "json") == schedlab.loads(small_yaml, format="yaml")
    # JSON is also YAML, so forcing YAML on JSON text works too.
    assert schedlab.loads(small_json, format="yaml") == schedlab.loads(small_json)
    with pytest.raises(schedlab.SpecError) as e:
        schedlab.loads(small_yaml, format="json")
    assert "not valid JSON" in e.value.message
    assert e.value.line == 1


def test_unknown_format_is_a_value_error(small_yaml: str) -> None:
    with pytest.raises(ValueError, match="format must be"):
        schedlab.loads(small_yaml, format="toml")


def test_loads_wants_text() -> None:
    with pytest.raises(TypeError, match="str"):
        schedlab.loads(b"platform: {cpus: 1}")  # type: ignore[arg-type]


def test_file_name_is_used_in_errors() -> None:
    with pytest.raises(schedlab.SpecError) as e:
        schedlab.loads("platform: {cpus: 1}\ntasks: []\n", file="mine.yaml")
    assert e.value.file == "mine.yaml"
    assert str(e.value).startswith("mine.yaml:2:")


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".json"])
def test_load_files(tmp_path: Path, small_yaml: str, small_json: str, suffix: str) -> None:
    p = tmp_path / f"set{suffix}"
    p.write_text(small_json if suffix == ".json" else small_yaml, encoding="utf-8")
    ts = schedlab.load(p)
    assert ts.file == str(p)
    assert ts == schedlab.loads(small_yaml)
    assert schedlab.load(str(p)) == ts


def test_load_demo(demo_path: Path) -> None:
    ts = schedlab.load(demo_path)
    assert len(ts) == 7
    assert ts.policy is not None and ts.policy.name == "cedf"
    assert ts.platform.clusters == ((0, 1), (2, 3))
    assert ts.warnings == ()


def test_load_json_by_extension_only(tmp_path: Path, small_yaml: str) -> None:
    p = tmp_path / "set.json"
    p.write_text(small_yaml, encoding="utf-8")
    with pytest.raises(schedlab.SpecError, match="not valid JSON"):
        schedlab.load(p)


def test_load_missing_file(tmp_path: Path) -> None:
    p = tmp_path / "nope.yaml"
    with pytest.raises(schedlab.SpecError) as e:
        schedlab.load(p)
    assert e.value.file == str(p)
    assert "cannot read" in e.value.message
    assert e.value.line is None


def test_load_folder(tmp_path: Path) -> None:
    with pytest.raises(schedlab.SpecError, match="folder"):
        schedlab.load(tmp_path)


def test_load_wants_a_path() -> None:
    with pytest.raises(TypeError, match="path"):
        schedlab.load(42)  # type: ignore[arg-type]


def test_overhead_file_must_exist(tmp_path: Path) -> None:
    text = "platform: {cpus: 1}\noverheads: oh.csv\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n"
    p = tmp_path / "s.yaml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(schedlab.SpecError) as e:
        schedlab.load(p)
    assert (e.value.path, e.value.line) == ("overheads", 2)
    (tmp_path / "oh.csv").write_text("", encoding="utf-8")
    assert schedlab.load(p).overheads == "oh.csv"


def test_warnings_are_kept() -> None:
    ts = schedlab.loads("platform: {cpus: 1}\ntasks:\n  - {name: a, wcet: 20ms, period: 10ms}\n")
    paths = [w.path for w in ts.warnings]
    assert paths == ["tasks[0].wcet", "tasks"]
    assert ts.warnings[0].line == 3
    assert "exceeds the deadline" in ts.warnings[0].message
    assert ts.warnings[0].render("f.yaml").startswith("f.yaml:3:")
