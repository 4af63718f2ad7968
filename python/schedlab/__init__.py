"""schedlab: multicore real-time scheduling.

One spec (YAML or JSON) describes a real-time system: the platform, the
scheduling policy, the overheads and the task set. This package reads,
validates, generates and writes specs through the same Rust core as the
``schedlab`` command (installed with the package)::

    import schedlab

    ts = schedlab.load("examples/demo.yaml")
    ts["decode"].wcet          # 6000000: durations are integer nanoseconds
    ts.utilization             # Σ wcet/period, as a float
    ts.summary()["hyperperiod"]
    gen = schedlab.generate(seed=7, cpus=4, tasks=12, util=2.5)
    print(gen.to_yaml())

    r = schedlab.simulate("examples/demo.yaml", seed=3)
    r.jobs                     # pandas DataFrame, one row per job
    r.tasks, r.cpus, r.summary # per-task and per-CPU statistics, totals
    r.validate().passed        # the schedule obeys the policy
    r.gantt("demo.svg")        # SVG Gantt chart (shown inline by Jupyter)

    a = schedlab.analyze("examples/run.yaml")
    a.schedulable              # some test proves every deadline is met
    a["run.feasibility"].slack # Fraction: m − U

Durations are integer nanoseconds and sizes integer bytes everywhere (see
:mod:`schedlab._types` for the helpers ``MS``, ``US``, ``KIB``, ``MIB``).
A spec that cannot be used raises :class:`SpecError`, which carries the file,
line, column and field path of every problem.

:func:`simulate` runs the discrete-event simulator as ``schedlab simulate``
does and returns a :class:`SimResult` (pandas DataFrames of jobs, tasks and
CPUs; the validator; Perfetto, SVG and CSV exports). :func:`validate`,
:func:`read_trace` and :func:`stats` work on trace files. :func:`run` executes
the spec on real threads of this Linux kernel (root) as ``schedlab run`` does
and returns a :class:`RunResult`, a :class:`SimResult` over the recorded
schedule plus the measured overheads.
"""

from __future__ import annotations

import difflib
import json
import math
import os
from typing import Any

from . import _native
from ._analysis import (
    VERDICTS,
    Analysis,
    BudgetSelection,
    Outcome,
    analyze,
    analyze_batch,
    linear_supply_bound,
    select_budgets,
    supply_bound,
)
from ._errors import Diagnostic, SpecError
from ._run import Job, JobEnded, RunError, RunResult, TimingViolation, run
from ._sim import GanttChart, SimResult, ValidationReport, read_trace, simulate, stats, validate
from ._types import GIB, KIB, MIB, MS, NS, US, Cache, Group, Memory, Meta, Mtt, Platform, Policy, S, Segment, Task, TaskSet

__all__ = [
    "load",
    "loads",
    "generate",
    "generator_options",
    "schema",
    "simulate",
    "SimResult",
    "run",
    "RunResult",
    "RunError",
    "Job",
    "JobEnded",
    "TimingViolation",
    "analyze",
    "analyze_batch",
    "supply_bound",
    "linear_supply_bound",
    "select_budgets",
    "BudgetSelection",
    "sweep",
    "generate_many",
    "VERDICTS",
    "Analysis",
    "Outcome",
    "GanttChart",
    "validate",
    "ValidationReport",
    "read_trace",
    "stats",
    "TaskSet",
    "Task",
    "Segment",
    "Platform",
    "Cache",
    "Policy",
    "Memory",
    "Meta",
    "Group",
    "Mtt",
    "Diagnostic",
    "SpecError",
    "NS",
    "US",
    "MS",
    "S",
    "KIB",
    "MIB",
    "GIB",
    "__version__",
]

#: The package version, the same as the Rust crates' and ``schedlab --version``.
__version__: str = _native.__version__


def load(path: str | os.PathLike[str]) -> TaskSet:
    """Load and validate a spec file.

    ``.json`` files are read as JSON, anything else as YAML. A referenced
    overhead file must exist, relative to the spec's folder.

    Args:
        path: The spec file.

    Returns:
        The :class:`TaskSet`, with any warnings in ``.warnings``.

    Raises:
        SpecError: if the file cannot be read or the spec is invalid; it
            names the file, line, column and field path of each problem.
        TypeError: if ``path`` is not a str or path-like object.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"load() takes a file path (str or os.PathLike), not {type(path).__name__}")
    return TaskSet._from_doc(_native.load(os.fspath(path)))


def loads(text: str, format: str | None = None, *, file: str = "<string>") -> TaskSet:
    """Load and validate a spec from text.

    Args:
        text: The spec, YAML or JSON.
        format: ``"yaml"``, ``"json"``, or None to detect it (JSON when the
            text starts with ``{``).
        file: The name used for the text in error messages.

    Returns:
        The :class:`TaskSet`.

    Raises:
        SpecError: if the spec is invalid (``e.file`` is ``file``).
        ValueError: if ``format`` is not one of the above.
        TypeError: if ``text`` is not a str.
    """
    if not isinstance(text, str):
        raise TypeError(f"loads() takes the spec as str, not {type(text).__name__} (decode bytes first)")
    if format is not None and not isinstance(format, str):
        raise TypeError(f"format must be \"yaml\", \"json\" or None, not {type(format).__name__}")
    return TaskSet._from_doc(_native.loads(text, format, file))


_GEN_OPTIONS: tuple[str, ...] = tuple(json.loads(_native.gen_options()))
# Options that are durations: an int is taken as nanoseconds.
_GEN_DURATIONS = frozenset({"period_granularity", "wcet_granularity"})


def generator_options() -> tuple[str, ...]:
    """The keyword arguments :func:`generate` accepts, in order."""
    return _GEN_OPTIONS


def _gen_value(name: str, v: object) -> object:
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError(f"{name}: must be a finite number, got {v!r}")
    if name in _GEN_DURATIONS and isinstance(v, int) and not isinstance(v, bool):
        if v < 0:
            raise ValueError(f"{name}: must be 0 or more nanoseconds, got {v}")
        return f"{v}ns"
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise ValueError(f"{name}: expected a number, a bool or a string, got {type(v).__name__}")


def generate(
    *,
    seed: int | None = None,
    cpus: int | None = None,
    cluster_size: int | None = None,
    policy: str | None = None,
    utils: str | None = None,
    tasks: int | None = None,
    util: float | None = None,
    slack: float | None = None,
    umin: float | None = None,
    umax: float | None = None,
    periods: str | None = None,
    period_granularity: int | str | None = None,
    harmonic: bool | None = None,
    deadlines: str | None = None,
    wcet_granularity: int | str | None = None,
    wss: str | None = None,
    cache: str | None = None,
    colors_per_task: int | None = None,
    mtt: str | None = None,
    prem: str | None = None,
) -> TaskSet:
    """Generate a random task set, exactly as ``schedlab gen`` does.

    Every keyword is optional and is the ``schedlab gen`` option of the same
    name with ``_`` for ``-`` (``generator_options()`` lists them); None
    means the command's default.

    Args:
        seed: Seed of the random generator (recorded in ``meta.seed``).
        cpus: Number of CPUs (default 4).
        cluster_size: Split the CPUs into clusters of this size.
        policy: Policy written into the spec (default ``"gedf"``).
        utils: Utilisation method or distribution: ``"uunifast-discard"``
            (default), ``"uunifast"``, ``"randfixedsum"``, ``"drs"``, or a named
            distribution such as ``"bimo-heavy"``, ``"uniform(0.1,0.4)"``.
        tasks: Number of tasks (methods that draw a fixed count; default 10).
        util: Total utilisation, or the cap for named distributions (default cpus / 2).
        slack: Named distributions: the set's utilisation lands in [util − slack, util].
        umin: Lower bound of each task's utilisation (randfixedsum, drs).
        umax: Upper bound of each task's utilisation (randfixedsum, drs).
        periods: ``"short"``, ``"moderate"`` (default), ``"long"``,
            ``"uniform:LO-HI"``, ``"log-uniform:LO-HI"``, ``"list:10ms,20ms"``.
        period_granularity: Periods are multiples of this (int ns or ``"1ms"``).
        harmonic: Make every period divide the longer ones.
        deadlines: ``"implicit"`` (D = T) or ``"constrained"`` (D uniform in [C, T]).
        wcet_granularity: WCETs are u·T rounded up to a multiple of this (int ns or text).
        wss: Working-set sizes: ``"uniform:LO-HI"`` or ``"list:S1,S2,..."``.
        cache: Shared cache geometry ``"SIZE/WAYS/LINE"``, e.g. ``"8MiB/16/64B"``.
        colors_per_task: Distinct random cache colours per task (needs ``cache``).
        mtt: Draw multithreaded tasks until ``util`` instead of independent
            tasks (Calandrino's random MTT sets):
            ``"threads=1-8,util=0.1-0.4,wss=tc:64B-512KiB"`` or ``"default"``.
        prem: PREM tasks for ``policy="mcs"``: ``"default"`` or ``key=value``
            pairs (``mode``, ``partition``, ``section``, ``bandwidth``,
            ``compute``, ``write``); one task per CPU, ``wss`` its data.

    The same options and seed always give the same task set.

    Returns:
        The :class:`TaskSet`; ``meta.seed`` and ``meta.generator`` record how
        to reproduce it.

    Raises:
        TypeError: for an unknown keyword (Python names it).
        ValueError: for a bad value (the message starts with the option's name)
            or options that cannot be met.
    """
    options = {
        "seed": seed,
        "cpus": cpus,
        "cluster_size": cluster_size,
        "policy": policy,
        "utils": utils,
        "tasks": tasks,
        "util": util,
        "slack": slack,
        "umin": umin,
        "umax": umax,
        "periods": periods,
        "period_granularity": period_granularity,
        "harmonic": harmonic,
        "deadlines": deadlines,
        "wcet_granularity": wcet_granularity,
        "wss": wss,
        "cache": cache,
        "colors_per_task": colors_per_task,
        "mtt": mtt,
        "prem": prem,
    }
    clean = {k: _gen_value(k, v) for k, v in options.items() if v is not None}
    return TaskSet._from_doc(_native.generate(json.dumps(clean)))


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the spec, as a dict."""
    result: dict[str, Any] = json.loads(_native.schema())
    return result


# Experiments (docs/experiments.md); imported last, they use generate's helpers.
from .experiment import generate_many, sweep  # noqa: E402
