"""A second, independent implementation of every G-EDF test of the registry.

Each test below is written from the published formulas (the EPOS note,
shared/notes/seed-000-epos.md §3.2) and the interpretation decisions that
docs/analysis.md ("Global tests") records for the Rust side -- not from the
Rust code. It is deliberately plain: loops, Python ints and Fractions, no
floating point. Random task sets (fixed seeds) and a few hand-made edge cases
go through ``schedlab.analyze`` and both sides must agree on every set:
Rust "schedulable" <=> the Python test accepts.

Tasks are (C, D, T) in integer nanoseconds, as the analysis sees them. Most
sets use periods of a few dozen ns ("ns scale"): the integer-time details
(BAR's and RTA's +1, floors) matter most there and every search is short.
The rest use periods in whole microseconds.

Besides random sets, each ns-scale set is walked to one test's boundary
(one more ns of WCET at a time until the Python test rejects) and both
sides of the boundary are compared. Mutating any single detail of the
Python tests (BAR's +1, its dbf-step points, RTA's or BCL-iterative's +1
cap, the round cap, LOAD's max, BAK's min(1, .), BCL's equality clause,
FF-DBF's sigma = delta_max) makes this comparison fail, so it does look
at the fine print.

Where the Rust side has a work budget (BAR's 50,000 test points, FF-DBF's
200,000 evaluations, LOAD's 100,000 steps) the Python side mirrors it; a set
whose Python decision depends on how exactly an "evaluation" is counted is
reported as budget-sensitive and left out of that one comparison (the test
asserts that this stays rare).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from fractions import Fraction

import pytest

import schedlab

Task = tuple[int, int, int]  # (C, D, T) in ns

TESTS = (
    "gedf.gfb",
    "gedf.bak",
    "gedf.bar",
    "gedf.bcl",
    "gedf.bcl-iterative",
    "gedf.rta",
    "gedf.ffdbf",
    "gedf.load",
    "gedf.any",
)

ROUNDS = 64  # slack-feedback rounds of BCL-iterative and RTA (docs/analysis.md)
BAR_POINTS = 50_000
FFDBF_EVALUATIONS = 200_000
LOAD_STEPS = 100_000


class BudgetSensitive(Exception):
    """The decision depends on how the Rust side counts its work budget."""


# ---------------------------------------------------------------------------
# Helpers


def util(t: Task) -> Fraction:
    c, _d, p = t
    return Fraction(c, p)


def density(t: Task) -> Fraction:
    c, d, p = t
    return Fraction(c, min(d, p))


def total_util(ts: list[Task]) -> Fraction:
    return sum((util(t) for t in ts), Fraction(0))


def necessary(ts: list[Task], m: int) -> bool:
    """Every C <= min(D, T) and U <= m (below these a miss is possible)."""
    return all(c <= min(d, p) for c, d, p in ts) and total_util(ts) <= m


def constrained(ts: list[Task]) -> bool:
    return all(d <= p for _c, d, p in ts)


def dbf(t: Task, length: int) -> int:
    """Demand of jobs with release and deadline inside a window of `length`."""
    c, d, p = t
    return max(0, ((length - d) // p + 1) * c)


def dbf_carry_in(t: Task, length: int) -> int:
    """Baruah's DBF': floor(t/T)*C + min(C, t mod T)."""
    c, _d, p = t
    return (length // p) * c + min(c, length % p)


# ---------------------------------------------------------------------------
# The tests. Each returns True when it proves the set schedulable.


def gfb(ts: list[Task], m: int) -> bool:
    """Goossens, Funk, Baruah 2003: sum of densities <= m - (m-1) max density."""
    if not necessary(ts, m):
        return False
    dens = [density(t) for t in ts]
    return sum(dens) <= m - (m - 1) * max(dens)


def bak(ts: list[Task], m: int) -> bool:
    """Baker 2003/2005 with lambda_k = C_k / min(D_k, T_k), every i in the sum."""
    if not necessary(ts, m):
        return False
    for ck, dk, pk in ts:
        lam = Fraction(ck, min(dk, pk))
        total = Fraction(0)
        for ci, di, pi in ts:
            ui = Fraction(ci, pi)
            beta = ui * (1 + Fraction(max(0, pi - di), dk))
            if ui > lam:
                beta += (ci - lam * pi) / dk
            total += min(Fraction(1), beta)
        if total > m - (m - 1) * lam:
            return False
    return True


def bcl(ts: list[Task], m: int) -> bool:
    """Bertogna, Cirinei, Lipari 2005 (integer form, times D_k)."""
    if not necessary(ts, m) or not constrained(ts):
        return False
    for k, (ck, dk, _pk) in enumerate(ts):
        room = dk - ck
        total = 0
        some_small = False
        for i, (ci, di, pi) in enumerate(ts):
            if i == k:
                continue
            jobs = (dk - di) // pi + 1
            interference = jobs * ci + min(ci, max(0, dk - jobs * pi))
            total += min(interference, room)
            if 0 < interference <= room:
                some_small = True
        if total < m * room or (total == m * room and some_small):
            continue
        return False
    return True


def edf_interference(t: Task, dk: int, slack: int) -> int:
    """J_i(D_k) = floor(D_k/T_i) C_i + min(C_i, max(0, D_k mod T_i - s_i))."""
    ci, _di, pi = t
    return (dk // pi) * ci + min(ci, max(0, dk % pi - slack))


def bcl_iterative(ts: list[Task], m: int) -> bool:
    """BCL 2009 slack iteration: index order within a round, negative slack
    not fed back, at most ROUNDS rounds; schedulable when every task's last
    computed slack is >= 0."""
    if not necessary(ts, m) or not constrained(ts):
        return False
    n = len(ts)
    slack = [0] * n
    proven = [False] * n
    for _ in range(ROUNDS):
        changed = False
        for k, (ck, dk, _pk) in enumerate(ts):
            total = 0
            for i in range(n):
                if i != k:
                    total += min(edf_interference(ts[i], dk, slack[i]), dk - ck + 1)
            s = dk - ck - total // m
            proven[k] = s >= 0
            if s >= 0 and s != slack[k]:
                slack[k] = s
                changed = True
        if not changed:
            break
    return all(proven)


def workload(t: Task, length: int, slack: int) -> int:
    """Bertogna-Cirinei W_i(L) with x = L + D_i - C_i - s_i:
    floor(x/T_i) C_i + min(C_i, x mod T_i)."""
    ci, di, pi = t
    x = length + di - ci - slack
    jobs = x // pi
    return jobs * ci + min(ci, x - jobs * pi)


def rta_response(ts: list[Task], m: int, k: int, slack: list[int], jump: bool = True) -> int | None:
    """Least fixed point of R = C_k + floor(sum_{i!=k} min(W_i(R), J_i, R-C_k+1) / m),
    or None once an iterate exceeds D_k.

    With `jump`, a run of +1 steps is skipped: if m or more terms sit at
    their cap R-C_k+1 they keep doing so up to the largest X where
    W_i(X) >= X-C_k+1 and J_i >= X-C_k+1 (W_i(L) - L never increases, so
    the set of such X is an interval, found by bisection); up to X every
    iterate moves by >= 1, so the fixed point is > X, and f(X) >= X+1 makes
    X+1 a valid restart. ``jump=False`` is the plain iteration (compared
    with the jump on the small sets in a separate test)."""
    ck, dk, _pk = ts[k]
    others = [i for i in range(len(ts)) if i != k]
    j_bound = {i: edf_interference(ts[i], dk, slack[i]) for i in others}

    def f(r: int) -> int:
        total = 0
        for i in others:
            total += min(workload(ts[i], r, slack[i]), j_bound[i], r - ck + 1)
        return ck + total // m

    r = ck
    while True:
        nxt = f(r)
        if nxt > dk:
            return None
        if nxt == r:
            return r
        if jump:
            capped = [i for i in others if workload(ts[i], r, slack[i]) >= r - ck + 1 and j_bound[i] >= r - ck + 1]
            if len(capped) >= m:
                x = dk + 1
                for i in capped:
                    x = min(x, j_bound[i] + ck - 1)
                    lo, hi = r, x  # W_i(lo) >= lo-ck+1 holds; find the last such value <= hi
                    while lo < hi:
                        mid = (lo + hi + 1) // 2
                        if workload(ts[i], mid, slack[i]) >= mid - ck + 1:
                            lo = mid
                        else:
                            hi = mid - 1
                    x = lo
                nxt = max(nxt, x + 1)
                if nxt > dk:
                    return None
        r = nxt


def rta(ts: list[Task], m: int, jump: bool = True) -> bool:
    """Bertogna-Cirinei 2007 RTA with slack feedback s_k = D_k - R_k."""
    if not necessary(ts, m) or not constrained(ts):
        return False
    n = len(ts)
    slack = [0] * n
    proven = [False] * n
    for _ in range(ROUNDS):
        changed = False
        for k in range(n):
            r = rta_response(ts, m, k, slack, jump)
            proven[k] = r is not None
            if r is not None and ts[k][1] - r != slack[k]:
                slack[k] = ts[k][1] - r
                changed = True
        if not changed:
            break
    return all(proven)


def bar(ts: list[Task], m: int) -> bool:
    """Baruah 2007, integer time: a miss needs
    sum I1 + sum of the m-1 largest (I2 - I1) >= m (A_k + D_k - C_k + 1)
    for some A_k in {0} and the dbf steps A_k + D_k = D_i + j T_i up to
    Baruah's bound on A_k."""
    if not necessary(ts, m) or not constrained(ts):
        return False
    u = total_util(ts)
    if u >= m:
        return False
    largest_c = sum(sorted((c for c, _d, _p in ts), reverse=True)[: m - 1])
    spread = sum((util(t) * (t[2] - t[1]) for t in ts), Fraction(0))
    plan = []
    count = 0
    for k, (ck, dk, _pk) in enumerate(ts):
        bound = (largest_c - dk * (m - u) + spread + m * ck) / (m - u)
        points = {0}
        for ci, di, pi in ts:
            # A = d_i + j p_i - dk with 0 <= A <= bound
            j = 0 if di >= dk else (dk - di + pi - 1) // pi
            while di + j * pi - dk <= bound:
                points.add(di + j * pi - dk)
                j += 1
                if len(points) > 2 * BAR_POINTS:
                    break
        count += len(points)
        plan.append(sorted(points))
    if count > 2 * BAR_POINTS:
        return False  # over the budget however the points are counted
    if count > BAR_POINTS // 2:
        raise BudgetSensitive(f"{count} BAR test points")
    for k, (ck, dk, _pk) in enumerate(ts):
        for a in plan[k]:
            length = a + dk
            cap = a + dk - ck + 1
            i1_sum = 0
            diffs = []
            for i, t in enumerate(ts):
                if i == k:
                    i1 = min(dbf(t, length) - ck, a)
                    i2 = min(dbf_carry_in(t, length) - ck, a)
                else:
                    i1 = min(dbf(t, length), cap)
                    i2 = min(dbf_carry_in(t, length), cap)
                i1_sum += i1
                diffs.append(i2 - i1)
            diffs.sort(reverse=True)
            if i1_sum + sum(diffs[: m - 1]) >= m * cap:
                return False
    return True


def ff_dbf(t: Task, at: Fraction, sigma: Fraction) -> Fraction:
    """Forced-forward demand bound of one task at time `at` for speed sigma."""
    c, d, p = t
    q = math.floor(at / p)
    r = at - q * p
    if r >= d:
        extra = Fraction(c)
    elif r >= d - c / sigma:
        extra = c - (d - r) * sigma
    else:
        extra = Fraction(0)
    return q * c + extra


def ff_dbf_scaled(t: Task, tau: int, a: int, b: int) -> int:
    """b * ff_dbf(t, tau/a, a/b) in integers: with rho = a * (t mod T),
    (D - r) sigma = (aD - rho)/b and r >= D - C/sigma <=> rho >= aD - Cb."""
    c, d, p = t
    q = tau // (a * p)
    rho = tau - q * a * p
    if rho >= a * d:
        extra = c * b
    elif rho >= a * d - c * b:
        extra = c * b - (a * d - rho)
    else:
        extra = 0
    return q * c * b + extra


def ffdbf(ts: list[Task], m: int) -> bool:
    """Baruah, Bonifaci, Marchetti-Spaccamela, Stiller 2009: some sigma in
    {delta_max} + {j/50} below (m-U)/(m-1) with sum ff-dbf(t, sigma) <=
    (m - (m-1) sigma) t at every breakpoint t (D_i + j T_i and
    D_i + j T_i - C_i/sigma) up to sum C / (m - (m-1) sigma - U)."""
    if m < 2 or not necessary(ts, m) or not constrained(ts):
        return False
    u = total_util(ts)
    limit = Fraction(m) - u
    limit /= m - 1
    dmax = max(density(t) for t in ts)
    sigmas = [dmax] + [Fraction(j, 50) for j in range(1, 51) if dmax < Fraction(j, 50)]
    sigmas = [s for s in sigmas if s < limit]
    csum = sum(c for c, _d, _p in ts)
    # Budget: the loosest reading counts breakpoints of one sigma, the
    # strictest counts breakpoints x tasks over all sigmas so far. When the
    # two give different answers the set is budget-sensitive.
    strict_used = 0
    for sigma in sigmas:
        speed = m - (m - 1) * sigma
        horizon = csum / (speed - u)
        npoints = 0
        for c, d, p in ts:
            if horizon >= d:
                npoints += 2 * (math.floor((horizon - d) / p) + 1)
        strict_used += npoints * len(ts)
        if npoints > FFDBF_EVALUATIONS:
            return False  # this sigma and every larger one are over budget
        # In units of 1/a for sigma = a/b: every breakpoint is an integer
        # there (see ff_dbf_scaled).
        a, b = sigma.numerator, sigma.denominator
        points = set()
        for c, d, p in ts:
            j = 0
            while d + j * p <= horizon:
                points.add(a * (d + j * p))
                if a * (d + j * p) - c * b > 0:
                    points.add(a * (d + j * p) - c * b)
                j += 1
        ok = all(sum(ff_dbf_scaled(t, tau, a, b) for t in ts) * a <= (m * b - (m - 1) * a) * tau for tau in points)
        if ok:
            if strict_used > FFDBF_EVALUATIONS:
                raise BudgetSensitive(f"FF-DBF accepts at sigma {sigma} after {strict_used} evaluations")
            return True
    return False


def load(ts: list[Task], m: int) -> bool:
    """Baker-Baruah 2009: load <= max(mu - (ceil(mu)-1) dmax, ceil(mu)-1 - (ceil(mu)-2) dmax),
    load = max_t sum dbf(t)/t, decided exactly at every dbf step up to
    L* = sum u_i max(0, T_i - D_i) / (B - U)."""
    if not necessary(ts, m):
        return False
    dmax = max(density(t) for t in ts)
    mu = m - (m - 1) * dmax
    c = math.ceil(mu)
    bound = max(mu - (c - 1) * dmax, (c - 1) - (c - 2) * dmax)
    u = total_util(ts)
    if u > bound:
        return False
    spread = sum((util(t) * max(0, t[2] - t[1]) for t in ts), Fraction(0))
    if u == bound:
        return spread == 0
    last = spread / (bound - u)
    steps = set()
    for _c, d, p in ts:
        j = 0
        while d + j * p <= last:
            steps.add(d + j * p)
            j += 1
            if len(steps) > 2 * LOAD_STEPS:
                break
    if len(steps) > 2 * LOAD_STEPS:
        return False
    if len(steps) > LOAD_STEPS // 2:
        raise BudgetSensitive(f"{len(steps)} LOAD steps")
    return all(sum(dbf(t, s) for t in ts) <= bound * s for s in steps)


def any_test(ts: list[Task], m: int) -> bool:
    """gedf.any: GFB, BCL, BAK, LOAD, RTA, BAR, FF-DBF in turn, the first accepting wins."""
    sensitive = None
    for test in (gfb, bcl, bak, load, rta, bar, ffdbf):
        try:
            if test(ts, m):
                return True
        except BudgetSensitive as e:
            sensitive = e
    if sensitive is not None:
        raise sensitive
    return False


ANY_ORDER = ("gedf.gfb", "gedf.bcl", "gedf.bak", "gedf.load", "gedf.rta", "gedf.bar", "gedf.ffdbf")
CONSTRAINED_ONLY = {"gedf.bar", "gedf.bcl", "gedf.bcl-iterative", "gedf.rta", "gedf.ffdbf"}

PYTHON = {
    "gedf.gfb": gfb,
    "gedf.bak": bak,
    "gedf.bar": bar,
    "gedf.bcl": bcl,
    "gedf.bcl-iterative": bcl_iterative,
    "gedf.rta": rta,
    "gedf.ffdbf": ffdbf,
    "gedf.load": load,
    "gedf.any": any_test,
}


# ---------------------------------------------------------------------------
# Task sets


def to_yaml(ts: list[Task], m: int, jitter: dict[int, int] | None = None) -> str:
    lines = [f"platform: {{cpus: {m}}}", "policy: {name: gedf}", "tasks:"]
    for i, (c, d, p) in enumerate(ts):
        extra = f", jitter: {jitter[i]}ns" if jitter and i in jitter else ""
        lines.append(f"- {{name: t{i}, wcet: {c}ns, deadline: {d}ns, period: {p}ns{extra}}}")
    return "\n".join(lines) + "\n"


def random_set(rng: random.Random, unit: int, lo: int, hi: int) -> tuple[list[Task], int]:
    """m in {2, 4, 8}, n in [2, 12], U drawn in [0.2 m, 1.05 m] (at most 0.85 n; UUniFast,
    utilisations above 1 clamped), periods uniform in [lo, hi] units,
    WCET rounded to a unit (at least one), implicit or constrained deadlines,
    sometimes a task with C = D or a heavy task."""
    m = rng.choice((2, 4, 8))
    n = rng.randint(2, 12)
    target = min(rng.uniform(0.2, 1.05) * m, 0.85 * n)
    utils, rest = [], target
    for i in range(n - 1, 0, -1):
        nxt = rest * rng.random() ** (1 / i)
        utils.append(min(1.0, rest - nxt))
        rest = nxt
    utils.append(min(1.0, rest))
    implicit = rng.random() < 0.5
    ts = []
    for u in utils:
        p = rng.randint(lo, hi)
        c = min(p, max(1, round(u * p)))
        d = p if implicit else rng.randint(c, p)
        ts.append((c * unit, d * unit, p * unit))
    r = rng.random()
    if r < 0.1:  # zero laxity
        k = rng.randrange(n)
        c, d, p = ts[k]
        ts[k] = (d, d, p)
    elif r < 0.2:  # a heavy task
        k = rng.randrange(n)
        c, d, p = ts[k]
        ts[k] = (max(c, (9 * d) // 10), d, p)
    return ts, m


# Hand-made edge cases: (tasks, m, what).
EDGES: list[tuple[list[Task], int, str]] = [
    ([(2, 2, 2), (1, 4, 4)], 2, "zero-laxity task beside a light one (docs example)"),
    ([(2_000_000, 2_000_000, 2_000_000), (1_000_000, 4_000_000, 4_000_000)], 2, "the same in ms"),
    ([(2, 3, 3)] * 3, 2, "U = m exactly"),
    ([(3, 4, 4)] * 4 + [(1, 1, 4)], 4, "U = 4 = m with a C = D task"),
    ([(5, 5, 10), (5, 5, 10), (5, 5, 10)], 2, "three C = D tasks, U = 1.5"),
    ([(1, 1, 1)] * 2, 2, "two full tasks on two CPUs"),
    ([(1, 1, 1)] * 2 + [(1, 10, 10)], 2, "two full tasks and one more"),
    ([(9, 10, 10), (9, 10, 10), (1, 10, 10)], 2, "two heavy tasks"),
    ([(9, 10, 10), (1, 2, 20)], 4, "n < m"),
    ([(51, 100, 100)] * 5, 4, "five tasks of 0.51 on four CPUs"),
    ([(3, 8, 4), (2, 6, 5), (1, 12, 3)], 2, "arbitrary deadlines (D > T)"),
    ([(3, 8, 4), (3, 8, 4), (3, 8, 4)], 2, "arbitrary deadlines, U = 2.25 > m"),
    ([(6, 5, 10), (1, 10, 10)], 2, "C > D"),
    ([(7, 10, 10), (7, 10, 10), (7, 10, 10), (1, 3, 10)], 2, "U = 2.2 > m"),
    ([(1, 2, 3)] * 9 + [(5, 6, 7)], 4, "many light constrained tasks"),
    ([(4, 5, 13), (6, 9, 11), (1, 2, 7), (8, 17, 19), (2, 3, 17)], 2, "mixed constrained"),
]


@dataclass
class Tally:
    sets: int = 0
    agree: dict[str, int] = field(default_factory=lambda: {t: 0 for t in TESTS})
    accepted: dict[str, int] = field(default_factory=lambda: {t: 0 for t in TESTS})
    sensitive: dict[str, int] = field(default_factory=lambda: {t: 0 for t in TESTS})
    disagreements: list[str] = field(default_factory=list)


def walk_to_boundary(test: str, ts: list[Task], m: int, rng: random.Random) -> tuple[list[Task], list[Task]] | None:
    """From a set the Python `test` accepts, add 1 ns to the WCET of random
    tasks (never above min(D, T)) until it rejects; the last accepted and
    the first rejected set, or None."""
    try:
        if not PYTHON[test](ts, m):
            return None
        for _ in range(200):
            grow = [k for k, (c, d, p) in enumerate(ts) if c < min(d, p)]
            if not grow:
                return None
            k = rng.choice(grow)
            c, d, p = ts[k]
            nxt = ts[:k] + [(c + 1, d, p)] + ts[k + 1 :]
            if not PYTHON[test](nxt, m):
                return ts, nxt
            ts = nxt
    except BudgetSensitive:
        return None
    return None


def python_verdicts(ts: list[Task], m: int) -> dict[str, bool | None]:
    """Every test's answer (None: budget-sensitive); gedf.any from the others."""
    out: dict[str, bool | None] = {}
    for test in TESTS[:-1]:
        try:
            out[test] = PYTHON[test](ts, m)
        except BudgetSensitive:
            out[test] = None
    parts = [out[t] for t in ANY_ORDER]
    out["gedf.any"] = True if True in parts else (None if None in parts else False)
    return out


def expected_kind(test: str, ts: list[Task], m: int) -> str:
    """What a non-accepting Rust verdict must be: constrained-deadline tests
    on a set with D > T are not applicable (checked before anything else);
    then the necessary conditions answer unschedulable; BAR needs U < m;
    else inconclusive."""
    if test in CONSTRAINED_ONLY and not constrained(ts):
        return "not-applicable"
    if test == "gedf.bar" and necessary(ts, m) and total_util(ts) == m:
        return "not-applicable"  # BAR's bound divides by m - U
    return "inconclusive" if necessary(ts, m) else "unschedulable"


def compare(ts: list[Task], m: int, tally: Tally, what: str) -> None:
    a = schedlab.analyze(schedlab.loads(to_yaml(ts, m)), tests=list(TESTS))
    verdicts = {o.test: o for o in a.outcomes}
    mine_all = python_verdicts(ts, m)
    tally.sets += 1
    for test in TESTS:
        o = verdicts[test]
        mine = mine_all[test]
        if mine is None:
            tally.sensitive[test] += 1
            continue
        rust = o.verdict == "schedulable"
        if rust == mine and (rust or o.verdict == expected_kind(test, ts, m)):
            tally.agree[test] += 1
            tally.accepted[test] += rust
        else:
            tally.disagreements.append(
                f"{test} on {what}: m={m} tasks(C,D,T ns)={ts}: rust {o.verdict} ({o.reason}), python {'accepts' if mine else 'rejects'}"
            )


def test_the_python_tests_know_the_worked_examples() -> None:
    # docs/analysis.md: a zero-laxity task beside a light one; GFB, BCL, BAK
    # and LOAD cannot prove it, RTA can.
    ts, m = [(2, 2, 2), (1, 4, 4)], 2
    assert not any(PYTHON[t](ts, m) for t in ("gedf.gfb", "gedf.bcl", "gedf.bak", "gedf.load"))
    assert rta(ts, m) and any_test(ts, m)
    # GFB by hand: densities 0.5 x 3 on two CPUs, 1.5 <= 2 - 0.5.
    assert gfb([(1, 2, 2)] * 3, 2) and not gfb([(1, 2, 2)] * 3 + [(1, 10, 10)], 2)
    # BCL fails a C = D task (no room), LOAD accepts U <= B with implicit deadlines.
    assert not bcl([(5, 5, 10), (1, 10, 10)], 2)
    # The integer form of ff-dbf is the rational one.
    rng = random.Random(3)
    for _ in range(2000):
        c, p = rng.randint(1, 20), rng.randint(1, 40)
        t = (min(c, p), rng.randint(min(c, p), p), p)
        sigma = Fraction(rng.randint(1, 50), 50)
        tau = rng.randint(1, 5000)
        assert ff_dbf_scaled(t, tau, sigma.numerator, sigma.denominator) == sigma.denominator * ff_dbf(t, Fraction(tau, sigma.numerator), sigma)
    assert load([(1, 4, 4)] * 3, 2) and not load([(1, 2, 2)] * 3, 2)  # B = 1.5 resp. 1


def test_the_rta_jump_is_the_plain_iteration() -> None:
    rng = random.Random(11)
    for _ in range(150):
        ts, m = random_set(rng, 1, 3, 40)
        if necessary(ts, m) and constrained(ts):
            assert rta(ts, m, jump=True) == rta(ts, m, jump=False), (ts, m)
            for k in range(len(ts)):
                slack = [rng.randint(0, d - c) for c, d, _p in ts]
                assert rta_response(ts, m, k, slack, True) == rta_response(ts, m, k, slack, False), (ts, m, k, slack)


def test_jitter_makes_every_global_test_not_applicable() -> None:
    a = schedlab.analyze(schedlab.loads(to_yaml([(1, 4, 4), (1, 4, 4)], 2, {1: 1})), tests=list(TESTS))
    assert {o.verdict for o in a.outcomes} == {"not-applicable"}
    assert all("jitter" in o.reason for o in a.outcomes)


@pytest.mark.parametrize(
    "scale, unit, lo, hi, count, seed",
    [
        ("ns", 1, 3, 60, 600, 0x5EED_0001),
        ("us", 1000, 10, 200, 250, 0x5EED_0002),
    ],
)
def test_rust_and_python_agree_on_random_sets(scale: str, unit: int, lo: int, hi: int, count: int, seed: int) -> None:
    rng = random.Random(seed)
    tally = Tally()
    if scale == "ns":
        for ts, m, what in EDGES:
            compare(ts, m, tally, f"edge case '{what}'")
    for i in range(count):
        ts, m = random_set(rng, unit, lo, hi)
        compare(ts, m, tally, f"{scale} set {i}")
        if scale == "ns":
            # Walk to a test's boundary (one more ns of WCET for a random
            # task until the Python test rejects) and compare both sides of
            # it: off-by-ones and the fine print of a formula show there.
            test = TESTS[i % (len(TESTS) - 1)]
            pair = walk_to_boundary(test, ts, m, rng)
            if pair is not None:
                compare(pair[0], m, tally, f"{scale} set {i}, last set {test} accepts")
                compare(pair[1], m, tally, f"{scale} set {i}, first set {test} rejects")
    lines = [f"{scale}: {tally.sets} sets"]
    for t in TESTS:
        lines.append(f"  {t:20} agree {tally.agree[t]:4}  accepted {tally.accepted[t]:4}  budget-sensitive {tally.sensitive[t]}")
    print("\n".join(lines))
    assert not tally.disagreements, "\n".join(tally.disagreements[:20]) + f"\n({len(tally.disagreements)} disagreements)"
    for t in TESTS:
        assert tally.sensitive[t] <= tally.sets // 50, f"{t}: {tally.sensitive[t]} budget-sensitive sets"
        if t not in ("gedf.bcl",) or scale == "ns":
            assert tally.accepted[t] > 0, f"{t} never accepts: the sets are too heavy to compare anything"
