"""H-CBS supply bounds and interface selection from Python: Eq. 4 against
a brute force written from the definition (Def. 2: the least service in any
window, over every way a server can place its budget in its periods), the
linear bound below it, and the least budgets of ``select_budgets``."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest

import schedlab

REPO = Path(__file__).resolve().parents[2]


def brute_sbf(q: int, p: int, periods: int = 4) -> dict[int, int]:
    """The least supply in a window of each length t ≤ (periods − 1)·P, over
    every placement of q unit slots in each of `periods` periods and every
    window start in the first period (integer time)."""
    best: dict[int, int] = {}
    horizon = (periods - 1) * p
    placements = list(itertools.combinations(range(p), q))
    for choice in itertools.product(placements, repeat=periods):
        slots = [0] * (periods * p)
        for k, cells in enumerate(choice):
            for c in cells:
                slots[k * p + c] = 1
        prefix = [0]
        for s in slots:
            prefix.append(prefix[-1] + s)
        for t0 in range(p):
            for t in range(horizon + 1):
                got = prefix[t0 + t] - prefix[t0]
                if got < best.get(t, t + 1):
                    best[t] = got
    return best


@pytest.mark.parametrize("q,p", [(1, 3), (2, 4), (2, 5), (3, 5), (1, 2), (4, 4), (0, 3)])
def test_eq4_is_the_least_supply_of_any_placement(q: int, p: int) -> None:
    brute = brute_sbf(q, p)
    times = sorted(brute)
    assert schedlab.supply_bound(q, p, times) == [brute[t] for t in times]


def test_the_linear_bound_is_below_eq4_and_exact() -> None:
    times = list(range(0, 60))
    z = schedlab.supply_bound(2, 5, times)
    lin = schedlab.linear_supply_bound(2, 5, times)
    assert all(isinstance(x, Fraction) for x in lin)
    assert all(a <= b for a, b in zip(lin, z))
    # α = 2/5, Δ = 6: zero until 6, then 2/5 per ns; equal where Eq. 4 starts to rise.
    assert lin[6] == 0 and lin[7] == Fraction(2, 5) and lin[11] == 2 == z[11]
    with pytest.raises(ValueError, match="exceeds the period"):
        schedlab.supply_bound(6, 5, [1])


def test_select_budgets_names_each_group() -> None:
    sel = schedlab.select_budgets(REPO / "examples" / "reservations.yaml")
    names = [g["group"] for g in sel.groups]
    assert names == ["media", "sound", "control"]
    assert all(g["budget_ns"] is not None and 0 < g["budget_ns"] <= g["period_ns"] for g in sel.groups)
    # At their own periods the least budgets overfill the CPUs; at 2 ms they fit.
    assert not sel.found and not sel.fits_cpus
    assert sel.misfit is not None and sel.misfit["cpu"] == 0
    assert "do not fit CPU 0" in sel.text
    short = schedlab.select_budgets(REPO / "examples" / "reservations.yaml", period=2 * schedlab.MS)
    assert short.found and short.fits_cpus
    assert all(g["period_ns"] == 2 * schedlab.MS for g in short.groups)
    assert "fit every CPU" in str(short)
    with pytest.raises(ValueError, match="no `reservations`"):
        schedlab.select_budgets(REPO / "examples" / "demo.yaml")
    with pytest.raises(ValueError, match="period"):
        schedlab.select_budgets(REPO / "examples" / "reservations.yaml", period=0)


def test_analyze_explains_each_group() -> None:
    a = schedlab.analyze(REPO / "examples" / "reservations.yaml", tests=["hcbs.msf"])
    (o,) = a.outcomes
    assert o.groups is not None and [g["group"] for g in o.groups] == ["media", "sound", "control"]
    control = o.groups[2]
    assert control["supplies"] == ["H-CBS 2ms/5ms", "H-CBS 2ms/5ms"]
    assert control["outcome"]["verdict"] == "inconclusive"
    assert "C + Ī = 6ms exceeds the deadline 5ms" in control["outcome"]["reason"]
    assert schedlab.analyze(REPO / "examples" / "demo.yaml").outcomes[0].groups is None
