"""schedlab.generate: determinism, options, and bad options."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schedlab
from schedlab import MS


def test_same_seed_same_json() -> None:
    a = schedlab.generate(seed=7, cpus=4, tasks=12, util=2.5)
    b = schedlab.generate(seed=7, cpus=4, tasks=12, util=2.5)
    assert a.to_json() == b.to_json()
    assert a == b
    assert schedlab.generate(seed=8, cpus=4, tasks=12, util=2.5).to_json() != a.to_json()


def test_defaults_are_valid_and_reproducible() -> None:
    ts = schedlab.generate()
    assert ts.file == "<generated>"
    assert ts.meta is not None and ts.meta.seed is not None and ts.meta.generator
    assert ts.meta.tool == f"schedlab {schedlab.__version__}"
    assert ts.to_yaml() == schedlab.generate().to_yaml()
    assert schedlab.loads(ts.to_yaml()) == ts


def test_options_are_applied() -> None:
    ts = schedlab.generate(seed=3, cpus=8, tasks=20, util=4.0, policy="pedf", periods="list:10ms,20ms,40ms")
    assert ts.platform.cpus == 8
    assert len(ts) == 20
    assert ts.policy is not None and ts.policy.name == "pedf"
    assert {t.period for t in ts} <= {10 * MS, 20 * MS, 40 * MS}
    assert ts.meta is not None and ts.meta.seed == 3
    assert "--tasks 20" in (ts.meta.generator or "")


def test_durations_as_nanoseconds() -> None:
    a = schedlab.generate(seed=1, wcet_granularity=10_000, period_granularity=5 * MS)
    b = schedlab.generate(seed=1, wcet_granularity="10us", period_granularity="5ms")
    assert a.to_json() == b.to_json()
    assert all(t.wcet % 10_000 == 0 and t.period % (5 * MS) == 0 for t in a)


def test_none_means_default() -> None:
    assert schedlab.generate(seed=2, wss=None) == schedlab.generate(seed=2)


def test_unknown_keyword_is_a_type_error_naming_it() -> None:
    with pytest.raises(TypeError, match=r"'cpu'"):
        schedlab.generate(cpu=4)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="'frobnicate'"):
        schedlab.generate(frobnicate=True)  # type: ignore[call-arg]


def test_generate_has_one_typed_keyword_per_generator_option() -> None:
    import inspect
    import typing

    sig = inspect.signature(schedlab.generate)
    assert tuple(sig.parameters) == schedlab.generator_options()
    hints = typing.get_type_hints(schedlab.generate)
    for name, p in sig.parameters.items():
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, name
        assert p.default is None, name
        assert hints[name] not in (typing.Any, object), name
    assert hints["seed"] == int | None and hints["util"] == float | None


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"cpus": "four"}, "cpus"),
        ({"cpus": -1}, "cpus"),
        ({"tasks": 2.5}, "tasks"),
        ({"seed": -3}, "seed"),
        ({"policy": "gedff"}, "policy"),
        ({"utils": "uunifst"}, "utils"),
        ({"periods": "sometimes"}, "periods"),
        ({"deadlines": "loose"}, "deadlines"),
        ({"wcet_granularity": "1 parsec"}, "wcet_granularity"),
        ({"period_granularity": -5}, "period_granularity"),
        ({"util": float("nan")}, "util"),
        ({"cache": "big"}, "cache"),
        ({"harmonic": [1, 2]}, "harmonic"),
    ],
)
def test_bad_values_are_value_errors_naming_the_option(options: dict[str, object], name: str) -> None:
    with pytest.raises(ValueError) as e:
        schedlab.generate(**options)
    assert str(e.value).startswith(f"{name}: ")
    assert not isinstance(e.value, schedlab.SpecError)


def test_options_that_cannot_be_met_are_value_errors() -> None:
    with pytest.raises(ValueError):
        schedlab.generate(cpus=2, tasks=2, util=3.0)  # each task would need a utilisation above 1


def test_generator_options_lists_the_keywords() -> None:
    names = schedlab.generator_options()
    assert {"seed", "cpus", "tasks", "util", "policy", "periods"} <= set(names)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    cpus=st.integers(min_value=1, max_value=16),
    tasks=st.integers(min_value=1, max_value=30),
    load=st.floats(min_value=0.05, max_value=0.9),
)
def test_generated_sets_are_valid_and_deterministic(seed: int, cpus: int, tasks: int, load: float) -> None:
    util = min(cpus * load, tasks * 0.4)  # UUniFast-Discard needs room below 1 per task
    ts = schedlab.generate(seed=seed, cpus=cpus, tasks=tasks, util=util)
    assert len(ts) == tasks
    assert ts.platform.cpus == cpus
    assert all(0 < t.wcet <= t.deadline == t.period for t in ts)
    # WCETs are rounded up to the granularity: at most 1 µs per task above the target.
    assert ts.utilization == pytest.approx(util, abs=tasks * 1e-3 / 10 + 1e-9)
    again = schedlab.loads(ts.to_json())
    assert again == ts
    assert schedlab.generate(seed=seed, cpus=cpus, tasks=tasks, util=util).to_json() == ts.to_json()


def test_mtt_sets_keep_their_groups() -> None:
    ts = schedlab.generate(seed=3, cpus=4, util=2.0, cache="1MiB/16/64B", mtt="threads=1-4,util=0.1-0.4,wss=tc:4KiB-64KiB")
    assert ts.mtt, "the set has MTT groups"
    names = {t.name for t in ts}
    grouped = [n for m in ts.mtt for n in m.tasks]
    assert sorted(grouped) == sorted(names), "every task is in one MTT"
    for m in ts.mtt:
        periods = {ts[n].period for n in m.tasks}
        assert len(periods) == 1 and m.wss is not None and 0 < m.wss <= 1 << 20
    # Rebuilt from its fields, the set keeps its groups.
    again = dataclasses.replace(ts)
    assert schedlab.loads(again.to_json()).mtt == ts.mtt
    with pytest.raises(ValueError, match="^mtt: "):
        schedlab.generate(mtt="threads=0-2")
    with pytest.raises(ValueError, match="^mtt: "):
        schedlab.generate_many(2, mtt="default")
    arrays = schedlab.generate_many(2, mtt="default", tasksets=False)
    assert len(arrays) == 2
