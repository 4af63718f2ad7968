"""The spec as Python objects: frozen dataclasses built from the spec that the
Rust core parsed and validated.

Units, everywhere in the Python API:

* durations (``wcet``, ``bcet``, ``executions``, ``period``, ``deadline``,
  ``offset``, ``jitter``, ``quantum``) are integer **nanoseconds**; ``MS`` and ``US`` help to write
  them (``2 * MS``);
* sizes (``wss``, cache ``size``, ``line``, ``page``, ``private``) are integer
  **bytes**; ``KIB`` and ``MIB`` help to write them; a memory ``bandwidth``
  is integer bytes per second;
* a ``write_ratio`` is a float from 0 to 1.

Defaults the model applies are filled in: ``Task.deadline`` is the deadline in
force (the period when the spec gives none), ``Task.bcet`` the WCET when the
spec gives none, ``Cache.page`` is 4 KiB unless
given, ``Cache.colors`` is size / (ways × page) unless given.

They are values, not rules: ``dataclasses.replace(task, wcet=...)`` keeps the
``bcet`` and ``deadline`` the task had.

A :class:`TaskSet` can also be built or changed in Python
(``dataclasses.replace``); it is validated by the Rust core when it is used
(``summary()``, ``to_yaml()``, ``to_json()``), which raises
:class:`~schedlab.SpecError` with file ``"<taskset>"`` and the field path.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from . import _native
from ._errors import Diagnostic

__all__ = ["Cache", "Platform", "Policy", "Meta", "Group", "Task", "TaskSet", "NS", "US", "MS", "S", "KIB", "MIB", "GIB"]

#: One nanosecond, the unit of every duration.
NS = 1
#: One microsecond in nanoseconds.
US = 1_000
#: One millisecond in nanoseconds.
MS = 1_000_000
#: One second in nanoseconds.
S = 1_000_000_000
#: One KiB in bytes.
KIB = 1 << 10
#: One MiB in bytes.
MIB = 1 << 20
#: One GiB in bytes.
GIB = 1 << 30

#: Cache page size used for colouring when the spec gives none (bytes).
DEFAULT_PAGE = 4 * KIB


def _ns(v: int) -> str:
    return f"{v}ns"


def _bytes(v: int) -> str:
    return f"{v}B"


def _ranges(v: Sequence[Sequence[int]] | None) -> tuple[tuple[int, int], ...] | None:
    if v is None:
        return None
    out: list[tuple[int, int]] = []
    for item in v:
        if isinstance(item, int):
            out.append((item, item))
        else:
            lo, hi = item
            out.append((int(lo), int(hi)))
    return tuple(out)


@dataclass(frozen=True)
class Cache:
    """Geometry of a shared, set-associative last-level cache.

    Attributes:
        size: Total capacity in bytes.
        ways: Associativity (number of ways).
        line: Line size in bytes.
        page: Page size used for page colouring, in bytes (default 4 KiB).
        colors: Number of page colours in force; when not given it is
            size / (ways × page), at least 1.
        shared_by: The CPU groups that each share one instance of the cache,
            e.g. ``((0, 1), (2, 3))``, or None (one cache shared by all CPUs).
        private: Size in bytes of each CPU's private level below it, or None.
    """

    size: int
    ways: int
    line: int
    page: int = DEFAULT_PAGE
    colors: int | None = None
    shared_by: tuple[tuple[int, ...], ...] | None = None
    private: int | None = None

    def __post_init__(self) -> None:
        if self.colors is None:
            object.__setattr__(self, "colors", self.geometric_colors)
        if self.shared_by is not None:
            object.__setattr__(self, "shared_by", tuple(tuple(int(c) for c in k) for k in self.shared_by))

    @property
    def geometric_colors(self) -> int:
        """The colours the geometry gives: size / (ways × page), at least 1."""
        way_bytes = self.ways * self.page
        return max(1, self.size // way_bytes) if way_bytes else 0

    def _raw(self) -> dict[str, Any]:
        d: dict[str, Any] = {"size": _bytes(self.size), "ways": self.ways, "line": _bytes(self.line)}
        if self.page != DEFAULT_PAGE:
            d["page"] = _bytes(self.page)
        if self.colors is not None and self.colors != self.geometric_colors:
            d["colors"] = self.colors
        if self.shared_by is not None:
            d["shared_by"] = [list(k) for k in self.shared_by]
        if self.private is not None:
            d["private"] = _bytes(self.private)
        return d


@dataclass(frozen=True)
class Memory:
    """Main memory as the platform model sees it (``platform.memory``).

    Attributes:
        bandwidth: Sustained bandwidth in bytes per second, or None (unlimited).
    """

    bandwidth: int | None = None

    def _raw(self) -> dict[str, Any]:
        return {} if self.bandwidth is None else {"bandwidth": f"{self.bandwidth}B/s"}


@dataclass(frozen=True)
class Platform:
    """The hardware the tasks run on.

    Attributes:
        cpus: Number of identical CPUs, numbered 0 to cpus−1.
        clusters: CPU clusters for clustered policies, e.g. ``((0, 1), (2, 3))``,
            or None.
        cache: The shared cache, or None.
        memory: Main memory (its bandwidth), or None.
    """

    cpus: int
    clusters: tuple[tuple[int, ...], ...] | None = None
    cache: Cache | None = None
    memory: Memory | None = None

    def __post_init__(self) -> None:
        if self.clusters is not None:
            object.__setattr__(self, "clusters", tuple(tuple(int(c) for c in k) for k in self.clusters))

    def _raw(self) -> dict[str, Any]:
        d: dict[str, Any] = {"cpus": self.cpus}
        if self.clusters is not None:
            d["clusters"] = [list(k) for k in self.clusters]
        if self.cache is not None:
            d["cache"] = self.cache._raw()
        if self.memory is not None:
            d["memory"] = self.memory._raw()
        return d


@dataclass(frozen=True)
class Policy:
    """The scheduling policy section of a spec.

    Attributes:
        name: The scheduler, e.g. ``"gedf"``, ``"pedf"``, ``"cedf"``, ``"pfp"``.
        partitioning: Bin-packing heuristic for partitioned and clustered
            policies (e.g. ``"wfd"``), or None for the policy's default.
        priorities: ``"rm"``, ``"dm"`` or ``"explicit"`` for fixed-priority
            policies, or None for the default (``"rm"``).
        quantum: Scheduling quantum in nanoseconds (PD^2), or None for the default.
        stagger: PD^2: stagger the CPUs' quantum boundaries (default False).
        early_release: PD^2: early release, ER-PD^2 (default False).
        spread: PD^2: spread minimisation for the MTTs (default False).
        megatasks: PD^2: megatasks, ``"greedy"`` or lists of task names (default none).
        reweight: PD^2 megatasks: round each megatask up to whole CPUs (default False).
        slack: RUN: ``"greedy"`` or ``"proportional"`` distribution of spare
            capacity, or None for the default (``"greedy"``).
        capacity: CAP / CAP-GS: a CPU's capacity, a number in (0, 1] such as
            ``0.75`` or ``"ll"`` (Liu & Layland), or None for the default.
        group_packing: CAP: the heuristic that places the colour groups
            (default ``"wfd"``).
        srt_on_hrt_cores: CAP-GS: SRT and BE groups may go to CPUs holding
            HRT tasks (default False).
        memory_total: CAP / CAP-GS: M_total in bytes, the memory page
            colouring divides among the colours, or None (not checked).
        threshold: ``cap-gs-dynamic``: the counter rise per quantum above
            which a best-effort job is throttled (default 4).
        counter: ``cap-gs-dynamic``: ``"coherence-misses"`` (default) or
            ``"cache-misses"``.
        throttle: ``cap-gs-dynamic``: ``"hold"`` (default) or ``"yield"``.
        throttle_range: ``cap-gs-dynamic``: ``(low, high)`` task priorities
            that may be throttled, or None for the tasks of class ``be``.
        cache_threshold: ``ca-gedf``: the cache utilisation (percent) from
            which the cache-aware policy promotes jobs (default 0).
        cache_policy: ``ca-gedf``: the cache-aware policy, 1 to 5 (default 1).
        lost_cause_threshold: ``ca-gedf``: the cache utilisation (percent)
            from which the lost-cause policy is used, or None (none).
        lost_cause_policy: ``ca-gedf``: the lost-cause policy, 1 to 3 (default 1).
        phantoms: ``ca-gedf``: phantom tasks (default True).
        avoid_partially_eligible: ``ca-gedf``: promote partially-eligible
            MTTs only when no other fits (default False).
        promotion_duration: ``ca-gedf``: 1 or 2 (default 2).
        master: ``mcs``: the CPU of the memory-phase worker, or None (the last CPU).
        mps: ``mcs``: the memory-phase scheduler arbitrates (default True);
            False is the Contention baseline.
        memory_preemption: ``mcs``: a more urgent memory phase preempts the
            running one (default True); False: every phase is non-preemptive.
        profile: ``ca-gedf``: WSSs from the working-set profiler (default False).
    """

    name: str
    partitioning: str | None = None
    priorities: str | None = None
    quantum: int | None = None
    stagger: bool | None = None
    early_release: bool | None = None
    spread: bool | None = None
    megatasks: str | list[list[str]] | None = None
    reweight: bool | None = None
    slack: str | None = None
    capacity: float | str | None = None
    group_packing: str | None = None
    srt_on_hrt_cores: bool | None = None
    memory_total: int | None = None
    threshold: int | None = None
    counter: str | None = None
    throttle: str | None = None
    throttle_range: tuple[int, int] | None = None
    cache_threshold: int | None = None
    cache_policy: int | None = None
    lost_cause_threshold: int | None = None
    lost_cause_policy: int | None = None
    phantoms: bool | None = None
    avoid_partially_eligible: bool | None = None
    promotion_duration: int | None = None
    master: int | None = None
    mps: bool | None = None
    memory_preemption: bool | None = None
    profile: bool | None = None

    def _raw(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name}
        if self.partitioning is not None:
            d["partitioning"] = self.partitioning
        if self.priorities is not None:
            d["priorities"] = self.priorities
        if self.quantum is not None:
            d["quantum"] = _ns(self.quantum)
        for key in (
            "stagger",
            "early_release",
            "spread",
            "megatasks",
            "reweight",
            "slack",
            "capacity",
            "group_packing",
            "srt_on_hrt_cores",
            "threshold",
            "counter",
            "throttle",
            "cache_threshold",
            "cache_policy",
            "lost_cause_threshold",
            "lost_cause_policy",
            "phantoms",
            "avoid_partially_eligible",
            "promotion_duration",
            "master",
            "mps",
            "memory_preemption",
            "profile",
        ):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        if self.memory_total is not None:
            d["memory_total"] = _bytes(self.memory_total)
        if self.throttle_range is not None:
            d["throttle_range"] = list(self.throttle_range)
        return d


@dataclass(frozen=True)
class Meta:
    """Provenance of a spec: how to reproduce it.

    Attributes:
        description: Free text.
        tool: The tool and version that wrote it, e.g. ``"schedlab 0.1.0"``.
        seed: The generator's seed.
        generator: The generator's options, in ``schedlab gen`` syntax.
    """

    description: str | None = None
    tool: str | None = None
    seed: int | None = None
    generator: str | None = None

    def _raw(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass(frozen=True)
class Group:
    """A group of tasks with a CPU reservation (``reservations`` in the
    spec; see ``docs/spec.md``): ``budget`` every ``period`` on each CPU,
    scheduled by the ``hcbs`` policy.

    Attributes:
        name: Unique among all groups.
        period: The reservation period, in nanoseconds.
        budget: The budget on each CPU, in nanoseconds (or None with ``budgets``).
        budgets: Per-CPU budgets instead of ``budget`` (0: no server on that CPU).
        tasks: Names of the tasks in the group.
        groups: Nested groups.
        leaf_budget: Budget of the leaf queue serving the group's own tasks
            when it also has groups.
        leaf_period: Period of the leaf queue (None: the group's period).
    """

    name: str
    period: int
    budget: int | None = None
    budgets: tuple[int, ...] | None = None
    tasks: tuple[str, ...] = ()
    groups: tuple[Group, ...] = ()
    leaf_budget: int | None = None
    leaf_period: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "tasks", tuple(self.tasks))
        object.__setattr__(self, "groups", tuple(self.groups))
        if self.budgets is not None:
            object.__setattr__(self, "budgets", tuple(self.budgets))

    @classmethod
    def _from_values(cls, v: dict[str, Any]) -> Group:
        return cls(
            name=v["name"],
            period=v["period"],
            budget=v["budget"],
            budgets=None if v["budgets"] is None else tuple(v["budgets"]),
            tasks=tuple(v["tasks"]),
            groups=tuple(cls._from_values(g) for g in v["groups"]),
            leaf_budget=v["leaf_budget"],
            leaf_period=v["leaf_period"],
        )

    def _raw(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name}
        if self.budget is not None:
            d["budget"] = _ns(self.budget)
        if self.budgets is not None:
            d["budgets"] = [_ns(b) for b in self.budgets]
        d["period"] = _ns(self.period)
        if self.tasks:
            d["tasks"] = list(self.tasks)
        if self.groups:
            d["groups"] = [g._raw() for g in self.groups]
        if self.leaf_budget is not None:
            d["leaf_budget"] = _ns(self.leaf_budget)
        if self.leaf_period is not None:
            d["leaf_period"] = _ns(self.leaf_period)
        return d


@dataclass(frozen=True)
class Mtt:
    """A multithreaded task (``mtt`` in the spec; see ``docs/spec.md``):
    tasks with one period that share one working set.

    Attributes:
        name: Unique among the MTTs, and not a task's name.
        tasks: Names of its tasks (threads).
        wss: The working-set size of one of its jobs, in bytes, or None.
    """

    name: str
    tasks: tuple[str, ...] = ()
    wss: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "tasks", tuple(self.tasks))

    def _raw(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "tasks": list(self.tasks)}
        if self.wss is not None:
            d["wss"] = _bytes(self.wss)
        return d


@dataclass(frozen=True)
class Segment:
    """One segment of a task's jobs (``segments`` in the spec; see
    ``docs/spec.md``).

    Attributes:
        kind: ``"exec"``, ``"memory"`` (a memory phase) or ``"suspend"``
            (a self-suspension).
        length: Worst-case length, in nanoseconds.
        preemptible: False: a non-preemptive region.
    """

    kind: str
    length: int
    preemptible: bool = True

    def _raw(self) -> dict[str, Any]:
        d: dict[str, Any] = {self.kind: _ns(self.length)}
        if not self.preemptible:
            d["preemptible"] = False
        return d


@dataclass(frozen=True)
class Task:
    """A periodic or sporadic task: a job every ``period`` (at least), each
    needing at most ``wcet`` of CPU time before ``deadline`` after its release.

    Attributes:
        name: Unique name.
        wcet: Worst-case execution time of one job, in nanoseconds.
        period: Period or minimum inter-arrival time, in nanoseconds.
        deadline: Relative deadline in force, in nanoseconds (the period
            when none is given).
        bcet: Best-case execution time in force, in nanoseconds (the WCET
            when none is given).
        executions: Actual execution times of successive jobs (repeated
            cyclically), in nanoseconds, or None.
        priority: Fixed priority (1 is the highest) or None.
        cpu: CPU the task is pinned to, or None.
        cluster: Cluster the task is pinned to, or None.
        offset: Release time of the first job, in nanoseconds.
        jitter: Maximum release jitter, in nanoseconds.
        wss: Working-set size in bytes, or None.
        colors: Cache colours as sorted inclusive ranges ``((lo, hi), ...)``, or None.
        class_: Criticality: ``"hrt"`` (default), ``"srt"`` or ``"be"``
            (``class`` in the spec).
        segments: The :class:`Segment` objects every job runs in order, or
            None (one execution segment of the WCET).
        subjobs: Subjob lengths in nanoseconds (``subjobs`` in the spec, the
            short form of execution segments), or None.
        write_ratio: Fraction of the task's memory accesses that are writes
            (0 to 1), or None (0).
        data_group: Its shared-data group (tasks that write the same lines), or None.
        memory_priority: ``mcs``: the priority of its memory phases, global
            (1 is the highest), or None (the order of the task priorities).
        memory_mode: ``mcs``: ``"smp"`` (default) or ``"amp"`` (the
            memory-phase worker runs all but its first prefetch), or None.
    """

    name: str
    wcet: int
    period: int
    deadline: int = None  # type: ignore[assignment]  # filled in: the period
    bcet: int = None  # type: ignore[assignment]  # filled in: the WCET
    executions: tuple[int, ...] | None = None
    priority: int | None = None
    cpu: int | None = None
    cluster: int | None = None
    offset: int = 0
    jitter: int = 0
    wss: int | None = None
    colors: tuple[tuple[int, int], ...] | None = None
    class_: str = "hrt"
    segments: tuple[Segment, ...] | None = None
    subjobs: tuple[int, ...] | None = None
    write_ratio: float | None = None
    data_group: str | None = None
    memory_priority: int | None = None
    memory_mode: str | None = None

    def __post_init__(self) -> None:
        if self.deadline is None:
            object.__setattr__(self, "deadline", self.period)
        if self.bcet is None:
            object.__setattr__(self, "bcet", self.wcet)
        if self.executions is not None:
            object.__setattr__(self, "executions", tuple(int(e) for e in self.executions))
        object.__setattr__(self, "colors", _ranges(self.colors))
        if self.segments is not None:
            segs = tuple(g if isinstance(g, Segment) else Segment(**g) for g in self.segments)
            object.__setattr__(self, "segments", segs)
        if self.subjobs is not None:
            object.__setattr__(self, "subjobs", tuple(int(j) for j in self.subjobs))

    @property
    def utilization(self) -> float:
        """wcet / period (a float, for reporting)."""
        return self.wcet / self.period

    @property
    def density(self) -> float:
        """wcet / min(deadline, period) (a float, for reporting)."""
        return self.wcet / min(self.deadline, self.period)

    def _raw(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "wcet": _ns(self.wcet), "period": _ns(self.period)}
        if self.bcet != self.wcet:
            d["bcet"] = _ns(self.bcet)
        if self.executions is not None:
            d["executions"] = [_ns(e) for e in self.executions]
        if self.deadline != self.period:
            d["deadline"] = _ns(self.deadline)
        for k in ("priority", "cpu", "cluster"):
            if getattr(self, k) is not None:
                d[k] = getattr(self, k)
        if self.offset:
            d["offset"] = _ns(self.offset)
        if self.jitter:
            d["jitter"] = _ns(self.jitter)
        if self.wss is not None:
            d["wss"] = _bytes(self.wss)
        if self.colors is not None:
            d["colors"] = [f"{lo}-{hi}" for lo, hi in self.colors]
        if self.class_ != "hrt":
            d["class"] = self.class_
        if self.segments is not None:
            d["segments"] = [g._raw() for g in self.segments]
        if self.subjobs is not None:
            d["subjobs"] = [_ns(j) for j in self.subjobs]
        if self.write_ratio is not None:
            d["write_ratio"] = self.write_ratio
        if self.data_group is not None:
            d["data_group"] = self.data_group
        if self.memory_priority is not None:
            d["memory_priority"] = self.memory_priority
        if self.memory_mode is not None:
            d["memory_mode"] = self.memory_mode
        return d


@dataclass(frozen=True)
class TaskSet:
    """A real-time system: platform, policy, tasks and provenance.

    Returned by :func:`schedlab.load`, :func:`schedlab.loads` and
    :func:`schedlab.generate`; it can also be built directly. ``len(ts)`` is
    the number of tasks, iterating yields the :class:`Task` objects in order,
    and ``ts["name"]`` (or ``ts[i]``) looks a task up.

    Attributes:
        platform: The :class:`Platform`.
        tasks: The tasks, in spec order (the order is the tie-break index).
        policy: The :class:`Policy`, or None.
        meta: The :class:`Meta` (provenance), or None.
        overheads: Path of the overhead CSV (relative to the spec file), or None.
        reservations: The top-level :class:`Group` objects (CPU reservations
            for ``hcbs``), or None.
        mtt: The :class:`Mtt` groups (multithreaded tasks), or None.
        warnings: Warnings found when the spec was loaded (:class:`~schedlab.Diagnostic`).
        file: The file the spec came from (``"<string>"``, ``"<generated>"``),
            or None when built in Python.
    """

    platform: Platform
    tasks: tuple[Task, ...]
    policy: Policy | None = None
    meta: Meta | None = None
    overheads: str | None = None
    reservations: tuple[Group, ...] | None = None
    mtt: tuple[Mtt, ...] | None = None
    warnings: tuple[Diagnostic, ...] = ()
    file: str | None = field(default=None, compare=False)
    # The spec JSON as the Rust core wrote it, so that a loaded spec is written
    # back exactly (explicit defaults included). Not an init field: a copy made
    # with dataclasses.replace() is rebuilt from its fields.
    _spec_json: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tasks", tuple(self.tasks))
        object.__setattr__(self, "warnings", tuple(self.warnings))
        if self.reservations is not None:
            object.__setattr__(self, "reservations", tuple(self.reservations))
        if self.mtt is not None:
            object.__setattr__(self, "mtt", tuple(self.mtt))

    # -- construction from the Rust core -------------------------------------------------

    @classmethod
    def _from_doc(cls, text: str) -> TaskSet:
        doc = json.loads(text)
        v = doc["values"]
        p = v["platform"]
        cache = Cache(**p["cache"]) if p["cache"] is not None else None
        memory = Memory(**p["memory"]) if p["memory"] is not None else None
        platform = Platform(cpus=p["cpus"], clusters=p["clusters"], cache=cache, memory=memory)
        policy = Policy(**v["policy"]) if v["policy"] is not None else None
        meta = Meta(**v["meta"]) if v["meta"] is not None else None
        tasks = tuple(Task(**{("class_" if k == "class" else k): x for k, x in t.items()}) for t in v["tasks"])
        ts = cls(
            platform=platform,
            tasks=tasks,
            policy=policy,
            meta=meta,
            overheads=v["overheads"],
            reservations=None
            if v["reservations"] is None
            else tuple(Group._from_values(g) for g in v["reservations"]),
            mtt=None if v["mtt"] is None else tuple(Mtt(**m) for m in v["mtt"]),
            warnings=tuple(Diagnostic._coerce(w) for w in doc["warnings"]),
            file=doc["file"],
        )
        object.__setattr__(ts, "_spec_json", json.dumps(doc["spec"]))
        return ts

    def _json_for_core(self) -> str:
        if self._spec_json is not None:
            return self._spec_json
        d: dict[str, Any] = {}
        if self.meta is not None:
            d["meta"] = self.meta._raw()
        d["platform"] = self.platform._raw()
        if self.policy is not None:
            d["policy"] = self.policy._raw()
        if self.overheads is not None:
            d["overheads"] = self.overheads
        d["tasks"] = [t._raw() for t in self.tasks]
        if self.reservations is not None:
            d["reservations"] = [g._raw() for g in self.reservations]
        if self.mtt is not None:
            d["mtt"] = [m._raw() for m in self.mtt]
        return json.dumps(d)

    # -- container protocol ----------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.tasks)

    def __iter__(self) -> Iterator[Task]:
        return iter(self.tasks)

    def __contains__(self, name: object) -> bool:
        return any(t.name == name for t in self.tasks)

    def __getitem__(self, key: str | int) -> Task:
        """The task named ``key`` (a str) or at index ``key`` (an int)."""
        if isinstance(key, int):
            return self.tasks[key]
        if not isinstance(key, str):
            raise TypeError(f"tasks are looked up by name (str) or index (int), not {type(key).__name__}")
        for t in self.tasks:
            if t.name == key:
                return t
        close = difflib.get_close_matches(key, self.names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise KeyError(f"no task named {key!r}{hint}")

    @property
    def names(self) -> tuple[str, ...]:
        """The task names, in order."""
        return tuple(t.name for t in self.tasks)

    # -- facts -----------------------------------------------------------------------------

    @property
    def utilization_exact(self) -> Fraction:
        """Σ wcet/period, exactly."""
        return sum((Fraction(t.wcet, t.period) for t in self.tasks), Fraction(0))

    @property
    def utilization(self) -> float:
        """Σ wcet/period, as the nearest float (for reporting; compare with
        :attr:`utilization_exact` where a rounding could flip a verdict)."""
        return float(self.utilization_exact)

    def summary(self) -> dict[str, Any]:
        """The summary ``schedlab check --json`` prints, as a dict: ``tasks``,
        ``cpus``, ``policy``, ``utilization`` (and ``utilization_exact`` as
        ``"num/den"``), ``density``, ``max_utilization``, ``hyperperiod``
        (a duration string such as ``"200ms"``, or None beyond 2^64 ns),
        ``deadlines`` and one row per task in ``rows``.

        Raises:
            SpecError: if the task set is invalid (built or changed in Python).
        """
        result: dict[str, Any] = json.loads(_native.summary(self._json_for_core()))
        return result

    def _repr_html_(self) -> str:
        """The task table as ``schedlab check`` prints it (shown by Jupyter)."""
        import html

        e = html.escape
        policy = self.policy.name if self.policy is not None else "no policy"
        head = "".join(f"<th>{h}</th>" for h in ("task", "wcet", "period", "deadline", "util", "pin", "prio", "class"))
        rows = []
        for t in self.tasks:
            deadline = t.deadline if t.deadline is not None else t.period
            pin = f"cpu {t.cpu}" if t.cpu is not None else (f"cluster {t.cluster}" if t.cluster is not None else "-")
            cells = (
                t.name,
                _fmt_ns(t.wcet),
                _fmt_ns(t.period),
                _fmt_ns(deadline),
                f"{t.wcet / t.period:.4f}" if t.period else "-",
                pin,
                "-" if t.priority is None else str(t.priority),
                str(t.class_),
            )
            rows.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>")
        return (
            f"<p>{len(self.tasks)} tasks on {self.platform.cpus} CPUs, {e(policy)}, "
            f"utilisation {self.utilization:.4f}</p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )

    def to_json(self) -> str:
        """The spec as pretty JSON text, with units (``"2ms"``), deterministic.

        Raises:
            SpecError: if the task set is invalid.
        """
        return _native.to_json(self._json_for_core())

    def to_yaml(self) -> str:
        """The spec as YAML text, deterministic (the same set gives the same bytes).

        Raises:
            SpecError: if the task set is invalid.
        """
        return _native.to_yaml(self._json_for_core())

    def to_dict(self) -> dict[str, Any]:
        """The spec as a plain dict in the spec's own format (durations and
        sizes as strings with units), e.g. to embed in a result file.

        Raises:
            SpecError: if the task set is invalid.
        """
        result: dict[str, Any] = json.loads(self.to_json())
        return result


def _fmt_ns(ns: int) -> str:
    """A duration in ns as the spec writes it (``2.5ms``)."""
    for unit, scale in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns >= scale:
            whole, frac = divmod(ns, scale)
            if frac == 0:
                return f"{whole}{unit}"
            digits = str(frac).rjust(len(str(scale)) - 1, "0").rstrip("0")
            return f"{whole}.{digits}{unit}"
    return f"{ns}ns"
