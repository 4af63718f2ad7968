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
:meth:`Job.suspend` (the GIL is released while it waits there). Timing
scopes after OML (``with job.within(ms=...)``, ``with job.budget(ms=...)``,
``with job.protected():``, :meth:`Job.check`) raise
:class:`TimingViolation`; ``run(timing="benchmark")`` records their
durations instead.
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

__all__ = ["run", "RunResult", "RunError", "Job", "JobBody", "JobEnded", "TimingViolation"]


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

    def within(
        self,
        ms: float | None = None,
        *,
        us: float | None = None,
        ns: int | None = None,
        at: int | None = None,
        label: str = "",
    ) -> _Scope:
        """A deadline scope (OML's ``try_within_rel`` / ``try_within_abs``):
        ``with job.within(ms=5):`` runs the block under a deadline 5 ms from
        now (``at=``: an absolute CLOCK_MONOTONIC instant in ns, e.g.
        ``job.deadline``). Its violation raises :class:`TimingViolation`
        from the ``with`` statement: when :meth:`check` (or a preemption
        point, a suspension) notices it inside, or at the block's end if
        the block finished late. ``label`` names the scope for
        ``run(timing="benchmark")``.
        """
        if at is not None:
            return _Scope(self, "deadline", int(at), True, label)
        return _Scope(self, "deadline", _ns(ms, us, ns), False, label)

    def budget(self, ms: float | None = None, *, us: float | None = None, ns: int | None = None, label: str = "") -> _Scope:
        """A WCET scope (OML's ``try_wcet``; ``job.wcet`` is the task's WCET):
        ``with job.budget(ms=2):`` runs the block under a budget of 2 ms of
        this thread's CPU time; as :meth:`within` otherwise."""
        return _Scope(self, "wcet", _ns(ms, us, ns), False, label)

    def protected(self) -> _Protected:
        """A protected section (OML's ``oml_within_disable`` / ``enable``):
        inside ``with job.protected():`` no timing violation is raised (the
        asynchronous signal is held); one that came meanwhile is raised when
        the outermost section ends. Sections nest."""
        return _Protected(self)

    def check(self) -> None:
        """Raises the violation of an open timing scope (the outermost
        violated one), or :class:`JobEnded` when the job must end now. A
        body calls it at points where it can stop (the runtime's own
        workloads check every ~20 µs)."""
        if self._control is not None:
            _answer(self, self._control.check())


class TimingViolation(Exception):
    """A timing scope's limit was violated (raised by ``with job.within(...)``
    or ``with job.budget(...)``).

    OML's nesting rule: the violation belongs to the scope whose limit was
    violated. While the stack unwinds to that scope's ``with`` statement it
    travels as an internal exception (not an :class:`Exception`), so an
    ``except TimingViolation`` around an inner scope does not catch an
    outer scope's violation; the owner's ``with`` raises this. A violation
    the body lets escape ends the job (an unhandled timing exception, in
    the trace), not the run.

    Attributes:
        kind: ``"deadline"`` or ``"wcet"``.
        scope: The scope's id (``Scope.id`` of the ``with`` statement).
        depth: Its nesting depth (0: the outermost).
        limit: The absolute deadline (CLOCK_MONOTONIC ns) or the budget (CPU ns).
        lateness: When noticed: ns of wall time past the deadline, or of CPU
            time past the budget.
    """

    def __init__(self, kind: str, scope: int, depth: int, limit: int, lateness: int) -> None:
        super().__init__(f"{kind} violated (scope {scope}, depth {depth}, {lateness / 1e3:.1f} µs late)")
        self.kind = kind
        self.scope = scope
        self.depth = depth
        self.limit = limit
        self.lateness = lateness


class _Unwind(BaseException):
    """An outer scope's violation on its way to that scope's ``with``."""

    def __init__(self, violation: TimingViolation) -> None:
        super().__init__(str(violation))
        self.violation = violation


def _ns(ms: float | None, us: float | None, ns: int | None) -> int:
    given = [(v, f) for v, f in ((ms, 1e6), (us, 1e3), (ns, 1)) if v is not None]
    if len(given) != 1:
        raise ValueError("give exactly one of ms=, us=, ns= (or at= for within)")
    v, f = given[0]
    if v < 0:
        raise ValueError(f"a timing limit must not be negative, got {v}")
    return int(round(v * f))


def _answer(job: Job, a: tuple[int, tuple[str, int, int, int, int] | None]) -> TimingViolation | None:
    """Acts on a native timing answer: 0 nothing, 1 returns this scope's
    violation, 2 unwinds to the violated scope, -1 the job must end."""
    code, v = a
    if code == 0:
        return None
    if code == -1 or v is None:
        raise JobEnded(f"job {job.job} of task {job.task} must end")
    tv = TimingViolation(*v)
    if code == 1:
        return tv
    raise _Unwind(tv)


class _Scope:
    """``with job.within(...)`` / ``with job.budget(...)``; ``id`` is its scope id."""

    def __init__(self, job: Job, kind: str, ns: int, absolute: bool, label: str) -> None:
        self._job, self._args, self.id = job, (kind, ns, absolute, label), 0

    def __enter__(self) -> _Scope:
        if self._job._control is not None:
            self.id = self._job._control.begin(*self._args)
            if self.id == 0:
                raise JobEnded(f"job {self._job.job} of task {self._job.task} must end")
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: Any) -> bool:
        c = self._job._control
        if c is None or self.id == 0:
            return False
        a = c.end(self.id)
        if isinstance(ev, _Unwind) and ev.violation.scope == self.id:
            raise ev.violation from None
        if ev is not None:
            return False  # another scope's violation, JobEnded or the body's own error: on its way
        v = _answer(self._job, a)
        if v is not None:
            raise v
        return False


class _Protected:
    def __init__(self, job: Job) -> None:
        self._job = job

    def __enter__(self) -> _Protected:
        if self._job._control is not None:
            self._job._control.protect_begin()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: Any) -> bool:
        c = self._job._control
        if c is None:
            return False
        a = c.protect_end()
        if ev is None:
            _answer(self._job, a)
        return False


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
            try:
                f(Job(task, job, release, deadline, exec, wcet, tuple(control.segments), control))
            except TimingViolation as v:
                control.unhandled(v.scope)  # the job ends with it (unhandled), not the run
            except _Unwind as u:
                control.unhandled(u.violation.scope)

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
    def scope_times(self) -> list[dict[str, Any]]:
        """``run(timing="benchmark")``: every timing scope that ended, as
        ``{"task", "job", "label", "limit", "ns", "limit_ns"}`` (``limit``
        ``"wcet"``: ``ns`` of thread CPU time; ``"deadline"``: of wall time),
        from the trace's ``scope-time`` events."""
        return [dict(e["data"]) for e in self.events or [] if e.get("ev") == "note" and e.get("name") == "scope-time"]

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
    timing: str = "cooperative",
    counters: str = "auto",
    idle: str = "poll",
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
            ``"memwalk[:seq|random|strided[:BYTES]]"``, ``"prem"``, ``"c:LIB:SYMBOL[:ARG]"``,
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
        timing: The job bodies' timing scopes (``--timing``): ``"cooperative"``
            (checks read the clocks), ``"async"`` (a timer signal sets a flag
            the checks read) or ``"benchmark"`` (scopes never raise; each
            records its duration: :attr:`RunResult.scope_times`).
        counters: Where the dispatch backend's counters (``Kernel::counters``)
            come from (``--counters``): ``"auto"`` (perf's hardware events
            where the machine has them, else the counts the workloads
            publish), ``"perf"`` or ``"workload"``; the source is in
            :attr:`RunResult.notes`.
        idle: What idle CPUs do during the run (``--idle``): ``"poll"`` (a
            0 µs wake-up latency request on ``/dev/cpu_dma_latency``, as
            cyclictest makes, released by the kernel when the run ends) or
            ``"kernel"`` (the kernel's idle states).

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
        "timing": _choice("timing", timing),
        "counters": _choice("counters", counters),
        "idle": _choice("idle", idle),
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
