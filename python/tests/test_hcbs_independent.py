"""A second, independent implementation of the H-CBS group test (``hcbs.msf``).

Written from the formulas of the paper's extraction (shared/notes/
seed-003-ospert.md §2.4) with the fixes docs/analysis.md records (Eq. 7 as a
lower bound, the general Eq. 13 instead of the printed Eq. 16, the floor of
Eq. 12), not from the Rust code: plain loops, Python ints and Fractions.

Random specs (fixed seed) of 1–3 CPUs and 1–3 top-level groups, some with
per-CPU budgets (an asymmetric platform, where the sorting of Eq. 15 and the
intermediate L_ℓ of Eq. 13 matter), go through ``schedlab analyze --test
hcbs.msf --json``; for every group the verdict and C + Ī of the deciding (or
tightest) task must be the same on both sides. Tasks use periods of a few
hundred ns so that the floors and the breakpoints of Eq. 4 matter.
"""

from __future__ import annotations

import json
import random
import subprocess
from fractions import Fraction
from pathlib import Path


def sbf(q: int, p: int, t: int) -> int:
    """Eq. 4."""
    k = (t - p + q) // p
    return max(0, t - (k + 2) * (p - q), k * q)


def workload(hp: list[tuple[int, int, int]], dk: int) -> int:
    """Eqs. 11-12 over the higher-priority tasks (C, D, T)."""
    w = 0
    for c, d, t in hp:
        n = (dk + d - c) // t
        w += n * c + min(c, dk + d - c - n * t)
    return w


def interference(supplies: list[int], d: int, w: int) -> Fraction:
    """Eq. 13 with Eq. 15 (supplies at d, sorted non-increasing)."""
    z = sorted(supplies, reverse=True)
    m = len(z)
    lengths = [d - z[0]] + [z[j] - (z[j + 1] if j + 1 < m else 0) for j in range(m)]
    total = Fraction(lengths[0])
    used = 0
    for ell in range(1, m + 1):
        total += min(Fraction(lengths[ell]), Fraction(max(0, w - used), ell))
        used += ell * lengths[ell]
    return total


def group_test(tasks: list[tuple[int, int, int]], servers: list[tuple[int, int]]) -> tuple[str, Fraction]:
    """The verdict and C + Ī of the deciding task: the first that fails, or
    the one with the least slack (the first of equals in priority order)."""
    order = sorted(range(len(tasks)), key=lambda i: (tasks[i][2], i))  # RM, ties to the lower index
    best: tuple[Fraction, Fraction] | None = None
    for pos, k in enumerate(order):
        c, d, _ = tasks[k]
        w = workload([tasks[i] for i in order[:pos]], d)
        total = c + interference([sbf(q, p, d) for q, p in servers], d, w)
        if total > d:
            return "inconclusive", total
        if best is None or d - total < best[0]:
            best = (d - total, total)
    assert best is not None
    return "schedulable", best[1]


def random_case(r: random.Random) -> tuple[str, list[tuple[list[tuple[int, int, int]], list[tuple[int, int]]]]]:
    m = r.randint(1, 3)
    k = r.randint(1, 3)
    lines = [f"platform: {{cpus: {m}}}", "policy: {name: hcbs}", "tasks:"]
    groups_yaml = ["reservations:"]
    expect = []
    n = 0
    share = [0] * m  # budget already given per CPU, in 1/1000 of a CPU
    for g in range(k):
        p = r.choice([20, 30, 40, 50, 60])
        if r.random() < 0.4 and m > 1:
            budgets = [r.randint(0, p) for _ in range(m)]
            if not any(budgets):
                budgets[0] = p
        else:
            budgets = [r.randint(1, p)] * m
        if any(share[c] + 1000 * b // p + (1 if (1000 * b) % p else 0) > 1000 for c, b in enumerate(budgets)):
            continue
        for c, b in enumerate(budgets):
            share[c] += 1000 * b // p + (1 if (1000 * b) % p else 0)
        tasks = []
        for _ in range(r.randint(1, 4)):
            t = r.choice([100, 150, 200, 250, 300, 400])
            c = r.randint(1, t // 4)
            d = r.randint(c, t) if r.random() < 0.5 else t
            tasks.append((c, d, t))
            lines.append(f"  - {{name: t{n}, wcet: {c}ns, deadline: {d}ns, period: {t}ns}}")
            n += 1
        names = ", ".join(f"t{i}" for i in range(n - len(tasks), n))
        budget = f"budgets: [{', '.join(f'{b}ns' for b in budgets)}]" if len(set(budgets)) > 1 else f"budget: {budgets[0]}ns"
        groups_yaml.append(f"  - {{name: g{g}, {budget}, period: {p}ns, tasks: [{names}]}}")
        expect.append((tasks, [(b, p) for b in budgets if b > 0]))
    return "\n".join(lines + groups_yaml) + "\n", expect


def test_the_group_test_agrees_with_a_plain_reimplementation(tmp_path: Path, schedlab_exe: Path) -> None:
    r = random.Random(20091)
    compared = accepted = asymmetric = 0
    for i in range(150):
        text, expect = random_case(r)
        if not expect:
            continue
        spec = tmp_path / f"case{i}.yaml"
        spec.write_text(text)
        out = subprocess.run(
            [str(schedlab_exe), "analyze", str(spec), "--test", "hcbs.msf", "--json"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert out.returncode in (0, 1), out.stderr
        groups = json.loads(out.stdout)["outcomes"][0]["groups"]
        assert len(groups) == len(expect)
        for g, (tasks, servers) in zip(groups, expect):
            verdict, value = group_test(tasks, servers)
            got = g["outcome"]
            assert got["verdict"] == verdict, f"{text}\ngroup {g['group']}: {got}"
            assert Fraction(got["value"]["exact"]) == value, f"{text}\ngroup {g['group']}: {got}"
            compared += 1
            accepted += verdict == "schedulable"
            asymmetric += len({q for q, _ in servers}) > 1 or len(servers) < len(g["budgets_ns"])
    assert compared >= 150 and 0.2 * compared < accepted < 0.8 * compared, (compared, accepted)
    assert asymmetric >= 20, asymmetric
