"""Schedulability analysis from Python: :func:`analyze` runs the tests of the
registry (``schedlab tests``) on a spec, exactly as ``schedlab analyze``
does, and returns the explained outcomes; :func:`analyze_batch` runs tests
on many task sets in one call and returns their verdicts."""

from __future__ import annotations

import html
import itertools
import json
import os
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _native
from ._sim import _choice, _duration, _flag, _path, _policy_options
from ._types import TaskSet

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]


def _fraction(v: dict[str, Any] | None) -> Fraction | None:
    return None if v is None else Fraction(v["exact"])


@dataclass(frozen=True)
class Outcome:
    """One test's answer.

    Attributes:
        test: The test's registry ID, e.g. ``"run.feasibility"``.
        title: What the test checks.
        exact: True for an exact test, False for a sufficient one.
        verdict: ``"schedulable"``, ``"unschedulable"``, ``"inconclusive"``
            (a sufficient test failed) or ``"not-applicable"``.
        reason: One sentence explaining the verdict.
        task: Index of the task that decided it, or None.
        task_name: That task's name, or None.
        value: The quantity compared, exactly (or None).
        bound: The bound it was compared with, exactly (or None).
        slack: ``bound - value`` (or None).
        details: Supporting lines.
        soft: True for a soft real-time test (its verdict is about bounded
            tardiness, not deadlines).
        decides: True when the test is about the spec's policy (only those
            decide :attr:`Analysis.proven`).
        groups: For ``hcbs.msf``, one dict per reservation group (its
            ``group`` name, ``path``, ``budgets_ns``, ``period_ns``, ``leaf``,
            ``tasks``, the ``supplies`` of its tasks per CPU, ``notes`` and
            its own ``outcome``, as in the JSON of ``schedlab analyze``);
            None for other tests.
        response_times_ns: For tests that compute worst-case response
            times (``uni.fp.rta``, ``mcs.holistic``, ...), each task's bound in
            ns by task index (None where not computed); None for other tests.
    """

    test: str
    title: str | None
    exact: bool | None
    verdict: str
    reason: str
    task: int | None
    task_name: str | None
    value: Fraction | None
    bound: Fraction | None
    slack: Fraction | None
    details: tuple[str, ...]
    soft: bool = False
    decides: bool = True
    groups: tuple[dict[str, Any], ...] | None = None
    response_times_ns: tuple[int | None, ...] | None = None

    @property
    def schedulable(self) -> bool:
        """The test's verdict is ``"schedulable"`` (for a soft test: tardiness is bounded)."""
        return self.verdict == "schedulable"


@dataclass(frozen=True)
class Analysis:
    """The result of :func:`analyze`.

    The answer is :attr:`proven` (docs/analysis.md, "What the verdict
    means"): a hard real-time test about the spec's policy shows that every
    ``hrt`` task meets every deadline. Soft real-time results (tardiness
    bounds) are in :attr:`soft` and decide only when no task is ``hrt``.

    Attributes:
        policy: The spec's policy name, or None.
        schedulable: The same as :attr:`proven` (kept for existing code).
        outcomes: One :class:`Outcome` per test run, in order.
        overheads: The overhead accounting (model file, method, costs, and
            per task the WCET before and after), or None without overheads.
        decision: ``"proven"``, ``"unschedulable"`` or ``"inconclusive"``.
        decided_by: The ID of the test that decided, or None.
        why: One sentence: the decision and why.
        soft: The soft real-time result of the policy's tardiness test
            (``{"test", "bounded", "tardiness": [{"task", "bound_ns", ...}]}``), or None.
        text: The report as ``schedlab analyze`` prints it.
    """

    policy: str | None
    schedulable: bool
    outcomes: tuple[Outcome, ...]
    overheads: dict[str, Any] | None
    decision: str = "inconclusive"
    decided_by: str | None = None
    why: str = ""
    soft: dict[str, Any] | None = None
    text: str = field(default="", repr=False)

    @property
    def proven(self) -> bool:
        """Every ``hrt`` task is shown to meet every deadline under the spec's policy."""
        return self.decision == "proven"

    def __str__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        """One row per test, then the decision (shown by Jupyter)."""
        e = html.escape
        rows = "".join(
            f"<tr><td><code>{e(o.test)}</code></td><td>{e(o.verdict)}</td>"
            f"<td>{'' if o.decides else 'other policy'}</td><td>{e(o.reason)}</td></tr>"
            for o in self.outcomes
        )
        return (
            f"<table><thead><tr><th>test</th><th>verdict</th><th></th><th>reason</th></tr></thead>"
            f"<tbody>{rows}</tbody></table><p><b>{e(self.decision)}</b>: {e(self.why)}</p>"
        )

    def __getitem__(self, test: str) -> Outcome:
        """The outcome of a test by ID."""
        for o in self.outcomes:
            if o.test == test:
                return o
        raise KeyError(f"no outcome for test {test!r}; ran: {', '.join(o.test for o in self.outcomes)}")


def analyze(
    spec: str | os.PathLike[str] | TaskSet,
    *,
    tests: list[str] | tuple[str, ...] | None = None,
    all: bool = False,
    overheads: str | os.PathLike[str] | None = None,
    use_overheads: bool = True,
    accounting: str = "epos",
    tick: int | str = "1ms",
    lookup: str = "step",
    policy: str | None = None,
    set: dict[str, Any] | None = None,
) -> Analysis:
    """Run schedulability tests on a spec, as ``schedlab analyze`` does.

    Args:
        spec: A spec file, or a :class:`TaskSet`.
        tests: Test IDs to run (``schedlab tests`` lists them); default the
            tests about the spec's policy.
        all: Run every test in the registry.
        overheads: An overhead CSV to charge instead of the spec's ``overheads``.
        use_overheads: False ignores the spec's overhead model.
        accounting: ``"epos"`` (Eq. 2/3) or ``"per-task-release"``.
        tick: Tick period of the accounting (int ns or text such as ``"1ms"``; 0: none).
        lookup: Overheads by task count: ``"step"``, ``"linear"`` or ``"floor"``.
        policy: Analyse under this policy instead of the spec's (``--policy``);
            parameters it does not take are dropped with a warning.
        set: Policy parameters for this call (``--set``), e.g. ``{"quantum": "500us"}``.

    Returns:
        The :class:`Analysis`.

    Raises:
        SpecError: if the spec cannot be used.
        ValueError: for a bad option, an unknown test ID (the message names
            the closest one), or overheads that cannot be charged.
        TypeError: if ``spec`` is neither a path nor a TaskSet.
    """
    if tests is not None:
        if isinstance(tests, str) or not _all_str(tests):
            raise ValueError(f"tests: expected a list of test IDs, got {tests!r}")
        tests = list(tests)
    options: dict[str, Any] = {
        "tests": tests,
        "all": _flag("all", all),
        "overheads": None if overheads is None else _path("overheads", overheads),
        "use_overheads": _flag("use_overheads", use_overheads),
        "accounting": _choice("accounting", accounting),
        "tick": _duration("tick", tick),
        "lookup": _choice("lookup", lookup),
        **_policy_options(policy, set),
    }
    if isinstance(spec, TaskSet):
        file = spec.file
        spec_dir = str(Path(file).parent) if file and not file.startswith("<") else None
        out = _native.analyze(None, spec._json_for_core(), spec_dir, **options)
    elif isinstance(spec, (str, os.PathLike)):
        out = _native.analyze(os.fspath(spec), **options)
    else:
        raise TypeError(f"analyze() takes a spec file (str or os.PathLike) or a TaskSet, not {type(spec).__name__}")
    doc = json.loads(out)
    outcomes = tuple(
        Outcome(
            test=o["test"],
            title=o["title"],
            exact=o["exact"],
            verdict=o["verdict"],
            reason=o["reason"],
            task=o["task"],
            task_name=o["task_name"],
            value=_fraction(o["value"]),
            bound=_fraction(o["bound"]),
            slack=_fraction(o["slack"]),
            details=tuple(o["details"]),
            soft=o["soft"],
            decides=o["decides"],
            groups=None if o.get("groups") is None else tuple(o["groups"]),
            response_times_ns=None if o.get("response_times_ns") is None else tuple(o["response_times_ns"]),
        )
        for o in doc["outcomes"]
    )
    for n in doc.get("notices", []):
        warnings.warn(n, stacklevel=2)
    return Analysis(
        policy=doc["policy"],
        schedulable=doc["proven"],
        outcomes=outcomes,
        overheads=doc["overheads"],
        decision=doc["decision"],
        decided_by=doc["decided_by"],
        why=doc["why"],
        soft=doc["soft"],
        text=doc.get("text", ""),
    )


def _all_str(xs: Any) -> bool:
    return all(isinstance(x, str) for x in xs)


#: The verdicts of :func:`analyze_batch`, in the order of their codes.
VERDICTS = ("schedulable", "unschedulable", "inconclusive", "not-applicable")


def analyze_batch(
    tasksets: Any,
    *,
    tests: str | list[str] | tuple[str, ...],
    cpus: int,
    threads: int | None = None,
) -> pd.DataFrame:
    """Run schedulability tests on many task sets in one call into Rust.

    Every set is analysed as a bare task set on ``cpus`` CPUs (no names,
    policy, pins or overheads): the same verdicts as :func:`analyze` with
    these tests on a spec of those tasks, computed by the tests' fast paths
    (no explanation built) on all cores. Use :func:`analyze` on a set to see
    why it got its verdict.

    Args:
        tasksets: The task sets, each task ``(wcet, deadline, period)`` in
            integer nanoseconds: a numpy array of shape ``(sets, tasks, 3)``
            (fastest: no per-set work in Python), or a sequence of sets, each
            a :class:`TaskSet` (as :func:`generate` or :func:`generate_many`
            return), a ``(tasks, 3)`` array or a sequence of 3-tuples (sets
            may differ in size).
        tests: Test IDs (``schedlab tests`` lists them), or one ID.
        cpus: CPUs of the platform, the same for every set.
        threads: Worker threads (None: every core).

    Returns:
        A DataFrame with one row per set (in order) and one categorical
        column per test, each value one of :data:`VERDICTS`.

    Raises:
        ValueError: for an unknown test ID, a bad shape, or a value that is
            not a non-negative integer.
    """
    import numpy as np
    import pandas as pd

    ids = [tests] if isinstance(tests, str) else list(tests)
    if not ids or not _all_str(ids):
        raise ValueError(f"tests: expected test IDs, got {tests!r}")
    if isinstance(cpus, bool) or not isinstance(cpus, int) or cpus < 0:
        raise ValueError(f"cpus: expected a non-negative int, got {cpus!r}")
    flat, offsets = _flatten(tasksets)
    codes = _native.analyze_batch(flat.tobytes(), offsets.tobytes(), cpus, ids, threads)
    table = np.frombuffer(codes, dtype=np.uint8).reshape(len(offsets) - 1, len(ids))
    return pd.DataFrame({t: pd.Categorical.from_codes(table[:, j], categories=VERDICTS) for j, t in enumerate(ids)})


def _as_u64(a: Any, what: str) -> npt.NDArray[np.uint64]:
    """``a`` as little-endian uint64 after checking every value is a non-negative integer."""
    import numpy as np

    arr = np.asarray(a)
    if arr.size == 0:
        return np.zeros(arr.shape, dtype="<u8")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.floor(arr)):
            raise ValueError(f"{what}: times must be integer nanoseconds")
    elif arr.dtype.kind not in "iu":
        raise ValueError(f"{what}: expected integer nanoseconds, got dtype {arr.dtype}")
    if np.any(arr < 0):
        raise ValueError(f"{what}: times must be non-negative")
    return arr.astype("<u8")


def _triples(ts: TaskSet) -> list[tuple[int, int, int]]:
    """A TaskSet's tasks as (wcet, deadline, period) in ns."""
    return [(t.wcet, t.deadline, t.period) for t in ts]


def _flatten(tasksets: Any) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """Every task in one (n, 3) array and the sets' offsets into it."""
    import numpy as np

    if isinstance(tasksets, np.ndarray):
        if tasksets.ndim != 3 or tasksets.shape[2] != 3:
            raise ValueError(f"tasksets: expected an array of shape (sets, tasks, 3), got {tasksets.shape}")
        sets, per = tasksets.shape[0], tasksets.shape[1]
        flat = _as_u64(tasksets, "tasksets").reshape(-1, 3)
        return np.ascontiguousarray(flat), np.arange(sets + 1, dtype="<u8") * per
    if isinstance(tasksets, (str, bytes)):
        raise ValueError("tasksets: expected task sets, got a string")
    sets = [_triples(ts) if isinstance(ts, TaskSet) else ts for ts in tasksets]
    sizes = [len(ts) for ts in sets]
    if any(isinstance(ts, np.ndarray) for ts in sets):
        parts = []
        for s, ts in enumerate(sets):
            arr = np.asarray(ts) if len(ts) else np.zeros((0, 3), dtype="<u8")
            if arr.ndim != 2 or arr.shape[1] != 3:
                raise ValueError(f"tasksets[{s}]: expected (wcet, deadline, period) triples, got shape {arr.shape}")
            parts.append(arr)
        rows: Any = np.concatenate(parts) if parts else np.zeros((0, 3))
    else:
        # Tuples: one numpy conversion for all the tasks of all the sets.
        tuples = list(itertools.chain.from_iterable(sets))
        rows = np.array(tuples) if tuples else np.zeros((0, 3))
        if rows.ndim != 2 or rows.shape[1] != 3:
            raise ValueError("tasksets: expected every task as (wcet, deadline, period) triples")
    flat = _as_u64(rows, "tasksets").reshape(-1, 3)
    offsets = np.zeros(len(sizes) + 1, dtype="<u8")
    np.cumsum(sizes, out=offsets[1:])
    return np.ascontiguousarray(flat), offsets


def _ns(name: str, v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"{name}: expected an int of nanoseconds (e.g. 2 * schedlab.MS), got {v!r}")
    return v


def supply_bound(budget: int, period: int, times: Any) -> list[int]:
    """The H-CBS supply bound function (OSPERT 2009, Eq. 4): the least
    service, in ns, a server with ``budget`` ns every ``period`` ns gives in
    any window of each length of ``times`` (ns).

    Raises:
        ValueError: if the budget exceeds the period, the period is 0, or a
            value is not an int of nanoseconds.
    """
    ts = [_ns("times", t) for t in times]
    return list(_native.supply_bound(_ns("budget", budget), _ns("period", period), ts))


def linear_supply_bound(budget: int, period: int, times: Any) -> list[Fraction]:
    """The linear lower bound of :func:`supply_bound`, max(0, α(t − Δ)) with
    α = Q/P and Δ = 2P − 2Q (Eqs. 7–8), exactly, at each of ``times`` (ns)."""
    ts = [_ns("times", t) for t in times]
    pairs = _native.linear_supply_bound(_ns("budget", budget), _ns("period", period), ts)
    return [Fraction(int(n), int(d)) for n, d in pairs]


@dataclass(frozen=True)
class BudgetSelection:
    """The least budget per reservation group (:func:`select_budgets`).

    Attributes:
        found: Every group has a budget and the top-level ones fit every CPU.
        groups: One row per group (pre-order): ``group``, ``path``,
            ``period_ns``, ``budget_ns`` (None: no budget up to the period
            works), ``bandwidth``, ``cpus``, ``leaf`` and ``why``.
        fits_cpus: The chosen top-level budgets fit every CPU (Eq. 17).
        misfit: Where they do not: ``{"cpu", "why"}``, else None.
        text: The report ``schedlab analyze --select-budgets`` prints.
    """

    found: bool
    groups: tuple[dict[str, Any], ...]
    fits_cpus: bool
    misfit: dict[str, Any] | None
    text: str

    def __str__(self) -> str:
        return self.text


def select_budgets(spec: str | os.PathLike[str] | TaskSet, *, period: int | None = None) -> BudgetSelection:
    """For each reservation group of ``spec``, the least budget with which
    the H-CBS group test (``hcbs.msf``) accepts its tasks, at the group's
    period, or at ``period`` ns for every group — as ``schedlab analyze
    --select-budgets [--period]``.

    Raises:
        SpecError: if the spec cannot be used.
        ValueError: if the spec has no ``reservations`` or ``period`` is not
            a positive int of nanoseconds.
    """
    p = None if period is None else _ns("period", period)
    if isinstance(spec, TaskSet):
        out = _native.select_budgets(None, spec._json_for_core(), p)
    elif isinstance(spec, (str, os.PathLike)):
        out = _native.select_budgets(os.fspath(spec), None, p)
    else:
        raise TypeError(f"select_budgets() takes a spec file or a TaskSet, not {type(spec).__name__}")
    doc = json.loads(out)
    return BudgetSelection(
        found=doc["found"],
        groups=tuple(doc["groups"]),
        fits_cpus=doc["fits_cpus"],
        misfit=doc["misfit"],
        text=doc["text"],
    )
