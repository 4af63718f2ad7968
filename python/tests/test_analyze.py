"""schedlab.analyze: the registry's tests from Python, as `schedlab analyze`."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from pathlib import Path

import pytest

import schedlab

FULL = """platform: {cpus: 2}
policy: {name: run}
tasks:
- {name: a, wcet: 2ms, period: 3ms}
- {name: b, wcet: 2ms, period: 3ms}
- {name: c, wcet: 2ms, period: 3ms}
"""


def test_policy_tests_explained_with_exact_numbers() -> None:
    a = schedlab.analyze(schedlab.loads(FULL))
    assert a.policy == "run"
    assert a.schedulable
    o = a["run.feasibility"]
    assert o.verdict == "schedulable" and o.exact
    assert o.value == Fraction(2) and o.bound == Fraction(2) and o.slack == 0
    with pytest.raises(KeyError, match="ran: "):
        a["gedf.nothing"]


def test_a_file_and_a_taskset_agree(tmp_path: Path) -> None:
    p = tmp_path / "full.yaml"
    p.write_text(FULL)
    assert schedlab.analyze(p) == schedlab.analyze(schedlab.load(p))


def test_overheads_inflate_before_testing(tmp_path: Path) -> None:
    csv = tmp_path / "oh.csv"
    csv.write_text("TASK-COUNT,SCHEDULE\n1,1\n")
    a = schedlab.analyze(schedlab.loads(FULL), tests=["run.feasibility"], overheads=csv, tick=0)
    assert not a.schedulable
    assert a["run.feasibility"].verdict == "unschedulable"
    assert a.overheads is not None
    assert a.overheads["tasks"][0]["inflated_wcet_ns"] == 2_002_000


def test_one_more_microsecond_is_unschedulable_and_names_the_total() -> None:
    ts = schedlab.loads(FULL)
    heavier = dataclasses.replace(ts, tasks=(*ts.tasks[:2], dataclasses.replace(ts.tasks[2], wcet=2_001_000)))
    o = schedlab.analyze(heavier)["run.feasibility"]
    assert o.verdict == "unschedulable"
    assert o.slack == Fraction(-1, 3000)


def test_bad_options_raise_with_the_name() -> None:
    ts = schedlab.loads(FULL)
    with pytest.raises(ValueError, match="did you mean `run.feasibility`"):
        schedlab.analyze(ts, tests=["run.feasibilty"])
    with pytest.raises(ValueError, match="accounting"):
        schedlab.analyze(ts, accounting="magic", overheads=__file__)
    with pytest.raises(ValueError, match="tests"):
        schedlab.analyze(ts, tests="run.feasibility")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        schedlab.analyze(42)  # type: ignore[arg-type]


def test_holistic_bounds_of_a_generated_prem_set() -> None:
    # Three S-MP tasks of 400 KiB (2 Sections each), one per CPU.
    ts = schedlab.generate(seed=4, cpus=3, policy="mcs", prem="default", wss="list:400KiB", util=0.3)
    assert [t.memory_priority for t in ts.tasks] == [1, 2, 3]
    a = schedlab.analyze(ts)
    hol, pre = a["mcs.holistic"], a["mcs.holistic.precedence"]
    assert hol.schedulable and pre.schedulable
    assert hol.response_times_ns is not None and pre.response_times_ns is not None
    assert len(hol.response_times_ns) == 3
    # Without its own phases' interference a flow's bound can only shrink,
    # and it is at least the job's own length.
    for t, h, p in zip(ts.tasks, hol.response_times_ns, pre.response_times_ns):
        assert h is not None and p is not None
        assert t.wcet <= p <= h
