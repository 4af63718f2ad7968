#!/usr/bin/env python3
"""Checks the weighted-schedulability statements of the EPOS thesis
(Gracioli 2014, §5.9, L2912-2924; the notes' §6.4) on the results of
``schedlab sweep experiments/epos-weighted.yaml``, and prints one Markdown
row per statement: what the thesis says, what the results show, and
whether it holds.

    python experiments/weighted_anchors.py epos-weighted.parquet

W is Eq. 4 (``schedlab.experiment.weighted``) per curve. A value holds within
±0.05 of the thesis' number; "A > B" holds when A's W exceeds B's by more
than 0.005; "≈" and "converge" mean within 0.05; "reaches 0" is the first
WSS whose W is below 0.005.
"""

from __future__ import annotations

import sys

import pandas as pd

from schedlab.experiment import read_results, weighted

KIB = 1024
WSS = {"4 KB": 4 * KIB, "128 KB": 128 * KIB, "512 KB": 512 * KIB, "1 MB": 1024 * KIB, "10 MB": 10 * 1024 * KIB}
SCHEDS = ("P-EDF", "C-EDF", "G-EDF")


def main(path: str) -> int:
    w = weighted(read_results(path))
    W = {(str(r.utils), str(r.periods), str(r.evaluation), str(r.overheads), int(r.cpmd_wss)): float(r.W) for r in w.itertuples()}
    wss_all = sorted({k[4] for k in W})

    def v(u: str, p: str, e: str, o: str, wss: int) -> float:
        return W[(u, p, e, o, wss)]

    def zero_at(u: str, p: str, e: str, o: str) -> int | None:
        return next((x for x in wss_all if v(u, p, e, o, x) < 0.005), None)

    def size(x: int | None) -> str:
        if x is None:
            return "never"
        return f"{x // (1024 * 1024)} MB" if x >= 1024 * 1024 else f"{x // 1024} KB"

    rows: list[tuple[str, str, bool]] = []
    L, S, G = "uni-light", "short", "long"
    utils = sorted({k[0] for k in W})
    # L2914: the value, for the distribution its figure shows (not named in the text: every one is listed).
    vals = {u: v(u, S, "P-EDF", "epos", WSS["128 KB"]) for u in utils}
    near = [u for u, x in vals.items() if abs(x - 0.82) <= 0.05]
    rows.append((
        "short periods, P-EDF+EPOS at 128 KB: W = 0.82 (distribution not named)",
        ", ".join(f"{u} {x:.2f}" for u, x in vals.items()) + f" (within 0.05: {', '.join(near) or 'none'})",
        bool(near),
    ))
    # P-EDF > C-EDF > G-EDF at 4 KB and 128 KB (every distribution but heavy uniform, both period ranges, EPOS).
    bad = []
    for u in utils:
        if u == "uni-heavy":
            continue
        for p in (S, G):
            for k in ("4 KB", "128 KB"):
                pe, ce, ge = (v(u, p, e, "epos", WSS[k]) for e in SCHEDS)
                if not (pe > ce + 0.005 and ce > ge + 0.005):
                    bad.append(f"{u}/{p}/{k}")
    rows.append(("4 KB and 128 KB: P-EDF > C-EDF > G-EDF (EPOS)", "exceptions: " + (", ".join(bad) or "none"), not bad))
    # Above 512 KB all three converge.
    spread = max(
        max(v(u, p, e, "epos", x) for e in SCHEDS) - min(v(u, p, e, "epos", x) for e in SCHEDS)
        for u in utils for p in (S, G) for x in wss_all if x > WSS["512 KB"]
    )
    rows.append(("above 512 KB the three converge (EPOS)", f"largest spread {spread:.2f}", spread < 0.05))
    # Heavy uniform: identical.
    spread = max(
        max(v("uni-heavy", p, e, o, x) for e in SCHEDS) - min(v("uni-heavy", p, e, o, x) for e in SCHEDS)
        for p in (S, G) for o in ("epos", "litmus") for x in wss_all
    )
    rows.append(("heavy uniform: the three identical", f"largest spread {spread:.2f}", spread < 0.05))
    # Light uniform short: the three with EPOS ≈ equal; G-EDF+EPOS beats every LITMUS variant at 4, 128, 512 KB.
    spread = max(max(v(L, S, e, "epos", x) for e in SCHEDS) - min(v(L, S, e, "epos", x) for e in SCHEDS) for x in wss_all)
    rows.append(("short, light uniform: the three with EPOS about equal", f"largest spread {spread:.2f}", spread < 0.05))
    ok = all(v(L, S, "G-EDF", "epos", WSS[k]) > max(v(L, S, e, "litmus", WSS[k]) for e in SCHEDS) + 0.005 for k in ("4 KB", "128 KB", "512 KB"))
    shown = ", ".join(
        f"{k}: {v(L, S, 'G-EDF', 'epos', WSS[k]):.2f} vs {max(v(L, S, e, 'litmus', WSS[k]) for e in SCHEDS):.2f}"
        for k in ("4 KB", "128 KB", "512 KB")
    )
    rows.append(("short, light uniform: G-EDF+EPOS above every LITMUS^RT variant at 4, 128, 512 KB", shown, ok))
    # Light uniform: W reaches 0 only at 10 MB (long), at 1 MB (short); the best of the nine curves.
    for p, want in ((G, "10 MB"), (S, "1 MB")):
        firsts = [zero_at(L, p, e, o) for e in SCHEDS for o in ("epos", "litmus")]
        last = None if None in firsts else max(firsts)  # type: ignore[type-var]
        rows.append((f"{p}, light uniform: W reaches 0 at {want} (every curve)", size(last), last == WSS[want]))
    # Long light uniform: G-EDF+EPOS < P-EDF+LITMUS at 4 and 128 KB, > at larger WSS.
    lo = all(v(L, G, "G-EDF", "epos", WSS[k]) < v(L, G, "P-EDF", "litmus", WSS[k]) - 0.005 for k in ("4 KB", "128 KB"))
    hi = all(v(L, G, "G-EDF", "epos", x) > v(L, G, "P-EDF", "litmus", x) + 0.005 for x in wss_all if x > WSS["128 KB"] and v(L, G, "P-EDF", "litmus", x) > 0.005)
    shown = ", ".join(f"{size(x)}: {v(L, G, 'G-EDF', 'epos', x):.2f} vs {v(L, G, 'P-EDF', 'litmus', x):.2f}" for x in wss_all)
    rows.append(("long, light uniform: G-EDF+EPOS < P-EDF+LITMUS at 4 and 128 KB, > above", shown, lo and hi))

    print("| statement (thesis §5.9, notes §6.4) | here | holds |")
    print("|---|---|---|")
    for text, here, ok in rows:
        print(f"| {text} | {here} | {'yes' if ok else '**no**'} |")
    print(f"\n{sum(ok for _, _, ok in rows)} of {len(rows)} statements hold.")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
