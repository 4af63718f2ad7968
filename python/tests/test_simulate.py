"""schedlab.simulate and the trace functions: results, determinism, the
validator, exports, errors, and agreement with the `schedlab` command."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pandas as pd  # type: ignore[import-untyped, unused-ignore]
import pytest

import schedlab
from schedlab import MS, SimResult, SpecError

JOB_COLUMNS = {
    "task": "category",
    "task_index": "int64",
    "job": "int64",
    "release": "int64",
    "deadline": "int64",
    "start": "Int64",
    "finish": "Int64",
    "response": "Int64",
    "tardiness": "int64",
    "missed": "bool",
    "preemptions": "int64",
    "migrations": "int64",
    "exec": "int64",
    "status": "category",
}

DHALL = """\
# Dhall's effect: G-EDF misses at a utilisation of 1.31 on 2 CPUs.
platform: {{cpus: 2}}
policy: {{name: {policy}}}
tasks:
  - {{name: light1, wcet: 2ms, period: 10ms}}
  - {{name: light2, wcet: 2ms, period: 10ms}}
  - {{name: heavy, wcet: 10ms, period: 11ms}}
"""


def dhall(policy: str) -> schedlab.TaskSet:
    return schedlab.loads(DHALL.format(policy=policy))


@pytest.fixture(scope="module")
def demo() -> SimResult:
    return schedlab.simulate(Path(__file__).resolve().parents[2] / "examples" / "demo.yaml")


# -- the demo -----------------------------------------------------------------------------


def test_demo_has_no_misses_over_the_hyperperiod(demo: SimResult) -> None:
    s = demo.summary
    assert s["horizon"] == 200 * MS == demo.horizon
    assert s["jobs"] == 88 == len(demo.jobs)
    assert s["completed"] == 88
    assert s["misses"] == 0 and not demo.jobs["missed"].any()
    assert s["max_tardiness"] == 0
    assert (demo.jobs["status"] == "completed").all()
    assert demo.tasks["jobs"].to_dict() == {
        "capture": 20,
        "decode": 10,
        "filter": 10,
        "encode": 5,
        "control": 40,
        "telemetry": 2,
        "logger": 1,
    }
    assert demo.header["source"] == "simulator" and demo.header["seed"] == 0
    assert "SimResult cedf: 88 jobs, 0 misses" in repr(demo)


def test_job_columns_and_dtypes(demo: SimResult) -> None:
    jobs = demo.jobs
    assert {c: str(t) for c, t in jobs.dtypes.items()} == JOB_COLUMNS
    assert list(jobs["task"].cat.categories) == list(demo.task_names)
    assert list(jobs["status"].cat.categories) == ["completed", "aborted", "unfinished"]


def test_job_rows_are_consistent(demo: SimResult) -> None:
    jobs = demo.jobs
    assert list(zip(jobs["task_index"], jobs["job"], strict=True)) == sorted(zip(jobs["task_index"], jobs["job"], strict=True))
    assert (jobs.groupby("task_index")["job"].count() == jobs.groupby("task_index")["job"].max() + 1).all()
    assert (jobs["response"] == jobs["finish"] - jobs["release"]).all()
    assert (jobs["start"] >= jobs["release"]).all() and (jobs["finish"] <= jobs["deadline"]).all()
    wcet = {t.name: t.wcet for t in schedlab.load(Path(__file__).resolve().parents[2] / "examples" / "demo.yaml")}
    assert (jobs["exec"] == jobs["task"].map(wcet).astype("int64")).all()
    decode = jobs[jobs["task"] == "decode"]
    assert list(decode["release"]) == [i * 20 * MS for i in range(10)]
    assert list(decode["deadline"]) == [(i + 1) * 20 * MS for i in range(10)]


def test_tasks_cpus_and_summary_agree(demo: SimResult) -> None:
    tasks, cpus, s = demo.tasks, demo.cpus, demo.summary
    assert tasks.index.name == "task" and list(tasks.index) == list(demo.task_names)
    assert list(tasks.columns) == [
        "task_index", "placement", "jobs", "completed", "aborted", "unfinished", "misses", "miss_ratio",
        "max_response", "mean_response", "max_tardiness", "preemptions", "migrations", "exec",
    ]  # fmt: skip
    assert set(tasks["placement"]) == {"cluster 0", "cluster 1"}
    by_task = demo.jobs.groupby("task", observed=True)
    assert (by_task["response"].max().astype("int64") == tasks["max_response"].astype("int64")).all()
    assert (by_task["exec"].sum() == tasks["exec"]).all()
    assert tasks.loc["logger", "preemptions"] == s["preemptions"] == 1
    assert cpus.index.name == "cpu" and list(cpus.index) == [0, 1, 2, 3]
    assert list(cpus.columns[:4]) == ["busy", "utilization", "switches", "overhead"]
    assert {"tick", "context-switch", "cpmd"} <= set(cpus.columns)
    assert cpus["busy"].sum() == s["busy"] == demo.jobs["exec"].sum()
    assert cpus["utilization"].sum() == pytest.approx(s["utilization"])
    assert s["overhead"] == 0 and s["overheads"] == {}


def test_events(demo: SimResult) -> None:
    events = demo.events
    assert events is not None and len(events) == demo.summary["events"]
    assert events[0] == {"ev": "sys-release", "t": 0}
    assert sum(e["ev"] == "release" for e in events) == 88
    assert [e["t"] for e in events] == sorted(e["t"] for e in events)
    text = demo.to_jsonl()
    lines = text.splitlines()
    assert json.loads(lines[0]) == demo.header
    assert [json.loads(x) for x in lines[1:]] == events


# -- options and determinism ---------------------------------------------------------------------


def test_same_seed_same_jobs_other_seed_other_jobs(demo_path: Path) -> None:
    def run(seed: int) -> pd.DataFrame:
        return schedlab.simulate(demo_path, seed=seed, exec="uniform", sporadic="uniform:5ms", horizon="1s").jobs

    a = run(1)
    pd.testing.assert_frame_equal(a, run(1))
    b = run(2)
    assert not a.equals(b)
    assert not a["release"].equals(b["release"])


def test_durations_accept_ints_and_unit_strings(demo_path: Path) -> None:
    a = schedlab.simulate(demo_path, horizon=100 * MS, tick=MS)
    b = schedlab.simulate(demo_path, horizon="100ms", tick="1ms")
    assert a.horizon == b.horizon == 100 * MS
    pd.testing.assert_frame_equal(a.jobs, b.jobs)


def test_a_task_set_or_a_path(demo_path: Path) -> None:
    from_path = schedlab.simulate(demo_path)
    from_taskset = schedlab.simulate(schedlab.load(demo_path))
    pd.testing.assert_frame_equal(from_path.jobs, from_taskset.jobs)
    gen = schedlab.generate(seed=5, cpus=4, tasks=10, util=2.0, policy="gedf", periods="list:10ms,20ms,40ms")
    r = schedlab.simulate(gen, horizon="200ms")
    assert len(r.jobs) > 0 and r.validate().passed


def test_horizon_cap_and_jitter_mirror_the_command(demo_path: Path) -> None:
    assert schedlab.simulate(demo_path, horizon_cap="50ms").horizon == 50 * MS
    assert schedlab.simulate(demo_path, horizon="300ms", horizon_cap="50ms").horizon == 300 * MS
    jittery = schedlab.loads(
        "platform: {cpus: 1}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms, jitter: 2ms}\n"
    )
    with_jitter = schedlab.simulate(jittery, seed=4, horizon="1s").jobs
    without = schedlab.simulate(jittery, seed=4, horizon="1s", jitter=False).jobs
    assert list(without["release"]) == [i * 10 * MS for i in range(100)]
    assert not with_jitter["release"].equals(without["release"])


def test_matches_the_command(schedlab_exe: Path, demo_path: Path) -> None:
    args = ["--seed", "3", "--exec", "uniform", "--sporadic", "exponential:2ms", "--horizon", "500ms"]
    cli = subprocess.run(
        [str(schedlab_exe), "--json", "simulate", str(demo_path), *args],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    r = schedlab.simulate(demo_path, seed=3, exec="uniform", sporadic="exponential:2ms", horizon="500ms")
    doc = json.loads(cli.stdout)
    # The command adds what decides its exit code and the platform model's
    # figures (docs/schemas/simulate.schema.json).
    assert (doc.pop("validation"), doc.pop("failed"), doc.pop("hrt_misses")) == (None, None, r.hrt_misses)
    model = doc.pop("platform_model")
    assert [t["task"] for t in model["tasks"]] == [t["name"] for t in r.stats["tasks"]]
    assert r.stats == doc


# -- validation ------------------------------------------------------------------------------


def test_validate_passes(demo: SimResult) -> None:
    v = demo.validate()
    assert v.passed and v["pass"] is True
    assert v.first_violation is None
    assert v["policy"] == "cedf" and v["jobs"]["released"] == 88
    assert set(v.violations.values()) == {0}
    assert str(v).startswith("PASS: cedf")
    assert "PASS" in repr(v)
    assert dict(v) == v.to_dict()
    assert demo.validate(tolerance="1us", mode="generic")["policy_checks"] == "none"
    assert schedlab.validate(demo).passed


def test_validate_finds_a_broken_schedule(tmp_path: Path, demo: SimResult) -> None:
    lines = demo.to_jsonl().splitlines()
    # Move the first job of `control` (placed in cluster 0, CPUs 0-1) to CPU 3.
    i = next(i for i, x in enumerate(lines) if '"switch-to"' in x and '"task":4' in x)
    lines[i] = lines[i].replace('"cpu":0', '"cpu":3')
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n")
    v = schedlab.validate(path)
    assert not v.passed
    assert v.first_violation is not None and v.first_violation["message"]
    assert v.violations["placement"] > 0
    assert str(v).startswith("FAIL")


def test_dhall_effect_gedf_misses_pedf_does_not() -> None:
    g = schedlab.simulate(dhall("gedf"))
    assert g.summary["misses"] > 0
    assert g.tasks.loc["heavy", "misses"] > 0 and g.tasks.loc["light1", "misses"] == 0
    first = g.jobs[(g.jobs["task"] == "heavy") & (g.jobs["job"] == 0)].iloc[0]
    assert (first["start"], first["finish"], first["tardiness"]) == (2 * MS, 12 * MS, 1 * MS)
    assert g.validate().passed  # missing deadlines is what G-EDF does here
    p = schedlab.simulate(dhall("pedf"))
    assert p.summary["misses"] == 0
    assert p.tasks.loc["heavy", "placement"] != p.tasks.loc["light1", "placement"]
    assert p.validate().passed


def test_abort_at_the_deadline() -> None:
    r = schedlab.simulate(dhall("gedf"), miss="abort")
    aborted = r.jobs[r.jobs["status"] == "aborted"]
    assert len(aborted) > 0 and aborted["missed"].all()
    assert aborted["response"].isna().all() and aborted["finish"].notna().all()
    assert (aborted["finish"] == aborted["deadline"]).all()
    assert r.validate().passed


# -- exports ---------------------------------------------------------------------------------


def test_to_perfetto(tmp_path: Path, demo: SimResult) -> None:
    text = demo.to_perfetto()
    doc = json.loads(text)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    assert len(events) > 0
    assert any(e.get("ph") == "X" for e in events)
    path = tmp_path / "demo.perfetto.json"
    assert demo.to_perfetto(path) == text == path.read_text()


def test_gantt(tmp_path: Path, demo: SimResult) -> None:
    svg = demo.gantt()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    for name in demo.task_names:
        assert name in svg
    assert svg._repr_svg_() == svg
    path = tmp_path / "demo.svg"
    assert demo.gantt(path, start="10ms", end=50 * MS, width=600) == path.read_text()
    assert 'width="600"' in path.read_text()


def test_to_csv(tmp_path: Path, schedlab_exe: Path, demo: SimResult) -> None:
    text = demo.to_csv()
    back = pd.read_csv(io.StringIO(text))
    assert list(back.columns) == list(JOB_COLUMNS)
    assert len(back) == 88
    assert list(back["release"]) == list(demo.jobs["release"])
    assert list(back["task"]) == list(demo.jobs["task"])
    # The same bytes as `schedlab export --csv` of the same schedule.
    demo.to_jsonl(tmp_path / "demo.jsonl")
    subprocess.run(
        [str(schedlab_exe), "export", str(tmp_path / "demo.jsonl"), "--csv", str(tmp_path / "cli.csv")],
        check=True, timeout=60, capture_output=True,
    )  # fmt: skip
    assert (tmp_path / "cli.csv").read_text() == text
    assert demo.to_csv(tmp_path / "jobs.csv") == (tmp_path / "jobs.csv").read_text()


# -- trace files -----------------------------------------------------------------------------


@pytest.mark.parametrize("ext", ["jsonl", "sltrace"])
def test_trace_file_round_trip(tmp_path: Path, demo_path: Path, ext: str) -> None:
    path = tmp_path / f"demo.{ext}"
    r = schedlab.simulate(demo_path, trace=path, seed=2, exec="uniform")
    assert r.trace == str(path) and path.exists()
    v = schedlab.validate(path)
    assert v.passed and v["events"] == r.summary["events"]
    header, events = schedlab.read_trace(path)
    assert header == r.header
    assert events == r.events
    assert schedlab.stats(path) == r.stats


def test_without_kept_events(tmp_path: Path, demo_path: Path) -> None:
    path = tmp_path / "demo.jsonl"
    r = schedlab.simulate(demo_path, trace=path, keep_events=False)
    assert r.events is None
    assert len(r.jobs) == 88  # the job table never needs the events
    assert r.validate().passed  # the exports read the trace back
    assert "capture" in r.gantt()
    full = schedlab.simulate(demo_path)
    assert r.to_perfetto() == full.to_perfetto()
    bare = schedlab.simulate(demo_path, keep_events=False)
    assert len(bare.to_csv().splitlines()) == 89
    with pytest.raises(ValueError, match="keep_events"):
        bare.validate()
    with pytest.raises(ValueError, match="keep_events"):
        bare.gantt()


def test_trace_errors(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="missing.jsonl"):
        schedlab.validate(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a trace\n")
    for f in (schedlab.validate, schedlab.read_trace, schedlab.stats):
        with pytest.raises(ValueError, match="bad.jsonl"):
            f(bad)


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("exec", "fast"),
        ("exec", 3),
        ("sporadic", "poisson"),
        ("sporadic", "uniform:5"),
        ("miss", "drop"),
        ("horizon", "ten"),
        ("horizon", -1),
        ("horizon", 1.5),
        ("horizon_cap", "forever"),
        ("tick", "1 parsec"),
        ("seed", -1),
        ("seed", "7"),
        ("overheads", "yes"),
        ("jitter", None),
        ("keep_events", 1),
        ("trace", "out.txt"),
    ],
)
def test_bad_options_raise_value_error_naming_them(demo_path: Path, tmp_path: Path, option: str, value: object) -> None:
    if option == "trace":
        value = tmp_path / str(value)
    kwargs: dict[str, Any] = {option: value}
    with pytest.raises(ValueError, match=f"^{option}: "):
        schedlab.simulate(demo_path, **kwargs)


def test_bad_validate_and_gantt_options(demo: SimResult, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="^mode: "):
        demo.validate(mode="strict")
    with pytest.raises(ValueError, match="^tolerance: "):
        demo.validate(tolerance="soon")
    with pytest.raises(ValueError, match="^mode: "):
        schedlab.validate(tmp_path / "x.jsonl", mode="strict")
    with pytest.raises(ValueError, match="^width: "):
        demo.gantt(width=0)
    with pytest.raises(ValueError, match="^end: "):
        demo.gantt(start="20ms", end="10ms")
    with pytest.raises(ValueError, match="^start: "):
        demo.gantt(start="x")


def test_a_spec_without_policy_raises(tmp_path: Path) -> None:
    path = tmp_path / "nopolicy.yaml"
    path.write_text("platform: {cpus: 2}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms}\n")
    with pytest.raises(SpecError) as e:
        schedlab.simulate(path)
    assert e.value.file == str(path) and e.value.path == "policy"
    assert "policy: {name: gedf}" in e.value.message
    with pytest.raises(SpecError, match="policy"):
        schedlab.simulate(schedlab.load(path))


def test_a_bad_spec_raises_spec_error(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="cannot read"):
        schedlab.simulate(tmp_path / "missing.yaml")
    path = tmp_path / "bad.yaml"
    path.write_text("platform: {cpus: 2}\npolicy: {name: gedf}\ntasks:\n  - {name: a, wcet: 1ms, period: 10ms, cpu: 5}\n")
    with pytest.raises(SpecError) as e:
        schedlab.simulate(path)
    assert (e.value.path, e.value.line) == ("tasks[0].cpu", 4)
    with pytest.raises(TypeError):
        schedlab.simulate(42)  # type: ignore[arg-type]


def test_admission_failure_names_the_spec_and_field(tmp_path: Path) -> None:
    path = tmp_path / "tight.yaml"
    path.write_text(
        "platform: {cpus: 2}\npolicy: {name: pedf}\ntasks:\n"
        + "".join(f"  - {{name: t{i}, wcet: 6ms, period: 10ms}}\n" for i in range(3))
    )
    with pytest.raises(ValueError, match="partitioning") as e:
        schedlab.simulate(path)
    assert not isinstance(e.value, SpecError)
    assert str(e.value).startswith(f"{path}: policy.partitioning: ")
    # G-EDF admits anything; it just misses.
    gedf = path.read_text().replace("pedf", "gedf")
    assert schedlab.simulate(schedlab.loads(gedf)).summary["misses"] > 0


# The examples of docs/python.md run in test_docs.py, with every other page's.
