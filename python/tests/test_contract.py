"""What the Python API promises beside the command: the verdict's meaning,
policy=/set=, notices as warnings, and the notebook views."""

from __future__ import annotations

from pathlib import Path

import pytest

import schedlab

HARD = "platform: {cpus: 4}\npolicy: {name: gedf}\ntasks:\n" + "".join(
    f"  - {{name: h{i}, wcet: 6.5ms, period: 10ms, class: CLASS}}\n" for i in range(5)
) + (
    "  - {name: a, wcet: 2ms, period: 10ms, class: CLASS}\n"
    "  - {name: b, wcet: 2ms, period: 10ms, class: CLASS}\n"
    "  - {name: c, wcet: 1.5ms, period: 10ms, class: CLASS}\n"
)


def test_a_tardiness_bound_does_not_prove_hrt_tasks() -> None:
    a = schedlab.analyze(schedlab.loads(HARD.replace("CLASS", "hrt")))
    assert not a.proven and not a.schedulable and a.decision == "inconclusive"
    assert a.soft is not None and a.soft["bounded"] is True
    assert "not proven (inconclusive)" in a.why
    assert a["soft.gedf.tardiness"].soft and a["soft.gedf.tardiness"].schedulable
    s = schedlab.analyze(schedlab.loads(HARD.replace("CLASS", "srt")))
    assert s.proven and s.decided_by == "soft.gedf.tardiness"


def test_tests_of_other_policies_do_not_decide() -> None:
    a = schedlab.analyze(schedlab.loads(HARD.replace("CLASS", "hrt")), all=True)
    assert a["run.feasibility"].schedulable and not a["run.feasibility"].decides
    assert not a.proven


def test_policy_and_set_replace_the_policy_for_one_call(demo_path: Path) -> None:
    ts = schedlab.load(demo_path)
    with pytest.warns(UserWarning, match="policy.partitioning: dropped"):
        a = schedlab.analyze(ts, policy="gedf")
    assert a.policy == "gedf"
    r = schedlab.simulate(ts, policy="pedf", horizon="100ms")
    assert r.header["spec"]["policy"]["name"] == "pedf"
    with pytest.raises(ValueError, match="set: `quantum` is not a parameter of `cedf`"):
        schedlab.simulate(ts, set={"quantum": "1ms"})
    with pytest.raises(ValueError, match="policy: unknown policy `nope`"):
        schedlab.analyze(ts, policy="nope")
    run = schedlab.load(Path(__file__).resolve().parents[2] / "examples" / "run.yaml")
    assert schedlab.simulate(run, policy="pd2", set={"quantum": 500_000}, horizon="20ms").summary["jobs"] > 0


def test_notices_are_warnings(demo_path: Path) -> None:
    with pytest.warns(UserWarning, match="longer than the horizon cap 50ms"):
        r = schedlab.simulate(demo_path, horizon_cap="50ms")
    assert any("horizon cap" in n for n in r.notices)
    with pytest.warns(UserWarning, match="no task has a `bcet`"):
        schedlab.simulate(demo_path, exec="uniform", horizon="20ms")


def test_notebooks_see_tables(demo_path: Path) -> None:
    ts = schedlab.load(demo_path)
    html = ts._repr_html_()
    assert html.count("<tr>") == len(ts) + 1 and "decode" in html and "6ms" in html
    a = schedlab.analyze(ts)
    assert "<table>" in a._repr_html_() and "proven" in a._repr_html_()
    assert str(a).rstrip().endswith("shows every deadline is met under cedf")
    r = schedlab.simulate(ts, horizon="50ms")
    assert "<table>" in r._repr_html_() and "capture" in r._repr_html_()
    assert r.gantt()._repr_svg_().startswith("<svg") or "<svg" in r.gantt()._repr_svg_()


def test_a_trace_goes_into_folders_that_are_created(demo_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "a" / "b" / "t.jsonl"
    schedlab.simulate(demo_path, horizon="20ms", trace=out)
    assert out.is_file() and [p.name for p in out.parent.iterdir()] == ["t.jsonl"]
