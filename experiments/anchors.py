#!/usr/bin/env python3
"""Checks the textual anchor points of the EPOS thesis' Ch. 5 study
(Gracioli 2014, §5.9; the notes' §6.4) on the results of
``schedlab sweep experiments/epos-ch5-m8.yaml``, and prints one Markdown
row per anchor: what the thesis says, what the results show, and whether it
holds.

    python experiments/anchors.py ch5.parquet

A curve "starts to drop" at the first cap whose schedulable fraction is
below 0.9 and "reaches 0" at the first cap with fraction 0; a cap holds
within ±0.3 of the thesis' value (three grid steps). "A ≥ B" holds when A's
fraction is at least B's minus 0.05 at every cap, "A > B" when it also is
higher on average, "A ≈ B" when the mean difference is below 0.05.
"""

from __future__ import annotations

import sys

import pandas as pd

from schedlab.experiment import ratios, read_results

TOL_CAP = 0.3


def curves(df: pd.DataFrame) -> dict[tuple[str, str, str, str], pd.Series]:
    r = ratios(df)
    out = {}
    for (u, p, e, o), g in r.groupby(["utils", "periods", "evaluation", "overheads"], observed=True):
        out[(str(u), str(p), str(e), str(o))] = g.set_index("util")["ratio"].sort_index()
    return out


def drop(c: pd.Series, level: float = 0.9) -> float | None:
    below = c[c < level]
    return float(below.index[0]) if len(below) else None


def zero(c: pd.Series) -> float | None:
    z = c[c == 0]
    return float(z.index[0]) if len(z) else None


def fmt(x: float | None) -> str:
    return "never" if x is None else f"{x:.1f}"


def main(path: str) -> int:
    df = read_results(path)
    C = curves(df)

    def c(u: str, p: str, e: str, o: str) -> pd.Series:
        return C[(u, p, e, o)]

    rows: list[tuple[str, str, bool]] = []

    def at_cap(text: str, value: float | None, want: float) -> None:
        ok = value is not None and abs(value - want) <= TOL_CAP + 1e-9
        rows.append((text, fmt(value), ok))

    def geq(a: pd.Series, b: pd.Series) -> bool:
        return bool(((a - b) >= -0.05).all())

    def gt(a: pd.Series, b: pd.Series) -> bool:
        return geq(a, b) and float((a - b).mean()) > 0.005

    def approx(a: pd.Series, b: pd.Series) -> bool:
        return abs(float((a - b).mean())) < 0.05

    def mean(a: pd.Series) -> str:
        return f"{float(a.mean()):.3f}"

    L, S, M, G = "uni-light", "short", "moderate", "long"
    # Fig. 64a, short periods, light uniform.
    pe = c(L, S, "P-EDF", "none")
    rows.append(("short, light uniform: P-EDF (ideal) schedules everything (2.0–8.0)", f"min {pe.min():.2f}", bool((pe == 1.0).all())))
    a, b1, b2 = c(L, S, "P-EDF", "litmus"), c(L, S, "G-EDF", "none"), c(L, S, "G-EDF", "epos")
    rows.append((
        "short, light uniform: P-EDF+LITMUS worse than G-EDF ideal and G-EDF+EPOS",
        f"mean {mean(a)} vs {mean(b1)}, {mean(b2)}",
        float(a.mean()) < float(b1.mean()) and float(a.mean()) < float(b2.mean()),
    ))
    a, b = c(L, S, "P-EDF", "epos"), c(L, S, "C-EDF", "none")
    rows.append(("short, light uniform: P-EDF+EPOS ≈ C-EDF ideal", f"mean {mean(a)} vs {mean(b)}", approx(a, b)))
    a, b = c(L, S, "C-EDF", "epos"), c(L, S, "G-EDF", "none")
    rows.append(("short, light uniform: C-EDF+EPOS > G-EDF ideal", f"mean {mean(a)} vs {mean(b)}", gt(a, b)))
    a, b = c(L, S, "C-EDF", "litmus"), c(L, S, "P-EDF", "litmus")
    rows.append(("short, light uniform: C-EDF+LITMUS > P-EDF+LITMUS", f"mean {mean(a)} vs {mean(b)}", gt(a, b)))
    # Fig. 64b.
    at_cap("short, bimodal light: P-EDF starts to drop at ≈ 7.0", drop(c("bimo-light(0.1)", S, "P-EDF", "none")), 7.0)
    # Heavy uniform.
    for p in (S, M, G):
        gs = [c("uni-heavy", p, e, "none") for e in ("G-EDF", "C-EDF", "P-EDF")]
        d = max(float((gs[i] - gs[j]).abs().max()) for i in range(3) for j in range(3))
        rows.append((f"{p}, heavy uniform: G-EDF = C-EDF = P-EDF (ideal)", f"largest difference {d:.2f}", d <= 0.1))
    at_cap("moderate, heavy uniform: the ratio drops around cap ≈ 5.1", drop(c("uni-heavy", M, "P-EDF", "none")), 5.1)
    # P-EDF light uniform, starts to fall from 1.0 and reaches 0.
    at_cap("short, light uniform: P-EDF+EPOS falls from 1.0 at 7.8", drop(c(L, S, "P-EDF", "epos"), 1.0), 7.8)
    at_cap("moderate, light uniform: P-EDF+EPOS falls from 1.0 at 7.9", drop(c(L, M, "P-EDF", "epos"), 1.0), 7.9)
    at_cap("short, light uniform: P-EDF+LITMUS falls from 1.0 at 4.6", drop(c(L, S, "P-EDF", "litmus"), 1.0), 4.6)
    at_cap("moderate, light uniform: P-EDF+LITMUS falls from 1.0 at 6.6", drop(c(L, M, "P-EDF", "litmus"), 1.0), 6.6)
    at_cap("short, light uniform: P-EDF+EPOS reaches 0 at 7.8", zero(c(L, S, "P-EDF", "epos")), 7.8)
    at_cap("long, light uniform: P-EDF+EPOS reaches 0 at 8.0", zero(c(L, G, "P-EDF", "epos")), 8.0)
    at_cap("short, light uniform: P-EDF+LITMUS reaches 0 at 6.2", zero(c(L, S, "P-EDF", "litmus")), 6.2)
    at_cap("long, light uniform: P-EDF+LITMUS reaches 0 at 7.6", zero(c(L, G, "P-EDF", "litmus")), 7.6)
    at_cap("short, light uniform: G-EDF+LITMUS starts to drop at 3.8", drop(c(L, S, "G-EDF", "litmus")), 3.8)
    at_cap("long, light uniform: G-EDF+LITMUS starts to drop at 6.9", drop(c(L, G, "G-EDF", "litmus")), 6.9)
    # Moderate and long light uniform orderings.
    a, b = c(L, M, "C-EDF", "litmus"), c(L, M, "P-EDF", "litmus")
    rows.append(("moderate, light uniform: C-EDF+LITMUS < P-EDF+LITMUS", f"mean {mean(a)} vs {mean(b)}", gt(b, a)))
    a, b, g0, ge = c(L, M, "C-EDF", "epos"), c(L, M, "C-EDF", "none"), c(L, M, "G-EDF", "none"), c(L, M, "G-EDF", "epos")
    rows.append((
        "moderate, light uniform: C-EDF+EPOS ≈ C-EDF ideal, above G-EDF ideal and G-EDF+EPOS",
        f"mean {mean(a)} vs {mean(b)}; G-EDF {mean(g0)}, {mean(ge)}",
        approx(a, b) and gt(a, g0) and gt(a, ge),
    ))
    a, b = c(L, G, "P-EDF", "litmus"), c(L, G, "G-EDF", "none")
    rows.append(("long, light uniform: P-EDF+LITMUS > G-EDF ideal", f"mean {mean(a)} vs {mean(b)}", gt(a, b)))
    a, b1, b2 = c(L, G, "C-EDF", "litmus"), c(L, G, "G-EDF", "none"), c(L, G, "G-EDF", "epos")
    rows.append((
        "long, light uniform: C-EDF+LITMUS < G-EDF ideal and < G-EDF+EPOS",
        f"mean {mean(a)} vs {mean(b1)}, {mean(b2)}",
        gt(b1, a) and gt(b2, a),
    ))
    # Bimodal heavy.
    bh = "bimo-heavy(0.1)"
    g_same = all(approx(c(bh, p, "G-EDF", o), c(bh, p, "G-EDF", "none")) for p in (S, M, G) for o in ("epos", "litmus"))
    rows.append(("bimodal heavy: overheads do not change G-EDF", "all periods, both OSes", g_same))
    p_short = not approx(c(bh, S, "P-EDF", "litmus"), c(bh, S, "P-EDF", "none"))
    p_other = all(approx(c(bh, p, "P-EDF", o), c(bh, p, "P-EDF", "none")) for p in (M, G) for o in ("epos", "litmus"))
    rows.append(("bimodal heavy: overheads change P-EDF only with short periods", f"short differs: {p_short}; moderate/long equal: {p_other}", p_short and p_other))
    # The ordering in every non-heavy-uniform scenario.
    bad = []
    for u in ("uni-light", "uni-medium", "bimo-light(0.1)", "bimo-medium(0.1)", "bimo-heavy(0.1)"):
        for p in (S, M, G):
            pp, cc, gg = (c(u, p, e, "none") for e in ("P-EDF", "C-EDF", "G-EDF"))
            if not (geq(pp, cc) and geq(cc, gg)):
                bad.append(f"{u}/{p}")
    rows.append(("P-EDF ≥ C-EDF ≥ G-EDF (ideal) except heavy uniform", "violations: " + (", ".join(bad) or "none"), not bad))
    gaps = {u: float((c(u, S, "P-EDF", "none") - c(u, S, "G-EDF", "none")).mean()) for u in ("uni-light", "uni-medium", "bimo-light(0.1)", "bimo-medium(0.1)", "bimo-heavy(0.1)")}
    top = max(gaps, key=lambda k: gaps[k])
    rows.append(("the largest P-EDF − G-EDF gap is for light bimodal (short)", f"largest: {top} ({gaps[top]:.2f})", top == "bimo-light(0.1)"))

    print("| anchor (thesis §5.9, notes §6.4) | here | holds |")
    print("|---|---|---|")
    for text, got, ok in rows:
        print(f"| {text} | {got} | {'yes' if ok else '**no**'} |")
    held = sum(ok for _, _, ok in rows)
    print(f"\n{held} of {len(rows)} anchors hold.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

