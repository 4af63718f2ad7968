"""Type stubs of the Rust extension module ``schedlab._native``.

Every function takes and returns JSON text (durations as text with a unit);
:mod:`schedlab` builds objects from it. The one exception is :class:`SimRun`,
a simulation's outcome kept on the Rust side, which hands its job table over
as raw column buffers. Spec problems raise :class:`schedlab.SpecError`;
other bad arguments raise ValueError (the message starts with the option's
name); files that cannot be read or written raise OSError.
"""

import os
from collections.abc import Callable, Sequence
from typing import Any

__version__: str

def load(path: str | os.PathLike[str]) -> str:
    """Load and validate a spec file; JSON ``{"file", "warnings", "spec", "values"}``."""

def loads(text: str, format: str | None = None, file: str = "<string>") -> str:
    """Load and validate spec text; the same JSON document as :func:`load`."""

def summary(spec_json: str) -> str:
    """The summary of ``schedlab check`` for spec JSON, as JSON."""

def to_yaml(spec_json: str) -> str:
    """Spec JSON written as YAML, deterministically."""

def to_json(spec_json: str) -> str:
    """Spec JSON written as canonical pretty JSON, deterministically."""

def gen_options() -> str:
    """The generator option names, as a JSON list."""

def generate(options_json: str) -> str:
    """Generate a task set from a JSON object of options; the same JSON document as :func:`load`."""

def schema() -> str:
    """The JSON Schema of the spec, as pretty JSON."""

def cli_main(argv: list[str]) -> int:
    """Run the ``schedlab`` command with ``argv`` (argv[0] is the program name); its exit code."""

class SimRun:
    """The outcome of :func:`simulate`: header, metrics, job records (sorted
    by task and job) and, when kept, the events."""

    @property
    def job_count(self) -> int:
        """Number of jobs."""

    @property
    def has_events(self) -> bool:
        """Whether the events were kept in memory."""

    @property
    def notices(self) -> list[str]:
        """What the simulation told (a horizon cut short, an option without effect, parameters dropped)."""

    @property
    def hrt_misses(self) -> int:
        """Deadline misses of ``hrt`` tasks."""

    def header_json(self) -> str:
        """The trace header as JSON."""

    def report_json(self) -> str:
        """The metrics report as JSON (``schedlab simulate --json``)."""

    def job_columns(self) -> dict[str, bytearray]:
        """The job table as native-endian columns: int64 ``task_index``, ``job``,
        ``release``, ``deadline``, ``start``, ``finish``, ``response``,
        ``tardiness``, ``preemptions``, ``migrations``, ``exec``; one byte per
        job (bool) ``missed``, ``start_missing``, ``finish_missing``,
        ``response_missing``; uint8 ``status`` (0 completed, 1 aborted, 2 unfinished)."""

    def events_json(self) -> str | None:
        """The events as a JSON array, or None when they were not kept."""

    def trace_jsonl(self) -> str:
        """The whole trace as JSON Lines (header line, then the events)."""

    def perfetto(self) -> str:
        """Chrome / Perfetto trace-event JSON."""

    def svg(self, start: str | None = None, end: str | None = None, width: int = 1200) -> str:
        """The SVG Gantt chart of the window [start, end]."""

    def jobs_csv(self) -> str:
        """The job table as CSV (``schedlab export --csv``)."""

    def validate(self, tolerance: str, mode: str) -> str:
        """Validate the schedule; JSON ``{"report", "first_violation", "text"}``."""

def simulate(
    path: str | os.PathLike[str] | None = None,
    spec_json: str | None = None,
    file: str = "<taskset>",
    spec_dir: str | os.PathLike[str] | None = None,
    *,
    horizon: str | None = None,
    horizon_cap: str = "10s",
    seed: int = 0,
    exec: str = "wcet",
    sporadic: str = "none",
    jitter: bool = True,
    miss: str = "continue",
    overheads: bool = True,
    tick: str = "1ms",
    trace: str | os.PathLike[str] | None = None,
    keep_events: bool = True,
    policy: str | None = None,
    set: list[str] | None = None,
) -> SimRun:
    """Simulate the spec file ``path`` or the spec JSON ``spec_json`` as ``schedlab simulate`` does."""

def run(
    path: str | os.PathLike[str] | None = None,
    spec_json: str | None = None,
    file: str = "<taskset>",
    spec_dir: str | os.PathLike[str] | None = None,
    *,
    duration: str = "2s",
    backend: str = "kernel",
    seed: int = 0,
    exec: str = "wcet",
    sporadic: str = "none",
    jitter: bool = True,
    miss: str = "continue",
    workload: str | Callable[[int, int, int, int, int, int, Any], None] | None = None,
    workloads: Sequence[tuple[str, str | Callable[[int, int, int, int, int, int, Any], None]]] = ...,
    allow_command: bool = False,
    kernel_trace: bool = True,
    job_timeout: str | None = None,
    dl_slack: str = "100us",
    dl_slack_ratio: float = 0.05,
    start_margin: str = "20ms",
    recalibrate: bool = False,
    trace: str | os.PathLike[str] | None = None,
    keep_events: bool = True,
    wait: bool = False,
    policy: str | None = None,
    set: list[str] | None = None,
    timing: str = "cooperative",
    counters: str = "auto",
    idle: str = "poll",
) -> tuple[SimRun, str]:
    """Run the spec on real threads of this Linux kernel as ``schedlab run``
    does; returns the recorded schedule and the run's facts as JSON. Callable
    workloads are called per job as ``f(task, job, release, deadline, exec,
    wcet, control)`` with the GIL held (not real-time); ``control`` has the
    job's ``segments`` and its ``preemption_point()`` / ``suspend(ns)``
    (False: the job must end now), which release the GIL while they wait."""

def analyze(
    path: str | os.PathLike[str] | None = None,
    spec_json: str | None = None,
    spec_dir: str | os.PathLike[str] | None = None,
    *,
    tests: list[str] | None = None,
    all: bool = False,
    overheads: str | os.PathLike[str] | None = None,
    use_overheads: bool = True,
    accounting: str = "epos",
    tick: str = "1ms",
    lookup: str = "step",
    policy: str | None = None,
    set: list[str] | None = None,
) -> str:
    """Run schedulability tests as ``schedlab analyze --json`` does; returns its JSON."""

def validate_trace(path: str | os.PathLike[str], tolerance: str = "0", mode: str = "auto") -> str:
    """Validate a trace file (streamed); JSON ``{"report", "first_violation", "text"}``."""

def trace_stats(path: str | os.PathLike[str]) -> str:
    """The statistics of a trace file as JSON (``schedlab stats --json``)."""

def read_trace(path: str | os.PathLike[str]) -> tuple[str, str]:
    """A trace file as JSON: the header and the array of events."""

def supply_bound(budget: int, period: int, times: list[int]) -> list[int]:
    """The H-CBS supply bound function (Eq. 4) at each window length."""

def linear_supply_bound(budget: int, period: int, times: list[int]) -> list[tuple[str, str]]:
    """The linear lower bound (Eqs. 7-8) as exact (numerator, denominator) pairs."""

def select_budgets(
    path: str | os.PathLike[str] | None = None,
    spec_json: str | None = None,
    period: int | None = None,
) -> str:
    """`schedlab analyze --select-budgets` as JSON, plus "text"."""

def analyze_batch(
    tasks: bytes,
    offsets: bytes,
    cpus: int,
    tests: list[str],
    threads: int | None = None,
) -> bytes:
    """Verdict codes (one byte per set and test, row-major) of many task sets given as little-endian u64 buffers."""
