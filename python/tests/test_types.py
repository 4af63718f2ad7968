"""The dataclasses: values in nanoseconds and bytes, defaults, the container
protocol, writers and the round trip through the Rust core."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from pathlib import Path

import pytest

import schedlab
from schedlab import KIB, MIB, MS, US, Cache, Memory, Meta, Platform, Policy, Segment, Task, TaskSet


def test_values_are_nanoseconds_and_bytes(small_yaml: str) -> None:
    ts = schedlab.loads(small_yaml)
    fast = ts["fast"]
    assert fast == Task(
        name="fast", wcet=250 * US, period=5 * MS, deadline=4 * MS, cpu=1, wss=32 * KIB, colors=((0, 3), (7, 7))
    )
    assert (fast.wcet, fast.period, fast.deadline) == (250_000, 5_000_000, 4_000_000)
    assert fast.wss == 32768
    assert ts.platform == Platform(cpus=2, cache=Cache(size=2 * MIB, ways=8, line=64))
    assert ts.policy == Policy(name="pfp", priorities="dm")
    assert ts.meta == Meta(description="two tasks")


def test_defaults_are_filled_in(small_yaml: str) -> None:
    slow = schedlab.loads(small_yaml)["slow"]
    assert slow.wcet == 1_500_000
    assert slow.deadline == slow.period == 20 * MS  # effective deadline
    assert (slow.offset, slow.jitter) == (0, 0)
    assert (slow.priority, slow.cpu, slow.cluster, slow.wss, slow.colors) == (None,) * 5
    assert slow.class_ == "hrt"
    cache = schedlab.loads(small_yaml).platform.cache
    assert cache is not None
    assert cache.page == 4 * KIB
    assert cache.colors == 2 * MIB // (8 * 4 * KIB) == 64
    assert Task("t", 1, 10).deadline == 10
    assert Cache(size=8 * MIB, ways=16, line=64).colors == 128


def test_explicit_optional_fields() -> None:
    ts = schedlab.loads(
        "platform: {cpus: 4, clusters: [[0, 1], [2, 3]], cache: {size: 8MiB, ways: 16, line: 64B, page: 8KiB, colors: 32}}\n"
        "policy: {name: pd2, quantum: 500us}\n"
        "tasks:\n"
        "  - {name: a, wcet: 1ms, period: 10ms, offset: 2ms, jitter: 3us, cluster: 1, priority: 4, class: srt}\n"
    )
    a = ts["a"]
    assert (a.offset, a.jitter, a.cluster, a.priority, a.class_) == (2 * MS, 3 * US, 1, 4, "srt")
    assert ts.platform.cache == Cache(size=8 * MIB, ways=16, line=64, page=8 * KIB, colors=32)
    assert ts.policy == Policy(name="pd2", quantum=500 * US)


def test_container_protocol(demo_path: object) -> None:
    ts = schedlab.load(demo_path)  # type: ignore[arg-type]
    assert len(ts) == 7
    assert [t.name for t in ts] == list(ts.names)
    assert ts[0] is ts.tasks[0]
    assert ts["decode"].wcet == 6 * MS
    assert "decode" in ts and "nope" not in ts
    with pytest.raises(KeyError, match="did you mean 'decode'"):
        ts["decod"]
    with pytest.raises(TypeError):
        ts[1.5]  # type: ignore[index]


def test_frozen(small_yaml: str) -> None:
    ts = schedlab.loads(small_yaml)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ts.tasks[0].wcet = 1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ts.platform = Platform(cpus=1)  # type: ignore[misc]
    hash(ts)


def test_utilization_and_summary(demo_path: object) -> None:
    ts = schedlab.load(demo_path)  # type: ignore[arg-type]
    assert ts.utilization_exact == Fraction(233, 200)
    assert ts.utilization == pytest.approx(1.165)
    s = ts.summary()
    assert s["utilization"] == pytest.approx(ts.utilization)
    assert s["utilization_exact"] == "233/200"
    assert s["tasks"] == 7 and s["cpus"] == 4 and s["policy"] == "cedf"
    assert s["hyperperiod"] == "200ms"
    assert s["deadlines"] == "constrained"
    assert [r["name"] for r in s["rows"]] == list(ts.names)
    assert ts["decode"].utilization == pytest.approx(0.3)
    assert ts["filter"].density == pytest.approx(3.5 / 15)


def test_writers_round_trip(demo_path: object) -> None:
    ts = schedlab.load(demo_path)  # type: ignore[arg-type]
    y = ts.to_yaml()
    assert y == ts.to_yaml()
    assert "wcet: 3.5ms" in y
    assert schedlab.loads(y) == ts
    j = ts.to_json()
    assert json.loads(j) == ts.to_dict()
    assert ts.to_dict()["tasks"][2]["deadline"] == "15ms"
    assert schedlab.loads(j) == ts
    assert schedlab.loads(y).to_yaml() == y


def test_built_in_python(small_yaml: str) -> None:
    ts = TaskSet(
        platform=Platform(cpus=2, cache=Cache(size=2 * MIB, ways=8, line=64)),
        policy=Policy(name="pfp", priorities="dm"),
        meta=Meta(description="two tasks"),
        tasks=[
            Task("fast", 250 * US, 5 * MS, deadline=4 * MS, cpu=1, wss=32 * KIB, colors=[(0, 3), 7]),  # type: ignore[list-item]
            Task("slow", 1_500_000, 20 * MS),
        ],
    )
    loaded = schedlab.loads(small_yaml)
    assert ts == loaded
    assert ts.file is None
    assert ts.to_yaml() == loaded.to_yaml()
    assert ts.summary() == loaded.summary()


def test_changed_copies_are_written_from_their_fields(small_yaml: str) -> None:
    ts = schedlab.loads(small_yaml)
    fast = dataclasses.replace(ts["fast"], wcet=2 * MS, deadline=5 * MS)
    changed = dataclasses.replace(ts, tasks=(fast, ts["slow"]))
    y = changed.to_yaml()
    # Defaults were filled in as values: the BCET stays what it was (250us).
    assert "{name: fast, wcet: 2ms, period: 5ms, bcet: 250us, cpu: 1" in y
    assert schedlab.loads(y)["fast"].wcet == 2 * MS
    assert changed.summary()["utilization"] == pytest.approx(0.4 + 0.075)


def test_invalid_sets_built_in_python_raise_spec_error() -> None:
    ts = TaskSet(platform=Platform(cpus=2), tasks=(Task("a", 0, 10 * MS), Task("a", 1 * MS, 10 * MS, cpu=7)))
    with pytest.raises(schedlab.SpecError) as e:
        ts.to_yaml()
    assert e.value.file == "<taskset>"
    assert [d.path for d in e.value.diagnostics] == ["tasks[0].wcet", "tasks[1].name", "tasks[1].cpu"]
    assert e.value.line is None
    assert str(e.value).startswith("<taskset>: tasks[0].wcet: must be more than 0")
    with pytest.raises(schedlab.SpecError):
        ts.summary()


def test_bcet_and_executions() -> None:
    ts = schedlab.loads(
        "platform: {cpus: 1}\ntasks:\n"
        "  - {name: a, wcet: 2ms, period: 10ms, bcet: 1ms, executions: [2ms, 1.5ms, 1ms]}\n"
        "  - {name: b, wcet: 2ms, period: 10ms}\n"
    )
    assert ts["a"].bcet == 1 * MS
    assert ts["a"].executions == (2 * MS, 1_500_000, 1 * MS)
    assert ts["b"].bcet == ts["b"].wcet == 2 * MS  # default: the WCET
    assert ts["b"].executions is None
    rebuilt = dataclasses.replace(ts, tasks=ts.tasks)
    assert rebuilt.to_yaml() == ts.to_yaml()


# The Python objects must hold every field of the spec, or a set loaded and
# written back from Python would silently lose data.
_PY_FIELDS = {
    "Task": (Task, {"class_": "class"}),
    "Platform": (Platform, {}),
    "Cache": (Cache, {}),
    "Memory": (Memory, {}),
    "PolicySpec": (Policy, {}),
    "Meta": (Meta, {}),
}


@pytest.mark.parametrize("schema_name", sorted(_PY_FIELDS))
def test_objects_cover_every_spec_field(schema_name: str) -> None:
    cls, renamed = _PY_FIELDS[schema_name]
    schema = schedlab.schema()["$defs"][schema_name]
    # The policy section is a union tagged by `name`: the Python object
    # holds the keys of every policy.
    variants = schema.get("oneOf", [schema])
    spec_fields = {key for v in variants for key in v["properties"]}
    py_fields = {renamed.get(f.name, f.name) for f in dataclasses.fields(cls)}
    assert spec_fields == py_fields


def test_task_set_covers_every_top_level_field() -> None:
    spec_fields = set(schedlab.schema()["properties"])
    py_fields = {f.name for f in dataclasses.fields(TaskSet) if f.init} - {"warnings", "file"}
    assert spec_fields == py_fields


def test_segments_and_subjobs_survive_a_copy(repo: Path) -> None:
    ts = schedlab.load(repo / "examples" / "segments.yaml")
    cam = ts["camera"]
    assert cam.segments == (
        Segment("memory", 300 * US),
        Segment("exec", 2400 * US, preemptible=False),
        Segment("suspend", 1 * MS),
        Segment("memory", 300 * US),
    )
    assert cam.wcet == 3 * MS, "derived from the CPU segments"
    assert ts["control"].subjobs == (1 * MS, 1500 * US, 500 * US)
    assert ts["logger"].segments is None and ts["logger"].subjobs is None
    # A copy is written from its fields: the segments are among them.
    copy = dataclasses.replace(ts, meta=None)
    assert copy.summary() == ts.summary()
    again = schedlab.loads(copy.to_yaml())
    assert again["camera"].segments == cam.segments
    assert again["control"].subjobs == ts["control"].subjobs


def test_platform_model_fields_survive_a_copy() -> None:
    ts = schedlab.loads(
        "platform: {cpus: 4, cache: {size: 8MiB, ways: 16, line: 64B, shared_by: [[0, 1], [2, 3]], private: 128KiB},"
        " memory: {bandwidth: 16GiB/s}}\ntasks:\n"
        "  - {name: a, wcet: 1ms, period: 10ms, wss: 64KiB, colors: [0-3], write_ratio: 0.2, data_group: g0}\n"
        "  - {name: b, wcet: 1ms, period: 10ms, write_ratio: 33%}\n"
    )
    cache = ts.platform.cache
    assert cache.shared_by == ((0, 1), (2, 3)) and cache.private == 128 * KIB
    assert ts.platform.memory == Memory(bandwidth=16 * 1024 * MIB)
    assert (ts["a"].write_ratio, ts["a"].data_group) == (0.2, "g0")
    assert (ts["b"].write_ratio, ts["b"].data_group) == (0.33, None)
    # Rebuilt in Python (no source text), the fields reach the core.
    rebuilt = dataclasses.replace(ts, tasks=tuple(dataclasses.replace(t) for t in ts.tasks))
    assert rebuilt.to_yaml() == ts.to_yaml()
    again = schedlab.loads(rebuilt.to_yaml())
    assert again.platform == ts.platform and again.tasks == ts.tasks


def test_prem_fields_load_and_survive_a_copy(repo: Path) -> None:
    ts = schedlab.load(repo / "examples" / "mcs-two-cpus.yaml")
    assert ts.policy == Policy(name="mcs", master=1)
    assert (ts["blur"].memory_priority, ts["blur"].memory_mode) == (1, "amp")
    assert (ts["sum"].memory_priority, ts["sum"].memory_mode) == (2, None)
    policy = dataclasses.replace(ts.policy, mps=False, memory_preemption=False)
    tasks = tuple(dataclasses.replace(t, memory_mode="smp") for t in ts.tasks)
    again = schedlab.loads(dataclasses.replace(ts, policy=policy, tasks=tasks).to_yaml())
    assert (again.policy.master, again.policy.mps, again.policy.memory_preemption) == (1, False, False)
    assert [t.memory_mode for t in again] == ["smp", "smp"]


def test_reservations_load_and_survive_a_copy(repo: Path) -> None:
    ts = schedlab.load(repo / "examples" / "reservations.yaml")
    assert ts.reservations is not None
    media, control = ts.reservations
    assert (media.name, media.budget, media.period, media.tasks) == ("media", 4 * MS, 10 * MS, ("video",))
    assert media.leaf_budget == 2 * MS and media.leaf_period is None
    (sound,) = media.groups
    assert (sound.name, sound.budget, sound.period, sound.tasks) == ("sound", 1 * MS, 5 * MS, ("audio", "mixer"))
    assert control.tasks == ("loop",)
    # A copy is written from its fields: the groups are among them.
    copy = dataclasses.replace(ts, meta=None)
    assert copy.summary()["groups"] == ts.summary()["groups"]
    again = schedlab.loads(copy.to_yaml())
    assert again.reservations == ts.reservations
    # Built in Python, per-CPU budgets included; a bad tree is refused with its path.
    g = schedlab.Group("g", period=10 * MS, budgets=(2 * MS, 0), tasks=["video"])
    built = dataclasses.replace(ts, reservations=(g,))
    assert built.summary()["groups"][0]["budget"] == "2ms, 0ns"
    bad = dataclasses.replace(ts, reservations=(schedlab.Group("g", period=10 * MS, budget=11 * MS, tasks=["video"]),))
    with pytest.raises(schedlab.SpecError, match=r"reservations\[0\]\.budget"):
        bad.summary()
