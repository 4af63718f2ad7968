"""schedlab.run: the Linux runtime from Python, for real (root on this VM and
on CI). Small sets for about a second each; runs are serialised machine-wide
by the runtime's own lock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import schedlab

ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="real-time runs need root (CI runs as root)")

#: The validator's tolerance: a fifth of the shortest job (16 ms), so a
#: priority inversion of a fifth of a job is seen.
TOLERANCE = "3200us"
TOLERANCE_NS = 3_200_000

LIGHT = textwrap.dedent(
    """\
    platform: {cpus: 2}
    policy: {name: gedf}
    tasks:
      - {name: a, wcet: 16ms, period: 160ms}
      - {name: b, wcet: 32ms, period: 320ms}
    """
)
WCET_NS = {"a": 16_000_000, "b": 32_000_000}


@pytest.fixture
def light(tmp_path: Path) -> Path:
    p = tmp_path / "light.yaml"
    p.write_text(LIGHT)
    return p


#: Every job runs this fraction of its WCET (``spin-cpu``: exactly that much CPU time).
EXEC = "fraction:0.8"
FRACTION = 0.8


#: Attempts of a run whose every failure is a platform stall (as crates/rt/tests/common.rs).
ATTEMPTS = 10


def _stall_evidence(r: schedlab.RunResult) -> str | None:
    """The run's own evidence of a platform stall: a stall longer than half
    the tolerance (``RunResult.stalls``; a shorter one cannot explain a
    violation beyond the tolerance), a timer lateness above the tolerance,
    or a CPU-time gap above it (a job's running time beyond the CPU time
    ``spin-cpu`` gave it)."""
    evidence = []
    long = [st["ns"] for st in r.stalls if st["ns"] > TOLERANCE_NS / 2]
    if long:
        evidence.append(f"{len(long)} platform stall(s) above half the tolerance, worst {max(long) / 1e6:.3f} ms")
    for kind in ("release-latency", "release", "schedule", "ipi"):
        o = r.overheads.get(kind)
        if o and o["max"] > TOLERANCE_NS:
            evidence.append(f"timer lateness ({kind}) {o['max'] / 1e3:.0f} us above the tolerance {TOLERANCE}")
    jobs = r.jobs
    if len(jobs):
        planned = jobs["task"].astype(str).map(lambda t: WCET_NS[t] * FRACTION)
        gaps = jobs["exec"] - planned
        over = gaps[(jobs["status"] == "completed") & (gaps > TOLERANCE_NS)]
        if len(over):
            evidence.append(f"{len(over)} job(s) with a CPU-time gap above the tolerance, max {over.max() / 1e3:.0f} us")
    return "; ".join(evidence) or None



def _run_until_valid(
    spec: Path, retries: list[str], **kw: object
) -> tuple[schedlab.RunResult, schedlab.ValidationReport]:
    """Runs until the schedule validates without misses, at most ATTEMPTS
    attempts. Only a failure the run itself shows as a platform stall is
    retried (its evidence is recorded in ``retries`` and printed in the
    test log's summary); any other failure fails at once."""
    for attempt in range(1, ATTEMPTS + 1):
        r = schedlab.run(spec, wait=True, **kw)  # type: ignore[arg-type]
        v = r.validate(tolerance=TOLERANCE)
        if v.passed and r.summary["misses"] == 0:
            return r, v
        evidence = _stall_evidence(r)
        if evidence is None or attempt == ATTEMPTS:
            pytest.fail(
                f"attempt {attempt}: {r!r}, not retried "
                f"({'no platform stall measured' if evidence is None else 'a platform stall again: ' + evidence})\n{v}"
            )
        retries.append(f"{r!r}: attempt {attempt} failed under a platform stall: {evidence}")
    raise AssertionError("unreachable")


@needs_root
@pytest.mark.parametrize("backend", ["kernel", "dispatch"])
def test_light_set_runs_without_misses_and_validates(
    light: Path, backend: str, tmp_path: Path, runtime_retries: list[str]
) -> None:
    trace = tmp_path / "run.sltrace"
    r, v = _run_until_valid(
        light, runtime_retries, duration="2s", backend=backend, workload="spin-cpu", exec=EXEC, trace=trace
    )
    assert isinstance(r, schedlab.SimResult)
    assert r.backend == backend
    assert v.passed, str(v)
    jobs = r.jobs
    counts = jobs.groupby("task", observed=True).size().to_dict()
    assert counts["a"] == 13 and counts["b"] == 7, counts
    assert r.summary["misses"] == 0
    assert (jobs["status"] == "completed").all()
    assert r.complete, r.integrity
    assert r.overheads["release-latency"]["count"] > 0
    assert r.overheads_csv.startswith("TASK-COUNT,")
    assert len(r.mapping) == 2
    # The trace file holds the same schedule and validates the same way.
    assert trace.exists()
    assert schedlab.validate(trace, tolerance=TOLERANCE).passed
    assert r.tasks.loc["a", "jobs"] == counts["a"]


@needs_root
def test_python_callable_job_bodies(light: Path, runtime_retries: list[str]) -> None:
    seen: list[tuple[int, int]] = []

    def body(job: schedlab.Job) -> None:
        seen.append((job.task, job.job))
        assert job.deadline > job.release and 0 < job.exec <= job.wcet

    r, v = _run_until_valid(light, runtime_retries, duration="2s", exec=EXEC, workloads={"a": body, "b": "spin-cpu"})
    assert v.passed, str(v)
    # The calls of the attempt that passed (a retried attempt called the body too).
    last = max(i for i, call in enumerate(seen) if call == (0, 0))
    ran = [j for t, j in seen[last:] if t == 0]
    assert ran == list(range(len(ran))) and len(ran) == 13
    assert not any(t == 1 for t, _ in seen)


@needs_root
def test_python_body_exception_ends_the_run(light: Path) -> None:
    def body(job: schedlab.Job) -> None:
        if job.job == 3:
            raise ZeroDivisionError("boom in a job body")

    with pytest.raises(schedlab.RunError, match="boom in a job body"):
        schedlab.run(light, duration="1s", workload=body, wait=True)  # job 3 of a is released at 480 ms


def test_bad_options_raise_before_anything_runs(light: Path) -> None:
    with pytest.raises(ValueError, match="^backend"):
        schedlab.run(light, backend="nope")
    with pytest.raises(ValueError, match="^workload"):
        schedlab.run(light, workload="bogus")
    with pytest.raises(ValueError, match="^workload"):
        schedlab.run(light, workload=42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no task named"):
        schedlab.run(light, workloads={"zz": "spin"})
    with pytest.raises(ValueError, match="^duration"):
        schedlab.run(light, duration="soon")
    with pytest.raises(ValueError, match="^counters"):
        schedlab.run(light, counters="pmu")
    with pytest.raises(ValueError, match="^idle: unknown idle mode `deep`"):
        schedlab.run(light, idle="deep")
    with pytest.raises(schedlab.SpecError):
        schedlab.run(Path(light).with_name("missing.yaml"))


@needs_root
def test_missing_privileges_raise_permission_error() -> None:
    # Without any capability (root's uid, an empty bounding set: what the
    # runtime checks), in a child process: nothing may be touched (exit code
    # 3 of the CLI). Not as `nobody`: the checkout, with its .venv, may sit in
    # a folder only its owner may enter (a clone into `mktemp -d` does).
    code = (
        "import schedlab, sys\n"
        "try:\n"
        f"    schedlab.run(schedlab.loads({LIGHT!r}), duration='200ms')\n"
        "except PermissionError as e:\n"
        "    print('PermissionError:', e); sys.exit(0)\n"
        "sys.exit(1)\n"
    )
    out = subprocess.run(
        ["setpriv", "--inh-caps=-all", "--bounding-set=-all", sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": "/tmp", "SCHEDLAB_LOCK": "/tmp/schedlab-test-nobody.lock"},
        timeout=60,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "insufficient privileges" in out.stdout


@needs_root
def test_the_counter_source_and_page_colouring_are_reported(tmp_path: Path) -> None:
    # A memwalk task with colours on the dispatch backend, the workloads'
    # counters asked for: the notes and the trace say what was used.
    spec = tmp_path / "colours.yaml"
    spec.write_text(
        "platform: {cpus: 1, cache: {size: 8MiB, ways: 16, line: 64B}}\n"
        "policy: {name: pfp}\n"
        "tasks:\n  - {name: w, wcet: 2ms, period: 20ms, wss: 64KiB, colors: [0-7]}\n"
    )
    r = schedlab.run(spec, duration="200ms", backend="dispatch", workload="memwalk", counters="workload", wait=True)
    assert any(n.startswith("counters: published by the workloads") for n in r.notes), r.notes
    assert any(n.startswith("page colouring by 8MiB") for n in r.notes), r.notes
    notes = {e["name"]: e["data"] for e in r.events or [] if e.get("ev") == "note" and e.get("t") == 0}
    assert notes["counter-source"]["source"] == "workload"
    assert notes["page-colouring"]["tasks"][0]["wrong_pages"] == 0


@needs_root
def test_python_body_takes_preemption_points_under_fpds(tmp_path: Path, runtime_retries: list[str]) -> None:
    # `b` (two subjobs of 12.8 ms at 80 %) runs as a Python body calling
    # Job.preemption_point() between its segments; `a`, released 4 ms into
    # b's first subjob, waits for that point, where b is switched away.
    spec = tmp_path / "fpds.yaml"
    spec.write_text(
        textwrap.dedent(
            """\
            platform: {cpus: 2}
            policy: {name: fpds}
            tasks:
              - {name: a, wcet: 16ms, period: 160ms, offset: 4ms, cpu: 1}
              - {name: b, period: 320ms, subjobs: [16ms, 16ms], cpu: 1}
            """
        )
    )
    segments: list[tuple[tuple[str, int], ...]] = []

    def low(job: schedlab.Job) -> None:
        segments.append(job.segments)
        for i, (_, ns) in enumerate(job.segments):
            if i > 0:
                job.preemption_point()
            end = time.thread_time_ns() + ns
            while time.thread_time_ns() < end:
                pass

    trace = tmp_path / "fpds.jsonl"
    r, v = _run_until_valid(
        spec, runtime_retries, duration="2s", backend="dispatch", exec=EXEC, trace=trace,
        workloads={"a": "spin-cpu", "b": low},
    )
    assert v.passed, str(v)
    assert segments and all(s == (("exec", 12_800_000), ("exec", 12_800_000)) for s in segments), segments[:3]
    events = [json.loads(line) for line in trace.read_text().splitlines()[1:]]
    preempted = [e for e in events if e.get("ev") == "switch-away" and e["task"] == 1 and e["reason"] == "preempt"]
    points = {(e["job"], e["t"]) for e in events if e.get("ev") == "segment-end" and e["task"] == 1}
    assert len(preempted) >= 4, f"b was preempted {len(preempted)} times"
    for e in preempted:
        assert any(j == e["job"] and 0 <= e["t"] - t <= TOLERANCE_NS for j, t in points), e
