"""Schedulability analysis from Python: :func:`analyze` runs the tests of the
registry (``schedlab tests``) on a spec, exactly as ``schedlab analyze``
does, and returns the explained outcomes."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from . import _native
from ._sim import _choice, _duration, _flag, _path
from ._types import TaskSet


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

    @property
    def schedulable(self) -> bool:
        """The test proves every deadline is met."""
        return self.verdict == "schedulable"


@dataclass(frozen=True)
class Analysis:
    """The result of :func:`analyze`.

    Attributes:
        policy: The spec's policy name, or None.
        schedulable: Some test proves the set schedulable.
        outcomes: One :class:`Outcome` per test run, in order.
        overheads: The overhead accounting (model file, method, costs, and
            per task the WCET before and after), or None without overheads.
    """

    policy: str | None
    schedulable: bool
    outcomes: tuple[Outcome, ...]
    overheads: dict[str, Any] | None

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
        )
        for o in doc["outcomes"]
    )
    return Analysis(policy=doc["policy"], schedulable=doc["schedulable"], outcomes=outcomes, overheads=doc["overheads"])


def _all_str(xs: Any) -> bool:
    return all(isinstance(x, str) for x in xs)
