"""The video-MTT set builder of bench/calandrino_ch6.py (Calandrino Table
6.5/6.6): levels drawn from the range until none fits the target
utilisation, and each level's MTT as Table 6.5 gives it."""

from __future__ import annotations

import random
import re

import pytest


@pytest.fixture(scope="module")
def ch6(bench_script):  # type: ignore[no-untyped-def]
    return bench_script("calandrino_ch6")


@pytest.mark.parametrize("levels", [(1, 8), (1, 6), (7, 8), (1, 4)])
@pytest.mark.parametrize("target", [4.0, 8.0])
def test_video_sets_fill_the_target_from_the_range(ch6, levels: tuple[int, int], target: float) -> None:  # type: ignore[no-untyped-def]
    for seed in range(5):
        drawn = ch6.video_mtts(levels, target, random.Random(seed))
        assert drawn and all(levels[0] <= lvl <= levels[1] for lvl in drawn)
        total = sum(ch6.video_util(lvl) for lvl in drawn)
        assert total <= target + 1e-9
        # Full: not even the lightest level of the range fits what is left.
        lightest = min(ch6.video_util(lvl) for lvl in range(levels[0], levels[1] + 1))
        assert total + lightest > target + 1e-9


def test_video_levels_follow_table_6_5(ch6) -> None:  # type: ignore[no-untyped-def]
    # Level 1: 1080p at 30 fps, 8 tasks of one quantum every 33 ms; level 8:
    # 176x144 at 15 fps, one task every 66 ms (period = floor(1000/fps)).
    assert ch6.video_util(1) == pytest.approx(8 / 33)
    assert ch6.video_util(4) == pytest.approx(4 / 16)
    assert ch6.video_util(8) == pytest.approx(1 / 66)
    text = ch6.video_spec([1, 8, 3], 8)
    assert "cpus: 8, cache: {size: 2MiB" in text
    groups = re.findall(r"- \{name: (V\d+L\d), tasks: \[([^\]]*)\], wss: (\d+)B\}", text)
    assert [(g[0], len(g[1].split(", ")), int(g[2])) for g in groups] == [
        ("V1L1", 8, 1920 * 1080),
        ("V2L8", 1, 176 * 144),
        ("V3L3", 8, 1280 * 720),
    ]
    tasks = re.findall(r"- \{name: (V\d+L\dT\d), wcet: 1ms, period: (\d+)ms\}", text)
    assert len(tasks) == 17
    assert {p for n, p in tasks if n.startswith("V3")} == {"16"}
    assert {p for n, p in tasks if n.startswith("V2")} == {"66"}


@pytest.fixture(scope="module")
def fig52(bench_script):  # type: ignore[no-untyped-def]
    return bench_script("calandrino_fig52")


def test_fig52_set_makes_every_task_an_mtt(fig52) -> None:  # type: ignore[no-untyped-def]
    """Fig. 5.2's set (bench/calandrino_fig52.py): examples/mtt.yaml with
    t, u and v as MTTs of one task, so the profiler learns every WSS."""
    import schedlab

    ts = schedlab.loads(fig52.spec())
    assert [(m.name, list(m.tasks)) for m in ts.mtt] == [
        ("T", ["t"]),
        ("U", ["u"]),
        ("V", ["v"]),
        ("video", ["w1", "w2"]),
    ]


def test_fig52_thrashing_counts_an_mtts_working_set_once(fig52) -> None:  # type: ignore[no-untyped-def]
    assert not fig52.thrashes(["u", "v"])  # 512 + 512 KiB fit 1 MiB
    assert not fig52.thrashes(["w1", "w2"])  # one MTT: 768 KiB once
    assert fig52.thrashes(["t", "u"])  # 768 + 512 KiB
    assert fig52.thrashes(["t", "w2"])
    assert not fig52.thrashes(["t"])
