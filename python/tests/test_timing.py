"""Timing scopes from Python job bodies (``with job.within(...)``,
``with job.budget(...)``, ``with job.protected():``, ``job.check()``,
``run(timing=...)``), on real threads (root). Tolerant timings: the
assertions are about which scope gets which violation and lower bounds."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

import schedlab

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="real-time runs need root (CI runs as root)")

# One task of 16 ms WCET every 100 ms on SCHED_DEADLINE (gedf): the bodies
# below use 11 ms of CPU at most, within the runtime.
SPEC = textwrap.dedent(
    """\
    platform: {cpus: 2}
    policy: {name: gedf}
    tasks:
      - {name: a, wcet: 16ms, period: 100ms}
    """
)
MS = 1_000_000


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    p = tmp_path / "a.yaml"
    p.write_text(SPEC)
    return p


def spin(job: schedlab.Job, ns: int) -> None:
    """``ns`` of CPU time, checking all along."""
    end = time.thread_time_ns() + ns
    while time.thread_time_ns() < end:
        job.check()


@needs_root
@pytest.mark.parametrize("timing", ["cooperative", "async"])
def test_python_scopes_nest_protect_and_raise_typed_violations(spec: Path, timing: str) -> None:
    seen: list[dict[str, Any]] = []

    def body(job: schedlab.Job) -> None:
        if job.job > 2:
            return
        got: dict[str, Any] = {}
        # The scope's own violation.
        try:
            with job.budget(ms=1) as s:
                spin(job, 3 * MS)
            got["own"] = None
        except schedlab.TimingViolation as v:
            got["own"] = (v.kind, v.scope == s.id, v.depth, v.limit, v.lateness)
        # An outer deadline's violation passes an inner `except TimingViolation`.
        got["inner caught"] = False
        try:
            with job.within(ms=2) as outer:
                try:
                    with job.budget(ms=100):
                        spin(job, 5 * MS)
                except schedlab.TimingViolation:
                    got["inner caught"] = True
            got["outer"] = None
        except schedlab.TimingViolation as v:
            got["outer"] = (v.kind, v.scope == outer.id, v.depth)
        # A protected section holds the violation until its end.
        got["after section"] = False
        try:
            with job.budget(ms=1):
                with job.protected():
                    spin(job, 3 * MS)
                    got["section ran"] = True
                got["after section"] = True
        except schedlab.TimingViolation as v:
            got["protected"] = (v.kind, v.lateness)
        seen.append(got)

    r = schedlab.run(spec, duration="300ms", workload=body, timing=timing, wait=True)
    assert len(seen) == 3, seen
    for got in seen:
        kind, mine, depth, limit, lateness = got["own"]
        assert (kind, mine, depth, limit) == ("wcet", True, 0, MS), got
        assert 0 <= lateness < 2 * MS, got
        assert got["outer"] == ("deadline", True, 0) and not got["inner caught"], got
        assert got.get("section ran") and not got["after section"], got
        assert got["protected"][0] == "wcet" and got["protected"][1] >= 2 * MS, got
    # Handled violations are in the trace; no job was ended by them.
    exceptions = [e for e in r.events or [] if e.get("ev") == "note" and e.get("name") == "timing-exception"]
    assert len(exceptions) == 9, exceptions
    assert not any(e.get("ev") == "completion" and e.get("forced") for e in r.events or [])


@needs_root
def test_benchmark_mode_records_python_scope_durations(spec: Path) -> None:
    def body(job: schedlab.Job) -> None:
        with job.budget(ms=1, label="decode"):  # over budget, never raised
            spin(job, 2 * MS)
        with job.within(ms=50, label="frame"):
            time.sleep(0.003)

    r = schedlab.run(spec, duration="500ms", workload=body, timing="benchmark", wait=True)
    jobs = len(r.jobs)
    times = r.scope_times
    decode = [t for t in times if t["label"] == "decode"]
    frame = [t for t in times if t["label"] == "frame"]
    assert len(decode) == len(frame) == jobs == 5, times
    assert all(t["limit"] == "wcet" and t["limit_ns"] == MS and t["ns"] >= 2 * MS for t in decode), decode
    assert all(t["limit"] == "deadline" and 3 * MS <= t["ns"] < 50 * MS for t in frame), frame


@needs_root
def test_a_violation_the_body_lets_escape_ends_the_job_not_the_run(spec: Path) -> None:
    def body(job: schedlab.Job) -> None:
        with job.budget(ms=1):
            spin(job, 3 * MS)

    r = schedlab.run(spec, duration="300ms", workload=body, wait=True)
    forced = [e for e in r.events or [] if e.get("ev") == "completion" and e.get("forced")]
    exceptions = [e for e in r.events or [] if e.get("ev") == "note" and e.get("name") == "timing-exception"]
    budget = [e for e in r.events or [] if e.get("ev") == "budget-exhausted"]
    assert len(forced) == len(exceptions) == len(budget) == 3, (forced, exceptions, budget)


def test_timing_options_and_limits_are_checked(spec: Path) -> None:
    with pytest.raises(ValueError, match="^timing"):
        schedlab.run(spec, timing="fast")
    job = schedlab.Job(0, 0, 0, 0, 0, 0)
    with pytest.raises(ValueError, match="exactly one of"):
        job.budget(ms=1, us=5)
    with pytest.raises(ValueError, match="negative"):
        job.within(ms=-1)
    # Outside a run (no runtime behind the job) the scopes do nothing.
    with job.within(ms=1), job.budget(us=1), job.protected():
        job.check()
