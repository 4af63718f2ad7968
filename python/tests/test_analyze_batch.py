"""schedlab.analyze_batch: many task sets in one call, the same verdicts as
schedlab.analyze set by set."""

from __future__ import annotations

import random
import time

import numpy as np
import pandas as pd  # type: ignore[import-untyped, unused-ignore]
import pytest

import schedlab

TESTS = ["gedf.gfb", "gedf.bak", "gedf.bcl", "gedf.bcl-iterative", "gedf.rta", "gedf.bar", "gedf.any", "pedf.qpa", "pfp.rta", "pfp.util-rta"]


def random_sets(rng: random.Random, count: int, cpus: int) -> list[list[tuple[int, int, int]]]:
    """Sets of 1-10 tasks, periods 10-100 ms (sometimes tiny, where ties are
    frequent), implicit or constrained deadlines, total utilisation up to
    about the CPU count."""
    out = []
    for _ in range(count):
        n = rng.randint(1, 10)
        tiny = rng.random() < 0.2
        target = rng.uniform(0.2, 1.05) * cpus
        weights = [rng.uniform(0.05, 1.0) for _ in range(n)]
        total = sum(weights)
        tasks = []
        for w in weights:
            p = rng.randint(2, 30) if tiny else rng.randint(10_000, 100_000) * 1000
            c = min(max(1, round(w / total * target * p)), p)
            d = p if rng.random() < 0.6 else rng.randint(c, p)
            tasks.append((c, d, p))
        out.append(tasks)
    return out


def one_by_one(tasks: list[tuple[int, int, int]], cpus: int) -> dict[str, str]:
    lines = [f"platform: {{cpus: {cpus}}}", "tasks:"]
    lines += [f"- {{name: t{i}, wcet: {c}ns, deadline: {d}ns, period: {p}ns}}" for i, (c, d, p) in enumerate(tasks)]
    a = schedlab.analyze(schedlab.loads("\n".join(lines) + "\n"), tests=TESTS, use_overheads=False)
    return {o.test: o.verdict for o in a.outcomes}


@pytest.mark.parametrize("cpus", [1, 2, 4])
def test_batch_verdicts_equal_per_set_analyze(cpus: int) -> None:
    rng = random.Random(5 + cpus)
    sets = random_sets(rng, 120, cpus)
    got = schedlab.analyze_batch(sets, tests=TESTS, cpus=cpus)
    assert list(got.columns) == TESTS and len(got) == len(sets)
    seen: set[str] = set()
    for s, tasks in enumerate(sets):
        want = one_by_one(tasks, cpus)
        row = {t: str(got.at[s, t]) for t in TESTS}
        assert row == want, f"set {s}: {tasks}"
        seen.update(want.values())
    assert {"schedulable", "inconclusive"} <= seen


def test_array_input_lists_and_thread_counts_agree() -> None:
    rng = random.Random(11)
    sets = [s[:3] for s in random_sets(rng, 300, 4) if len(s) >= 3]
    arr = np.array(sets, dtype=np.int64)
    a = schedlab.analyze_batch(arr, tests=TESTS, cpus=4)
    b = schedlab.analyze_batch(sets, tests=TESTS, cpus=4, threads=1)
    c = schedlab.analyze_batch([np.array(s) for s in sets], tests=TESTS, cpus=4, threads=2)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)
    assert list(a["gedf.gfb"].cat.categories) == list(schedlab.VERDICTS)
    one = schedlab.analyze_batch(arr, tests="gedf.rta", cpus=4)
    assert list(one.columns) == ["gedf.rta"] and (one["gedf.rta"] == a["gedf.rta"]).all()


def test_empty_sets_and_errors() -> None:
    got = schedlab.analyze_batch([[], [(1, 10, 10)]], tests=["gedf.gfb"], cpus=2)
    assert list(got["gedf.gfb"]) == ["schedulable", "schedulable"]
    assert len(schedlab.analyze_batch([], tests=["gedf.gfb"], cpus=2)) == 0
    with pytest.raises(ValueError, match="gedf.nope"):
        schedlab.analyze_batch([[(1, 10, 10)]], tests=["gedf.nope"], cpus=2)
    with pytest.raises(ValueError, match="non-negative"):
        schedlab.analyze_batch([[(-1, 10, 10)]], tests=["gedf.gfb"], cpus=2)
    with pytest.raises(ValueError, match="integer"):
        schedlab.analyze_batch([[(1.5, 10, 10)]], tests=["gedf.gfb"], cpus=2)
    with pytest.raises(ValueError, match="shape"):
        schedlab.analyze_batch(np.zeros((2, 3)), tests=["gedf.gfb"], cpus=2)
    with pytest.raises(ValueError, match="triples"):
        schedlab.analyze_batch([[(1, 10)]], tests=["gedf.gfb"], cpus=2)


def test_per_set_python_overhead_is_small() -> None:
    """One call for the whole batch: a 20,000-set array costs far less in
    Python than the sets take to analyse one by one."""
    rng = np.random.default_rng(1)
    p = rng.integers(10_000, 100_000, size=(20_000, 10)) * 1000
    c = np.maximum(1, (rng.uniform(0.1, 0.4, size=p.shape) * p).astype(np.int64))
    arr = np.stack([c, p, p], axis=2)
    start = time.perf_counter()
    got = schedlab.analyze_batch(arr, tests=["gedf.gfb"], cpus=4)
    elapsed = time.perf_counter() - start
    assert len(got) == 20_000
    # Generous for debug builds and a loaded machine: under 100 µs per set.
    assert elapsed < 2.0, elapsed
