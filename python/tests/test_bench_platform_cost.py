"""The variants of bench/platform_cost.py (the platform model's cost, off
and on): the same task set, footprints as the criterion group `platform/`
gives them, and the whole command timed by its CPU time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def cost(bench_script):  # type: ignore[no-untyped-def]
    return bench_script("platform_cost")


def test_the_variants_differ_only_in_footprints_and_the_group(cost) -> None:  # type: ignore[no-untyped-def]
    base = json.loads((BENCH / "sets" / "gedf_m8.json").read_text())
    v = {name: cost.variant(base, name) for name in cost.VARIANTS}
    assert v["off"] == v["private"], "off is private without the model (--no-platform-model)"
    for spec in v.values():
        assert spec["platform"] == {"cpus": 8, "cache": {"size": "8MiB", "ways": 16, "line": "64B"}}
        assert [(t["name"], t["wcet"], t["period"]) for t in spec["tasks"]] == [
            (t["name"], t["wcet"], t["period"]) for t in base["tasks"]
        ]
        assert all(t["wss"] == "64KiB" for t in spec["tasks"])
    assert [t["colors"] for t in v["private"]["tasks"]][:3] == [["0-3"], ["4-7"], ["8-11"]]
    assert all(t["colors"] == ["0-15"] for name in ("colours", "shared") for t in v[name]["tasks"])
    assert all("data_group" not in t for name in ("off", "private", "colours") for t in v[name]["tasks"])
    assert all(t["data_group"] == "g" and t["write_ratio"] == 0.02 for t in v["shared"]["tasks"])
    assert "cache" not in base["platform"], "the set itself is left as it was"


def test_a_command_is_timed_and_a_failing_one_ends_the_script(cost, schedlab_exe: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    base = json.loads((BENCH / "sets" / "gedf_m4.json").read_text())
    spec = tmp_path / "shared.json"
    spec.write_text(json.dumps(cost.variant(base, "shared")))
    assert cost.command(schedlab_exe, spec, "off", "1s")[-1] == "--no-platform-model"
    assert cost.cpu_time(cost.command(schedlab_exe, spec, "shared", "1s")) > 0
    with pytest.raises(SystemExit, match="failed"):
        cost.cpu_time(cost.command(schedlab_exe, tmp_path / "missing.json", "shared", "1s"))
