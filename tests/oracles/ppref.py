"""A direct, deliberately naive implementation of the ppref family, straight from specs/carterette.md.

Used only as the oracle of property tests: Python loops over an explicit pair list, the closure by the
tool's own Floyd-Warshall rule (§2.2), the pair list of §2.5 and the formulas of §2.6-2.8.
"""

from __future__ import annotations

import math

INF = math.inf


def closure(edges: dict[tuple[str, str], int]) -> dict[tuple[str, str], int]:
    """§2.2: Floyd-Warshall with 0 (duplicate) treated like absent. Deterministic on the inputs we use."""
    d = dict(edges)
    vertices = sorted({v for e in d for v in e})
    for k in vertices:
        for i in vertices:
            if i == k or (i, k) not in d:
                continue
            for j in vertices:
                if j in (i, k) or (k, j) not in d:
                    continue
                c = d[(i, k)] + d[(k, j)]
                if (i, j) not in d or d[(i, j)] == 0:
                    d[(i, j)] = c
                else:
                    d[(i, j)] = min(d[(i, j)], c)
    return d


def pair_list(
    edges: dict[tuple[str, str], int],
    bad: set[str],
    rank: dict[str, int],
    degree: dict[tuple[str, str], float] | None = None,
):
    """§2.5: the multiset P of (f, t, degree) rank pairs, and PR, PU."""

    def r(doc):
        return rank.get(doc, INF)

    strict = [(a, b) for (a, b), w in sorted(edges.items()) if w > 0]
    pairs = [(r(a), r(b), (degree or {}).get((a, b), 1.0)) for a, b in strict]
    pu = len({a for (a, _b) in edges if r(a) == INF})
    pr = sorted({r(a) for a, _b in strict if r(a) < INF})
    bad_ranks = [r(b) for b in sorted(bad)]
    bu = sum(1 for x in bad_ranks if x == INF)
    pairs += [(p, b, 1.0) for p in pr for b in bad_ranks]
    pairs += [(INF, INF, 1.0)] * (bu * pu)
    return pairs, pr, pu


def measures(pairs, pr, pu, n_bad, k, ideal_pairs=None) -> dict[str, float]:
    """§2.6-2.8 and the paper's wppref/nwppref (DESIGN.md), by loops."""

    def correct(kk):
        return sum(1 for f, t, _ in pairs if f < t and f <= kk)

    def ordered(kk):
        return sum(1 for f, t, _ in pairs if f <= kk or t <= kk)

    def div(a, b):
        return a / b if b else 0.0

    def ppref(kk):
        return div(correct(kk), ordered(kk))

    def wppref(ps, kk):
        return sum((2.0**g - 1) / math.log2(f + 1) for f, t, g in ps if f < t and f <= kk)

    n = len(pairs)
    p, rec = ppref(k), div(correct(k), n)
    wpref = sum(1 / (math.log2(f) + 1) for f, t, _ in pairs if f < t and f <= k)
    wden = sum(1 / (math.log2(min(f, t)) + 1) for f, t, _ in pairs if f <= k or t <= k)
    firsts = [f for f, t, _ in pairs if f < t]
    out = {
        "ppref": p,
        "rpref": rec,
        "fpref": div(2 * p * rec, p + rec),
        "wpref": wpref,
        "nwpref": div(wpref, wden),
        "wppref": wppref(pairs, k),
        "rrpref": 1 / min(firsts) if firsts else 0.0,
        "pprefMax": max([ppref(x) for x in pr], default=0.0),
        "rprefMax": div(correct(INF), n),
        "APpref": div(sum(ppref(x) for x in pr) + pu * div(correct(INF), n), len(pr) + pu),
        "num_pref_ranked": sum(1 for f, t, _ in pairs if f < INF or t < INF),
        "num_pref_total": n,
        "num_preferred": len(pr) + pu,
        "num_preferred_unrk": pu,
        "num_bad": n_bad,
    }
    if ideal_pairs is not None:
        out["nwppref"] = div(out["wppref"], wppref(ideal_pairs, k))
    return out
