"""The Linux runtime from Python: :func:`run`, :class:`RunResult`,
:class:`RunError`, :class:`Job`.

``schedlab.run(spec, duration="2s", backend="kernel")`` executes the spec on
real threads of this Linux kernel exactly as ``schedlab run`` does (needs
root or CAP_SYS_NICE; the machine is restored afterwards) and returns a
:class:`RunResult`: a :class:`~schedlab.SimResult` over the recorded schedule
(the same job / task / CPU tables, statistics, validation and exports as
:func:`schedlab.simulate`), plus what only a real run has — the backend's
mapping of each task, the measured overheads, trace integrity and notes.

Job bodies are the runtime's workloads (``"spin"``, ``"spin-cpu"``,
``"memwalk:random"``, ``"c:LIB:SYMBOL"``, ``"cmd:PROGRAM ARGS"`` with
``allow_command=True``) or **Python callables**. A callable is called once
per job, on the task's real-time thread, with a :class:`Job`; it holds the
GIL for the call, so Python bodies of different tasks never run in parallel
and the interpreter's own pauses (garbage collection, the GIL hand-over) add
unbounded delays: they are *not real-time* — use them for prototypes and
functional tests, and a ``c:`` or ``cmd:`` workload for timing. An exception
in a callable fails the job, ends the run and is raised as :class:`RunError`
with the traceback. On the dispatch backend a callable reaches preemption
points with :meth:`Job.preemption_point` and suspends itself with
:meth:`Job.suspend` (the GIL is released while it waits there).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _native
from ._sim import (
    Duration,
    SimResult,
    ValidationReport,
    _choice,
    _duration,
    _flag,
    _opt_duration,
    _path,
    _policy_options,
)
from ._types import TaskSet

__all__ = ["run", "RunResult", "RunError", "Job", "JobBody", "JobEnded"]


class RunError(RuntimeError):
    """A run that started and failed: the kernel refused admission, a job
    body failed (its traceback is in the message), or the watchdog ended it.
    The machine was restored before this was raised.

    Missing privileges raise :class:`PermissionError` instead (``schedlab
    run``'s exit code 3), before anything is touched; bad input
    (``schedlab run``'s exit code 2) raises :class:`ValueError` or
    :class:`~schedlab.SpecError`.
    """


@dataclass(frozen=True)
class Job:
    """What a Python job body is called with.

    Attributes:
        task: The task's index in the spec.
        job: The job's number (0-based, per task).
        release: Release instant, CLOCK_MONOTONIC ns (``time.monotonic_ns()``).
        deadline: Absolute deadline, CLOCK_MONOTONIC ns.
        exec: The execution time this job should consume, ns.
        wcet: The task's WCET, ns.
        segments: The job's segments as the job model drew them, as
            ``(kind, ns)`` pairs (``"exec"``, ``"memory"``, ``"suspend"``;
            CPU time, or the suspension's length) — the draws a simulation
            with the same seed makes; empty when the task declares none or
            the backend is ``kernel``.
    """

    task: int
    job: int
    release: int
    deadline: int
    exec: int
    wcet: int
    segments: tuple[tuple[str, int], ...] = ()
    _control: Any = field(default=None, repr=False, compare=False)

    def preemption_point(self) -> None:
        """A preemption point: the job ends its current segment here.

        Returns at once unless, on the dispatch backend under ``fpds`` or
        ``g-fpds``, a higher-priority job waits: then the policy decides, and
        the job may be switched away here and resume later (the GIL is
        released meanwhile). Does nothing on the kernel backend.

        Raises:
            JobEnded: the job must end now (the run is stopping, the job is
                aborted at its deadline); return from the body.
        """
        if self._control is not None and not self._control.preemption_point():
            raise JobEnded(f"job {self.job} of task {self.task} must end")

    def suspend(self, ns: int) -> None:
        """A self-suspension of ``ns`` nanoseconds: on the dispatch backend
        the job blocks (its CPU goes to another job), sleeps, resumes and
        returns once dispatched again (the GIL is released meanwhile).
        Returns at once on the kernel backend.

        Raises:
            JobEnded: the job must end now; return from the body.
        """
        if self._control is not None and not self._control.suspend(ns):
            raise JobEnded(f"job {self.job} of task {self.task} must end")


class JobEnded(Exception):
    """Raised by :meth:`Job.preemption_point` and :meth:`Job.suspend` when the
    job must end now (the run is stopping, or the job is aborted at its
    deadline). A body need not catch it: the job ends for that reason, not
    as a failure."""


#: A Python job body: called once per job with its :class:`Job`.
JobBody = Callable[[Job], object]

#: A workload: a kind as text, or a Python job body.
Workload = str | JobBody


def _body(name: str, w: object) -> str | Callable[[int, int, int, int, int, int, Any], None]:
    if isinstance(w, str):
        return w
    if callable(w):
        f = w

        def call(task: int, job: int, release: int, deadline: int, exec: int, wcet: int, control: Any) -> None:
            f(Job(task, job, release, deadline, exec, wcet, tuple(control.segments), control))

        return call
    raise ValueError(f"{name}: expected a workload kind (str) or a callable, got {type(w).__name__} {w!r}")


class RunResult(SimResult):
    """The outcome of :func:`run`: a :class:`~schedlab.SimResult` over the
    recorded schedule (``jobs``, ``tasks``, ``cpus``, ``summary``, ``stats``,
    ``events``, ``validate()``, ``gantt()``, ``to_perfetto()``,
    ``to_csv()``, ``to_jsonl()``), plus the run's own facts.

    Validate a recorded schedule with a tolerance (the decision latency):
    ``r.validate(tolerance="2ms")``, as ``schedlab run --validate`` does.
    """

    def __init__(self, run: _native.SimRun, trace: str | None, info: str) -> None:
        super().__init__(run, trace)
        self._info: dict[str, Any] = json.loads(info)

    @property
    def backend(self) -> str:
        """``"kernel"`` or ``"dispatch"``."""
        return str(self._info["backend"])

    @property
    def mapping(self) -> list[str]:
        """How the backend ran each task (class, priority, CPUs), by task index."""
        return list(self._info["mapping"])

    @property
    def overheads(self) -> dict[str, dict[str, float]]:
        """Measured overheads by kind (``release-latency``, ``release``,
        ``schedule``, ``context-switch``, ``ipi``): ``count``, ``min``,
        ``p50``, ``p99``, ``p999``, ``max`` (ns) and ``mean``."""
        return {o["kind"]: {k: v for k, v in o.items() if k != "kind"} for o in self._info["overheads"]}

    @property
    def overheads_csv(self) -> str:
        """The measured overheads as the overhead CSV ``analyze --overheads``
        reads (one row: this set's task count, the maximum of each, µs)."""
        return str(self._info["overheads_csv"])

    @property
    def integrity(self) -> dict[str, Any]:
        """Trace integrity: per thread, records produced, collected and
        dropped, and whether sequence numbers are contiguous; kernel events lost."""
        d: dict[str, Any] = self._info["integrity"]
        return d

    @property
    def complete(self) -> bool:
        """True when no trace record was lost."""
        return bool(self._info["complete"])

    @property
    def notes(self) -> list[str]:
        """The runtime's remarks (restore problems, abandoned threads, statistics)."""
        return list(self._info["notes"])

    @property
    def stalls(self) -> list[dict[str, Any]]:
        """Platform stalls the run measured (``docs/runtime.md``): intervals
        above 1 ms in which the machine did not run what it should have
        (timer lateness, or a CPU-time gap: a job "running" without
        executing), each with ``t`` (ns from the synchronous release),
        ``kind``, ``job`` (``[task, job]`` or ``None``) and ``ns``. They are
        not counted as overheads."""
        return list(self._info["stalls"])

    @property
    def info(self) -> dict[str, Any]:
        """Everything above, plus ``kernel_trace`` and ``calibration``, as one dict (a copy)."""
        d: dict[str, Any] = json.loads(json.dumps(self._info))
        return d

    def validate(self, tolerance: Duration = "2ms", mode: str = "auto") -> ValidationReport:
        """Check the recorded schedule with the validator. The default
        tolerance, 2 ms, is the one documented for this runtime
        (``docs/runtime.md``); pass ``0`` for the strict check."""
        return super().validate(tolerance=tolerance, mode=mode)

    def __repr__(self) -> str:
        s = self.summary
        policy = (self.header["spec"].get("policy") or {}).get("name", "?")
        return f"<RunResult {policy} on {self.backend}: {s['jobs']} jobs, {s['misses']} misses, {s['events']} events>"


def run(
    spec: str | os.PathLike[str] | TaskSet,
    *,
    duration: Duration = "2s",
    backend: str = "kernel",
    seed: int = 0,
    exec: str = "wcet",
    sporadic: str = "none",
    miss: str = "continue",
    workload: Workload = "spin",
    workloads: Mapping[str | int, Workload] | None = None,
    allow_command: bool = False,
    kernel_trace: bool = True,
    job_timeout: Duration | None = None,
    dl_slack: Duration = "100us",
    dl_slack_ratio: float = 0.05,
    start_margin: Duration = "20ms",
    recalibrate: bool = False,
    trace: str | os.PathLike[str] | None = None,
    keep_events: bool = True,
    jitter: bool = True,
    wait: bool = False,
    policy: str | None = None,
    set: dict[str, Any] | None = None,
) -> RunResult:
    """Run a spec on real threads of this Linux kernel, as ``schedlab run`` does.

    Needs root (or CAP_SYS_NICE, and write access to the cpusets and tracefs
    for the policies and tracing that use them). Priorities, affinities,
    cpusets and tracing are restored afterwards, also on an exception or
    Ctrl-C, and what a killed run left behind is restored before a run
    starts (``schedlab restore``). Runs are serialised machine-wide: while
    another run holds the run lock, ``RunError`` names its PID at once
    (``wait=True`` waits for it instead).

    Args:
        spec: A spec file, or a :class:`TaskSet`.
        duration: How long jobs are released for (int ns or text such as
            ``"2s"``); jobs in progress then complete.
        backend: ``"kernel"`` (Linux scheduling classes: SCHED_FIFO,
            SCHED_DEADLINE, cpusets) or ``"dispatch"`` (schedlab's
            user-space dispatcher driving the policy itself).
        seed: Seed of every random choice.
        exec: ``"wcet"``, ``"uniform"`` or ``"fraction:F"``.
        sporadic: ``"none"``, ``"uniform:MAX"`` or ``"exponential:MEAN"``.
        miss: A job running at its deadline: ``"continue"``, ``"skip"`` or ``"abort"``.
        workload: Every task's job body: a kind (``"spin"``, ``"spin-cpu"``,
            ``"memwalk[:seq|random|strided[:BYTES]]"``, ``"c:LIB:SYMBOL[:ARG]"``,
            ``"cmd:PROGRAM ARGS"``) or a Python callable taking a :class:`Job`
            (not real-time: see the module doc).
        workloads: Per-task overrides, by task name or index.
        allow_command: Allow ``cmd:`` workloads.
        kernel_trace: Read the kernel's sched events from tracefs.
        job_timeout: A job running longer is declared hung by the watchdog.
        dl_slack: SCHED_DEADLINE runtime = WCET + this + ``dl_slack_ratio`` × WCET
            (at most the deadline): a job that needs more is throttled until its
            next period (``docs/runtime.md``).
        dl_slack_ratio: The part of the slack proportional to the WCET.
        start_margin: Setup time before the synchronous release.
        recalibrate: Measure the spin calibration again.
        trace: Also write the trace to this file (``.sltrace`` or ``.jsonl``).
        keep_events: Keep the events in memory (for ``events`` and the exports).
        jitter: Apply the tasks' release jitter.
        wait: Wait for another schedlab run holding the run lock to end.
        policy: Run under this policy instead of the spec's (``--policy``);
            parameters it does not take are dropped with a warning.
        set: Policy parameters for this call (``--set``), e.g. ``{"partitioning": "ffd"}``.

    Returns:
        The :class:`RunResult`.

    Raises:
        SpecError: if the spec cannot be used.
        ValueError: for a bad option (its name first), or a policy the
            backend cannot run. Nothing was touched.
        PermissionError: when the privileges are missing. Nothing was touched.
        RunError: when the run failed after it started (the machine was restored).
        KeyboardInterrupt: on SIGINT during the run (the machine was restored).
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed: expected an int from 0 to 2**64 - 1, got {seed!r}")
    trace_path = None if trace is None else _path("trace", trace)
    per_task = [(str(k), _body(f"workloads[{k!r}]", w)) for k, w in (workloads or {}).items()]
    options: dict[str, Any] = {
        "duration": _duration("duration", duration),
        "backend": _choice("backend", backend),
        "seed": seed,
        "exec": _choice("exec", exec),
        "sporadic": _choice("sporadic", sporadic),
        "jitter": _flag("jitter", jitter),
        "miss": _choice("miss", miss),
        "workload": _body("workload", workload),
        "workloads": per_task,
        "allow_command": _flag("allow_command", allow_command),
        "kernel_trace": _flag("kernel_trace", kernel_trace),
        "job_timeout": _opt_duration("job_timeout", job_timeout),
        "dl_slack": _duration("dl_slack", dl_slack),
        "dl_slack_ratio": float(dl_slack_ratio),
        "start_margin": _duration("start_margin", start_margin),
        "recalibrate": _flag("recalibrate", recalibrate),
        "trace": trace_path,
        "keep_events": _flag("keep_events", keep_events),
        "wait": _flag("wait", wait),
        **_policy_options(policy, set),
    }
    if isinstance(spec, TaskSet):
        file = spec.file
        spec_dir = str(Path(file).parent) if file and not file.startswith("<") else None
        r, info = _native.run(None, spec._json_for_core(), file or "<taskset>", spec_dir, **options)
    elif isinstance(spec, (str, os.PathLike)):
        r, info = _native.run(os.fspath(spec), **options)
    else:
        raise TypeError(f"run() takes a spec file (str or os.PathLike) or a TaskSet, not {type(spec).__name__}")
    return RunResult(r, trace_path, info)
