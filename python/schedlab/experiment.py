"""Experiments: sweeps over generated task sets (docs/experiments.md).

:func:`sweep` runs an experiment file (the same file ``schedlab sweep``
takes) in Rust on all cores, or as Ray tasks on a cluster, and returns one
row per (task set, evaluation) as a pandas DataFrame. :func:`generate_many`
draws many sets at once as ``schedlab gen`` would. :func:`ratios` and
:func:`weighted` compute the schedulability ratio with Wilson intervals per
point and the weighted schedulability W (EPOS thesis Eq. 4) from the rows.

Run from the command line (what ``schedlab sweep --ray`` calls)::

    python -m schedlab.experiment EXP.yaml -o results.parquet [--ray ADDRESS]
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _native

if TYPE_CHECKING:
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]

    from ._types import TaskSet

__all__ = ["sweep", "generate_many", "ratios", "weighted", "wilson", "Z95"]

#: z of a two-sided 95 % interval.
Z95 = 1.959963984540054


def _experiment(exp: Any, samples: int | None = None) -> Any:
    """A native Experiment from a path, YAML/JSON text or a dict."""
    if isinstance(exp, _native.Experiment):
        return exp
    if isinstance(exp, dict):
        return _native.Experiment(text=json.dumps(exp), base=os.getcwd(), samples=samples)
    if isinstance(exp, Path) or (isinstance(exp, str) and "\n" not in exp and Path(exp).exists()):
        return _native.Experiment(path=str(exp), samples=samples)
    if isinstance(exp, str) and "\n" in exp:
        return _native.Experiment(text=exp, base=os.getcwd(), samples=samples)
    raise ValueError(f"experiment: no such file {exp!r} (give a path, YAML text or a dict)")


def _frame(columns: list[tuple[str, str, bytes, list[str]]]) -> pd.DataFrame:
    import numpy as np
    import pandas as pd

    data: dict[str, Any] = {}
    for name, kind, raw, cats in columns:
        if kind == "cat":
            codes = np.frombuffer(raw, dtype="<u4").astype(np.int32)
            data[name] = pd.Categorical.from_codes(codes, categories=cats)
        else:
            data[name] = np.frombuffer(raw, dtype={"i8": "<i8", "u8": "<u8", "f8": "<f8"}[kind])
    return pd.DataFrame(data)


def _progress_callback(progress: Any, total: int) -> tuple[Callable[[int, int], None] | None, Any]:
    """A (done, total) callback for ``progress``, and a bar to close afterwards."""
    if progress is False or progress is None and not sys.stderr.isatty():
        return None, None
    if callable(progress) and not hasattr(progress, "update"):
        return progress, None
    bar = progress
    if bar is None or bar is True:
        try:
            from tqdm.auto import tqdm  # type: ignore[import-untyped, unused-ignore]
        except ImportError:
            return None, None
        bar = tqdm(total=total, unit="sets", desc="sweep")
    seen = [0]

    def cb(done: int, _total: int) -> None:
        bar.update(done - seen[0])
        seen[0] = done

    return cb, bar


def sweep(
    exp: Any,
    *,
    backend: str = "local",
    threads: int | None = None,
    output: str | os.PathLike[str] | None = None,
    progress: Any = None,
    address: str | None = None,
    max_retries: int = 3,
    samples: int | None = None,
    timings: list[dict[str, Any]] | None = None,
) -> pd.DataFrame:
    """Run an experiment: generate its task sets and evaluate each one.

    Args:
        exp: The experiment: a file path, YAML/JSON text or a dict with the
            file's fields (docs/experiments.md).
        backend: ``"local"`` (Rust threads on this machine) or ``"ray"``
            (each chunk a Ray task; needs ``pip install schedlab[ray]``).
        threads: Local worker threads (None: every core).
        output: Also write the rows to this ``.parquet`` or ``.csv`` file
            (local: resumable from ``OUTPUT.ckpt`` after an interruption).
        progress: None (a tqdm bar when stderr is a terminal and tqdm is
            installed), False, True (a tqdm bar), a tqdm-like object (its
            ``update`` is called) or a callable ``(done, total)``.
        address: Ray cluster address (``backend="ray"``; None: ``RAY_ADDRESS``
            or a local Ray).
        max_retries: Ray: times a chunk is retried when its worker dies.
        samples: Override the experiment's samples per point.
        timings: Ray: a list to which one dict per Ray task is appended:
            ``node`` (Ray node ID), ``pid`` (worker process), ``chunks``,
            and the times (``time.time()`` seconds) it was ``submitted``,
            ``started``, began ``computing`` (after planning the experiment,
            which a worker does once: ``planned``), ``finished`` and was
            ``received`` by this process.

    Returns:
        One row per (set, evaluation); see docs/experiments.md for the columns.
        Local and Ray sweeps return the same rows.
    """
    e = _experiment(exp, samples)
    _points, sets, _evals, _rows, _chunks = e.size()
    cb, bar = _progress_callback(progress, sets)
    try:
        if backend == "local":
            if output is not None:
                e.sweep(threads, cb, os.fspath(output))
                return read_results(output)
            return _frame(e.sweep(threads, cb, None))
        if backend == "ray":
            results = _ray_chunks(e, address, max_retries, cb, timings)
            if output is not None:
                e.write(results, os.fspath(output))
            return _frame(e.assemble(results))
        raise ValueError(f"backend: {backend!r}; expected 'local' or 'ray'")
    finally:
        if bar is not None and hasattr(bar, "close"):
            bar.close()


def read_results(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A sweep's results file (``.parquet`` needs pyarrow; ``.csv`` pandas only)."""
    import pandas as pd

    p = os.fspath(path)
    if p.endswith(".csv"):
        df = pd.read_csv(p)
    else:
        df = pd.read_parquet(p)
    for c in ("evaluation", "test", "overheads", "verdict", "utils", "periods", "deadlines", "wss"):
        if c in df.columns:
            df[c] = df[c].astype("category")
    return df


#: Experiments planned in this (Ray worker) process, by (text, base, samples).
_PLANNED: dict[tuple[str, str, int], Any] = {}


def _run_chunks(text: str, base: str, samples: int, ids: list[int]) -> tuple[dict[str, Any], list[bytes]]:
    """A Ray task's work: the results of chunks ``ids``, with when and where
    they ran. The experiment is planned once per worker process and kept for
    the sweep's later tasks."""
    started = time.time()
    key = (text, base, samples)
    e = _PLANNED.get(key)
    planned = e is None
    if e is None:
        _PLANNED.clear()
        e = _PLANNED[key] = _native.Experiment(text=text, base=base, samples=samples)
    computing = time.time()
    out = [e.run_chunk(i) for i in ids]
    return _task_record(started, computing, planned), out


def _task_record(started: float, computing: float, planned: bool) -> dict[str, Any]:
    """Where and when a Ray task ran (its node, worker process, start,
    start of computing after any planning, and end; time.time() seconds)."""
    node = ""
    ray = sys.modules.get("ray")  # a Ray worker has imported it; elsewhere asking would start Ray
    if ray is not None and ray.is_initialized():
        node = ray.get_runtime_context().get_node_id()
    return {
        "node": node,
        "pid": os.getpid(),
        "started": started,
        "computing": computing,
        "finished": time.time(),
        "planned": planned,
    }


def ray_groups(n: int, cpus: int) -> list[list[int]]:
    """The chunks of each Ray task: about 16 tasks per CPU (so the last
    tasks, when some CPUs idle, are short), no more than 64 chunks each;
    chunk ``i`` goes to task ``i mod tasks``, so every task takes chunks from
    across the grid (neighbouring chunks are alike: same distribution,
    nearby caps) and the tasks cost about the same."""
    tasks = min(n, max(16 * max(1, cpus), -(-n // 64)))
    return [list(range(g, n, tasks)) for g in range(tasks)]


def _ray_chunks(
    e: Any,
    address: str | None,
    max_retries: int,
    cb: Callable[[int, int], None] | None,
    timings: list[dict[str, Any]] | None = None,
) -> list[bytes]:
    """Every chunk's results, each computed by a Ray task (retried if its worker dies)."""
    try:
        import ray  # type: ignore[import-not-found, unused-ignore]
    except ImportError as err:
        raise RuntimeError("backend='ray' needs Ray: pip install 'schedlab[ray]'") from err
    if not ray.is_initialized():
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    text, base, samples = e.text(), str(e.base()), e.samples()
    # SPREAD, not Ray's default placement. The driver hands a leased worker
    # back after 500 ms (Ray's worker_lease_timeout_milliseconds, by
    # default) and asks its own node for another; under the default (hybrid)
    # policy that request mostly waited for the head node's worker instead
    # of going to the other node, whose worker idled (measured:
    # docs/performance.md, "Why the second node idled, and SPREAD"). SPREAD
    # places the tasks on the nodes in turn.
    chunk = ray.remote(max_retries=max_retries, retry_exceptions=False)(_run_chunks)
    n = e.chunks()
    sizes = e.chunk_sets()
    groups = ray_groups(n, int(ray.cluster_resources().get("CPU", 1)))
    pending = {}
    submitted = {}
    for g in groups:
        at = time.time()
        ref = chunk.options(name="chunk", scheduling_strategy="SPREAD").remote(text, base, samples, g)
        pending[ref] = g
        submitted[ref] = at
    results: list[bytes | None] = [None] * n
    done = 0
    total = sum(sizes)
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            ids = pending.pop(ref)
            record, out = ray.get(ref)
            for i, r in zip(ids, out, strict=True):
                results[i] = r
                done += sizes[i]
            if timings is not None:
                timings.append({**record, "chunks": len(ids), "submitted": submitted[ref], "received": time.time()})
        if cb is not None:
            cb(done, total)
    return [r for r in results if r is not None]


def generate_many(
    count: int,
    *,
    seed: int = 1,
    threads: int | None = None,
    tasksets: bool = True,
    **options: Any,
) -> Any:
    """Generate ``count`` task sets with the options of :func:`schedlab.generate`.

    Set ``i`` is the set a sweep draws for sample ``i`` at a point with these
    options and experiment seed ``seed`` (docs/experiments.md, "Seeds"); the
    sets are drawn in Rust on ``threads`` workers (None: every core) and do
    not depend on the thread count.

    Returns:
        A list of :class:`~schedlab.TaskSet` (``tasksets=True``), or, faster,
        a list of ``(tasks, 3)`` uint64 arrays of (wcet, deadline, period) ns;
        both are accepted by :func:`schedlab.analyze_batch`.
    """
    import numpy as np

    from . import _gen_value
    from ._types import Meta, Platform, Policy, Task, TaskSet

    clean = {k: _gen_value(k, v) for k, v in options.items() if v is not None}
    clean["seed"] = seed
    if "mtt" in clean and tasksets:
        raise ValueError(
            "mtt: generate_many(tasksets=True) would drop the MTT groups; pass tasksets=False "
            "(arrays, each task with its MTT's working-set size) or call schedlab.generate(seed=..., mtt=...)"
        )
    tasks_b, offsets_b, wss_b, _util_b = _native.generate_many(json.dumps(clean), count, threads)
    tasks = np.frombuffer(tasks_b, dtype="<u8").reshape(-1, 3)
    offsets = np.frombuffer(offsets_b, dtype="<u8")
    wss = np.frombuffer(wss_b, dtype="<u8")
    arrays = [tasks[offsets[i] : offsets[i + 1]] for i in range(count)]
    if not tasksets:
        return arrays
    cpus = int(clean.get("cpus", 4))
    out = []
    for i, arr in enumerate(arrays):
        width = len(str(len(arr)))
        w = wss[offsets[i] : offsets[i + 1]]
        ts = [
            Task(
                name=f"T{k + 1:0{width}d}",
                wcet=int(c),
                period=int(p),
                deadline=int(d),
                wss=int(w[k]) if w[k] else None,
            )
            for k, (c, d, p) in enumerate(arr)
        ]
        out.append(TaskSet(platform=Platform(cpus=cpus), tasks=ts, policy=Policy(name="gedf"), meta=Meta(seed=seed)))
    return out


def wilson(k: Any, n: Any, z: float = Z95) -> tuple[Any, Any]:
    """Wilson score interval of ``k`` successes in ``n`` trials (arrays work)."""
    import numpy as np

    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    z2 = z * z
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = (k + z2 / 2) / (n + z2)
        half = z * np.sqrt(np.where(n > 0, k * (n - k) / np.where(n > 0, n, 1), 0) + z2 / 4) / (n + z2)
    lo = np.where(n > 0, np.clip(centre - half, 0, 1), 0.0)
    hi = np.where(n > 0, np.clip(centre + half, 0, 1), 1.0)
    return lo, hi


def _axes(df: pd.DataFrame) -> list[str]:
    fixed = {"point", "sample", "seed", "tasks", "utilization", "evaluation", "test", "overheads", "cpmd_wss"}
    fixed |= {"verdict", "schedulable", "jobs", "misses", "miss_ratio", "max_tardiness_ns", "mean_tardiness_ns"}
    fixed |= {"preemptions", "migrations"}
    return [c for c in df.columns if c not in fixed]


def ratios(df: pd.DataFrame, z: float = Z95) -> pd.DataFrame:
    """Per (point, evaluation, overheads, CPMD): sets, schedulable sets, the
    ratio and its Wilson interval; simulations add mean miss ratio and
    tardiness over the point's sets."""
    keys = [*_axes(df), "evaluation", "overheads", "cpmd_wss"]
    g = df.groupby(keys, observed=True, sort=False)
    out = g["schedulable"].agg(sets="size", schedulable="sum").reset_index()
    out["ratio"] = out["schedulable"] / out["sets"]
    out["lo"], out["hi"] = wilson(out["schedulable"], out["sets"], z)
    for c in ("miss_ratio", "mean_tardiness_ns", "max_tardiness_ns"):
        if c in df.columns:
            out[c] = g[c].mean().to_numpy()
    return out


def weighted(df: pd.DataFrame, over: str = "util") -> pd.DataFrame:
    """Weighted schedulability W = Σ U·S(U) / Σ U over the caps ``over``
    (EPOS thesis Eq. 4), per curve (the other axes, evaluation, overheads, CPMD)."""
    r = ratios(df)
    keys = [k for k in [*_axes(df), "evaluation", "overheads", "cpmd_wss"] if k != over]
    r = r.assign(_us=r[over] * r["ratio"])
    g = r.groupby(keys, observed=True, sort=False)
    w = (g["_us"].sum() / g[over].sum()).rename("W").reset_index()
    return w


def _main(argv: Sequence[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m schedlab.experiment", description=__doc__.split("\n\n")[0])
    ap.add_argument("experiment")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--ray", metavar="ADDRESS", default=None)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--samples", type=int, default=None)
    a = ap.parse_args(argv)
    try:
        e = _experiment(a.experiment, a.samples)
    except ValueError as err:
        print(f"schedlab sweep: {err}", file=sys.stderr)
        return 2
    df = sweep(e, backend="ray" if a.ray else "local", address=a.ray, threads=a.threads, output=a.output)
    print(f"wrote {a.output}: {len(df)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(_main())

