"""Simulation, traces and validation: :func:`simulate`, :class:`SimResult`,
:func:`validate`, :class:`ValidationReport`, :func:`read_trace`, :func:`stats`.

The simulation runs in the Rust core exactly as ``schedlab simulate`` does
(same options, same defaults, same trace); the results stay there until they
are asked for, and tables come back as columns of raw values, so that runs of
10^5–10^6 jobs cost no Python object per job until a DataFrame is built.
"""

from __future__ import annotations

import json
import operator
import os
import warnings
from collections.abc import Iterator, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _native
from ._types import TaskSet

if TYPE_CHECKING:
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]

__all__ = ["simulate", "SimResult", "GanttChart", "ValidationReport", "validate", "read_trace", "stats"]

#: What an argument that is a duration may be: an int of nanoseconds or text with a unit.
Duration = int | str

_JOB_STATUS = ("completed", "aborted", "unfinished")
_OVERHEAD_KINDS = ("release", "schedule", "context-switch", "ipi", "tick", "cpmd", "release-latency")
_MODES = ("auto", "priority", "replay", "generic")


# -- argument checking -----------------------------------------------------------------------


def _duration(name: str, v: object) -> str:
    """A duration argument as the text the Rust core parses (ints are ns)."""
    if isinstance(v, str):
        return v
    if not isinstance(v, bool):
        try:
            n = operator.index(v)  # type: ignore[arg-type]
        except TypeError:
            pass
        else:
            if n < 0:
                raise ValueError(f"{name}: must be 0 or more nanoseconds, got {n}")
            return f"{n}ns"
    raise ValueError(
        f"{name}: expected a duration, an int of nanoseconds or a string with a unit such as \"10ms\", "
        f"got {type(v).__name__} {v!r}"
    )


def _opt_duration(name: str, v: object) -> str | None:
    return None if v is None else _duration(name, v)


def _choice(name: str, v: object) -> str:
    if not isinstance(v, str):
        raise ValueError(f"{name}: expected a string, got {type(v).__name__} {v!r}")
    return v


def _flag(name: str, v: object) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"{name}: expected True or False, got {type(v).__name__} {v!r}")
    return v


def _path(name: str, v: object) -> str:
    if not isinstance(v, (str, os.PathLike)):
        raise ValueError(f"{name}: expected a file path (str or os.PathLike), got {type(v).__name__} {v!r}")
    return os.fspath(v)


def _write(path: str | os.PathLike[str] | None, text: str) -> None:
    if path is not None:
        Path(_path("path", path)).write_text(text, encoding="utf-8")


# -- validation -----------------------------------------------------------------------------


class ValidationReport(Mapping[str, Any]):
    """The validator's verdict on a schedule (``schedlab validate``).

    A read-only mapping: the keys are those of ``schedlab validate --json``
    (``pass``, ``policy``, ``policy_checks``, ``source``, ``tolerance``,
    ``horizon``, ``events``, ``jobs``, ``checks``, ``misses``, ``overruns``,
    ``latency``, ``notes``); times are integer ns. ``str(report)`` is the
    text ``schedlab validate`` prints.

    Deadline misses are not violations: the validator checks that the
    schedule is the one the policy should produce, and reports the misses
    (``report["misses"]``) as information.
    """

    def __init__(self, doc: str) -> None:
        d = json.loads(doc)
        self._report: dict[str, Any] = d["report"]
        self._first: dict[str, Any] | None = d["first_violation"]
        self._text: str = d["text"]

    @property
    def passed(self) -> bool:
        """True when no check found a violation."""
        return bool(self._report["pass"])

    @property
    def first_violation(self) -> dict[str, Any] | None:
        """The earliest violation of any check (``check``, ``t``, ``detected``,
        ``cpu``, ``message``, ``ran``, ``expected``, ``events``), or None."""
        return self._first

    @property
    def violations(self) -> dict[str, int]:
        """Violations per check that ran (0 for the checks that passed)."""
        return {c["check"]: c["violations"] for c in self._report["checks"]}

    def to_dict(self) -> dict[str, Any]:
        """The report as a plain dict (a copy)."""
        result: dict[str, Any] = json.loads(json.dumps(self._report))
        return result

    def __getitem__(self, key: str) -> Any:
        return self._report[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._report)

    def __len__(self) -> int:
        return len(self._report)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        verdict = "PASS" if self.passed else "FAIL"
        policy = self._report.get("policy") or "generic checks"
        failed = [k for k, n in self.violations.items() if n]
        tail = f", violations in {', '.join(failed)}" if failed else ""
        return f"<ValidationReport {verdict}: {policy}, {self._report['events']} events{tail}>"


def validate(
    trace: str | os.PathLike[str] | SimResult, tolerance: Duration = 0, mode: str = "auto"
) -> ValidationReport:
    """Validate a schedule: a trace file (JSON Lines or binary, streamed) or a
    :class:`SimResult`, as ``schedlab validate`` does.

    Args:
        trace: A trace file, or the result of :func:`simulate`.
        tolerance: Decisions may lag events by up to this much (int ns or
            text such as ``"200us"``); 0 for simulated schedules.
        mode: ``"auto"`` (by the policy's kind), ``"priority"``,
            ``"replay"`` or ``"generic"`` (invariants only).

    Returns:
        The :class:`ValidationReport`; ``.passed`` is the verdict.

    Raises:
        ValueError: for a bad option (the message starts with its name), a
            file that is not a trace, or a trace that cannot be checked.
        OSError: if the file cannot be read.
    """
    if isinstance(trace, SimResult):
        return trace.validate(tolerance=tolerance, mode=mode)
    path = _path("trace", trace)
    return ValidationReport(_native.validate_trace(path, _duration("tolerance", tolerance), _choice("mode", mode)))


def read_trace(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Read a whole trace file (JSON Lines or binary) into memory.

    Returns:
        ``(header, events)``: the header as a dict (``schedlab_trace``,
        ``tool``, ``source``, ``clock``, ``seed``, ``spec``, ``placement``,
        ``horizon``) and the events as dicts (``{"ev": "release", "t": 0,
        "task": 0, "job": 0, "deadline": 10000000}``...), times in ns.

    Raises:
        ValueError: if the file is not a valid trace (the message names the
            line or byte offset).
        OSError: if the file cannot be read.
    """
    header, events = _native.read_trace(_path("path", path))
    h: dict[str, Any] = json.loads(header)
    ev: list[dict[str, Any]] = json.loads(events)
    return h, ev


def stats(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The statistics of a trace file, as ``schedlab stats --json`` prints
    them (streamed: memory does not grow with the trace).

    Returns:
        A dict with ``horizon``, ``tasks`` (one dict per task), ``cpus``,
        ``overheads`` and ``totals``; times in integer ns.

    Raises:
        ValueError: if the file is not a valid trace.
        OSError: if the file cannot be read.
    """
    result: dict[str, Any] = json.loads(_native.trace_stats(_path("path", path)))
    return result


# -- simulation -----------------------------------------------------------------------------


class GanttChart(str):
    """An SVG Gantt chart: the SVG text (a ``str``), shown as a picture by
    Jupyter and IPython."""

    def _repr_svg_(self) -> str:
        return str(self)


def _placement(p: Mapping[str, Any]) -> str:
    kind = p.get("kind")
    if kind == "cpu":
        return f"cpu {p['cpu']}"
    if kind == "cluster":
        return f"cluster {p['cluster']}"
    return str(kind)


class SimResult:
    """The outcome of :func:`simulate`.

    Tables are pandas DataFrames, built when first asked for; times are
    integer nanoseconds.

    Attributes:
        jobs: One row per job (see :attr:`jobs`).
        tasks: Per-task statistics, indexed by task name.
        cpus: Per-CPU busy time, utilisation and overheads, indexed by CPU.
        summary: Totals over the whole schedule.
        stats: The whole statistics report (``schedlab simulate --json``).
        events: The events as dicts (None unless ``keep_events``).
        header: The trace header.
        trace: The trace file written, or None.
    """

    def __init__(self, run: _native.SimRun, trace: str | None) -> None:
        self._run = run
        self._trace = trace

    # -- facts ---------------------------------------------------------------------------------

    @cached_property
    def header(self) -> dict[str, Any]:
        """The trace header: ``tool``, ``source``, ``clock``, ``seed``, ``spec``
        (as written in the trace), ``placement`` (per task) and ``horizon`` (ns)."""
        h: dict[str, Any] = json.loads(self._run.header_json())
        return h

    @property
    def trace(self) -> str | None:
        """The trace file written (``trace=``), or None."""
        return self._trace

    @property
    def horizon(self) -> int:
        """The end of the simulated interval, in ns."""
        return int(self.stats["horizon"])

    @property
    def task_names(self) -> tuple[str, ...]:
        """The task names, by task index."""
        return tuple(t["name"] for t in self.header["spec"]["tasks"])

    @cached_property
    def stats(self) -> dict[str, Any]:
        """The statistics report, as ``schedlab simulate --json`` and
        :func:`schedlab.stats` give it: ``horizon``, ``tasks``, ``cpus``,
        ``overheads``, ``totals``."""
        s: dict[str, Any] = json.loads(self._run.report_json())
        return s

    @property
    def summary(self) -> dict[str, Any]:
        """Totals: ``horizon``, ``events``, ``jobs``, ``completed``,
        ``aborted``, ``unfinished``, ``misses``, ``miss_ratio``,
        ``max_response``, ``max_tardiness``, ``preemptions``, ``migrations``,
        ``busy``, ``utilization`` (busy / horizon: the mean number of busy
        CPUs), ``overhead``, ``implicit_releases``, ``anomalies``, and
        ``overheads`` by kind (``{"tick": {"count", "total", "max"}, ...}``)."""
        s = self.stats
        out: dict[str, Any] = {"horizon": s["horizon"], **s["totals"]}
        out["overheads"] = {o["kind"]: {k: o[k] for k in ("count", "total", "max")} for o in s["overheads"]}
        return out

    @cached_property
    def jobs(self) -> pd.DataFrame:
        """One row per job, sorted by (task index, job):

        ``task`` (name, categorical), ``task_index``, ``job`` (0-based per
        task), ``release``, ``deadline`` (absolute), ``start`` (first run),
        ``finish`` (completion or abort), ``response`` (finish − release, for
        completed jobs), ``tardiness`` (max(0, finish − deadline); for an
        unfinished job, up to the horizon), ``missed`` (bool),
        ``preemptions``, ``migrations``, ``exec`` (time run), ``status``
        (categorical: ``completed``, ``aborted``, ``unfinished``).

        Times are int64 ns; ``start``, ``finish`` and ``response`` are
        nullable ``Int64`` (``<NA>`` for a job that never ran, did not finish,
        or was aborted). The columns are those of :meth:`to_csv`.
        """
        import numpy as np
        import pandas as pd

        cols = self._run.job_columns()

        def i64(name: str) -> Any:
            return np.frombuffer(cols[name], dtype=np.int64)

        def nullable(name: str) -> Any:
            mask = np.frombuffer(cols[name + "_missing"], dtype=np.bool_)
            return pd.arrays.IntegerArray(i64(name), mask)

        task_index = i64("task_index")
        return pd.DataFrame(
            {
                "task": pd.Categorical.from_codes(task_index, categories=list(self.task_names)),
                "task_index": task_index,
                "job": i64("job"),
                "release": i64("release"),
                "deadline": i64("deadline"),
                "start": nullable("start"),
                "finish": nullable("finish"),
                "response": nullable("response"),
                "tardiness": i64("tardiness"),
                "missed": np.frombuffer(cols["missed"], dtype=np.bool_),
                "preemptions": i64("preemptions"),
                "migrations": i64("migrations"),
                "exec": i64("exec"),
                "status": pd.Categorical.from_codes(
                    np.frombuffer(cols["status"], dtype=np.uint8), categories=list(_JOB_STATUS)
                ),
            }
        )

    @cached_property
    def tasks(self) -> pd.DataFrame:
        """Per-task statistics, indexed by task name (``task``):

        ``task_index``, ``placement`` (``global``, ``cpu N`` or ``cluster
        N``), ``jobs``, ``completed``, ``aborted``, ``unfinished``,
        ``misses``, ``miss_ratio``, ``max_response`` (nullable ``Int64``),
        ``mean_response`` (float ns, NaN without completed jobs),
        ``max_tardiness``, ``preemptions``, ``migrations``, ``exec``.
        """
        import pandas as pd

        rows = self.stats["tasks"]
        placement = self.header["placement"]
        ints = ("jobs", "completed", "aborted", "unfinished", "misses", "max_tardiness", "preemptions", "migrations", "exec")
        data: dict[str, Any] = {
            "task_index": pd.array([r["task"] for r in rows], dtype="int64"),
            "placement": [_placement(placement[r["task"]]) if r["task"] < len(placement) else "global" for r in rows],
        }
        for k in ints[:5]:
            data[k] = pd.array([r[k] for r in rows], dtype="int64")
        data["miss_ratio"] = pd.array([r["miss_ratio"] for r in rows], dtype="float64")
        data["max_response"] = pd.array([r["max_response"] for r in rows], dtype="Int64")
        data["mean_response"] = pd.array(
            [float("nan") if r["mean_response"] is None else r["mean_response"] for r in rows], dtype="float64"
        )
        for k in ints[5:]:
            data[k] = pd.array([r[k] for r in rows], dtype="int64")
        return pd.DataFrame(data, index=pd.Index([r["name"] for r in rows], name="task"))

    @cached_property
    def cpus(self) -> pd.DataFrame:
        """Per-CPU figures, indexed by CPU number (``cpu``): ``busy`` (ns of
        job execution), ``utilization`` (busy / horizon), ``switches``,
        ``overhead`` (total ns), then the overhead time of each kind in ns:
        ``release``, ``schedule``, ``context-switch``, ``ipi``, ``tick``,
        ``cpmd``, ``release-latency`` (0 when none occurred)."""
        import pandas as pd

        rows = self.stats["cpus"]
        data: dict[str, Any] = {
            "busy": pd.array([r["busy"] for r in rows], dtype="int64"),
            "utilization": pd.array([r["utilization"] for r in rows], dtype="float64"),
            "switches": pd.array([r["switches"] for r in rows], dtype="int64"),
            "overhead": pd.array([r["overhead"] for r in rows], dtype="int64"),
        }
        for kind in _OVERHEAD_KINDS:
            totals = [sum(o["total"] for o in r["overheads"] if o["kind"] == kind) for r in rows]
            data[kind] = pd.array(totals, dtype="int64")
        return pd.DataFrame(data, index=pd.Index([r["cpu"] for r in rows], name="cpu", dtype="int64"))

    @cached_property
    def events(self) -> list[dict[str, Any]] | None:
        """The schedule's events as dicts, in time order (``{"ev":
        "switch-to", "t": 0, "cpu": 0, "task": 4, "job": 0}``...), or None
        when the run did not keep them (``keep_events=False``)."""
        text = self._run.events_json()
        if text is None:
            return None
        ev: list[dict[str, Any]] = json.loads(text)
        return ev

    # -- checks and exports ---------------------------------------------------------------------

    def validate(self, tolerance: Duration = 0, mode: str = "auto") -> ValidationReport:
        """Check the schedule with the validator (``schedlab validate``).

        Args:
            tolerance: Decisions may lag events by up to this much (0 for the simulator).
            mode: ``"auto"``, ``"priority"``, ``"replay"`` or ``"generic"``.

        Raises:
            ValueError: for a bad option, or when neither the events nor a
                trace file were kept.
        """
        return ValidationReport(self._run.validate(_duration("tolerance", tolerance), _choice("mode", mode)))

    def to_perfetto(self, path: str | os.PathLike[str] | None = None) -> str:
        """The schedule as Chrome / Perfetto trace-event JSON (open it at
        ui.perfetto.dev); written to ``path`` when one is given.

        Raises:
            ValueError: when neither the events nor a trace file were kept.
        """
        text = self._run.perfetto()
        _write(path, text)
        return text

    def gantt(
        self,
        path: str | os.PathLike[str] | None = None,
        start: Duration | None = None,
        end: Duration | None = None,
        width: int = 1200,
    ) -> GanttChart:
        """An SVG Gantt chart of the schedule: a row per task, boxes coloured
        by CPU, releases, deadlines, misses in red. Written to ``path`` when
        one is given; a Jupyter cell shows it.

        Args:
            path: A file to write the SVG to.
            start: First instant shown (int ns or text; default 0).
            end: Last instant shown (default: the horizon).
            width: Width in pixels.

        Raises:
            ValueError: for a bad option, or when neither the events nor a
                trace file were kept.
        """
        if isinstance(width, bool) or not isinstance(width, int) or not 1 <= width < 2**32:
            raise ValueError(f"width: expected a number of pixels (an int from 1), got {width!r}")
        svg = GanttChart(self._run.svg(_opt_duration("start", start), _opt_duration("end", end), width))
        _write(path, svg)
        return svg

    def to_csv(self, path: str | os.PathLike[str] | None = None) -> str:
        """The job table as CSV (the columns of :attr:`jobs`, the format of
        ``schedlab export --csv``); written to ``path`` when one is given."""
        text = self._run.jobs_csv()
        _write(path, text)
        return text

    def to_jsonl(self, path: str | os.PathLike[str] | None = None) -> str:
        """The whole trace as JSON Lines text (the header line, then one event
        per line), as ``trace="x.jsonl"`` writes it; written to ``path`` when
        one is given.

        Raises:
            ValueError: when neither the events nor a trace file were kept.
        """
        text = self._run.trace_jsonl()
        _write(path, text)
        return text

    @property
    def notices(self) -> tuple[str, ...]:
        """What the simulation told (also issued as warnings): a horizon cut
        short by ``horizon_cap``, an option without effect, parameters dropped
        by ``policy=``."""
        return tuple(self._run.notices)

    @property
    def hrt_misses(self) -> int:
        """Deadline misses of ``hrt`` tasks (``--fail-on-miss`` fails on them)."""
        return int(self._run.hrt_misses)

    def _repr_html_(self) -> str:
        """Per-task statistics and the totals as HTML tables (shown by Jupyter)."""
        import html

        e = html.escape
        cols = ("name", "jobs", "misses", "max_response", "max_tardiness", "preemptions", "migrations")
        head = "".join(f"<th>{c}</th>" for c in cols)
        rows = "".join(
            "<tr>" + "".join(f"<td>{e(str(t.get(c, '')))}</td>" for c in cols) + "</tr>" for t in self.stats["tasks"]
        )
        s = self.summary
        policy = (self.header["spec"].get("policy") or {}).get("name", "?")
        return (
            f"<p>simulated {e(str(policy))} over {s['horizon']} ns: {s['jobs']} jobs, {s['misses']} misses</p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
        )

    def __repr__(self) -> str:
        s = self.summary
        policy = (self.header["spec"].get("policy") or {}).get("name", "?")
        return (
            f"<SimResult {policy}: {s['jobs']} jobs, {s['misses']} misses, horizon {s['horizon']} ns, "
            f"{s['events']} events{'' if self._run.has_events else ' (not kept)'}>"
        )


def simulate(
    spec: str | os.PathLike[str] | TaskSet,
    *,
    horizon: Duration | None = None,
    seed: int = 0,
    exec: str = "wcet",
    sporadic: str = "none",
    miss: str = "continue",
    overheads: bool = True,
    tick: Duration = "1ms",
    trace: str | os.PathLike[str] | None = None,
    keep_events: bool = True,
    horizon_cap: Duration = "10s",
    jitter: bool = True,
    policy: str | None = None,
    set: dict[str, Any] | None = None,
) -> SimResult:
    """Simulate a spec under its policy, as ``schedlab simulate`` does.

    The options are those of the command, with the same defaults. Durations
    are ints of nanoseconds or text with a unit (``"10ms"``, ``"2.5ms"``).

    Args:
        spec: A spec file, or a :class:`TaskSet` (its overhead file, if any,
            is looked up beside the file it was loaded from).
        horizon: End of the simulation; default the hyperperiod plus the
            largest offset, capped at ``horizon_cap``.
        seed: Seed of every random choice (sporadic arrivals, execution
            times, jitter): the same seed gives the same schedule.
        exec: Execution time of each job: ``"wcet"``, ``"uniform"`` in
            [bcet, wcet], or ``"fraction:F"`` of the WCET (a task's
            ``executions`` list always wins; ``docs/jobs.md``).
        sporadic: Extra inter-arrival beyond the period: ``"none"``,
            ``"uniform:MAX"`` or ``"exponential:MEAN"`` (e.g. ``"uniform:5ms"``).
        miss: A job that misses its deadline: ``"continue"``, ``"abort"`` at
            the deadline, or ``"skip"`` releases while it is late.
        overheads: Use the spec's overhead model (False: ignore it).
        tick: Tick period for tick overhead (0 disables ticks).
        trace: Write the trace to this file (``.jsonl`` text or ``.sltrace`` binary).
        keep_events: Keep the events in memory, for :attr:`SimResult.events`
            and the exports (without them, the exports read ``trace`` back).
        horizon_cap: Cap on the computed horizon (``--horizon-cap``).
        jitter: Apply the tasks' release jitter (False: ``--no-jitter``).
        policy: Simulate under this policy instead of the spec's
            (``--policy``); parameters it does not take are dropped with a warning.
        set: Policy parameters for this call (``--set``), e.g. ``{"quantum": "500us"}``.

    Notices (a horizon cut short by ``horizon_cap``, ``exec="uniform"``
    without any ``bcet``) are issued as :class:`UserWarning`.

    Returns:
        The :class:`SimResult`.

    Raises:
        SpecError: if the spec cannot be used, or has no ``policy``.
        ValueError: for a bad option (the message starts with its name), or
            a task set the policy does not admit (e.g. partitioning fails;
            the message names the spec and the field).
        OSError: if the trace file cannot be written.
        TypeError: if ``spec`` is neither a path nor a TaskSet.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed: expected an int from 0 to 2**64 - 1, got {seed!r}")
    trace_path = None if trace is None else _path("trace", trace)
    options: dict[str, Any] = {
        "horizon": _opt_duration("horizon", horizon),
        "horizon_cap": _duration("horizon_cap", horizon_cap),
        "seed": seed,
        "exec": _choice("exec", exec),
        "sporadic": _choice("sporadic", sporadic),
        "jitter": _flag("jitter", jitter),
        "miss": _choice("miss", miss),
        "overheads": _flag("overheads", overheads),
        "tick": _duration("tick", tick),
        "trace": trace_path,
        "keep_events": _flag("keep_events", keep_events),
        **_policy_options(policy, set),
    }
    if isinstance(spec, TaskSet):
        file = spec.file
        spec_dir = str(Path(file).parent) if file and not file.startswith("<") else None
        run = _native.simulate(None, spec._json_for_core(), file or "<taskset>", spec_dir, **options)
    elif isinstance(spec, (str, os.PathLike)):
        run = _native.simulate(os.fspath(spec), **options)
    else:
        raise TypeError(f"simulate() takes a spec file (str or os.PathLike) or a TaskSet, not {type(spec).__name__}")
    for n in run.notices:
        warnings.warn(n, stacklevel=2)
    return SimResult(run, trace_path)


def _policy_options(policy: str | None, set: dict[str, Any] | None) -> dict[str, Any]:
    """``policy=`` and ``set=`` as the core takes them (``--policy``, ``--set KEY=VALUE``)."""
    if policy is not None and not isinstance(policy, str):
        raise ValueError(f"policy: expected a policy name such as 'pedf', got {policy!r}")
    if set is None:
        return {"policy": policy, "set": None}
    if not isinstance(set, dict) or not all(isinstance(k, str) for k in set):
        raise ValueError(f"set: expected a dict of policy parameters, e.g. {{'quantum': '500us'}}, got {set!r}")
    pairs = []
    for k, v in set.items():
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, int):
            v = f"{v}ns" if k == "quantum" else str(v)
        pairs.append(f"{k}={v}")
    return {"policy": policy, "set": pairs}

