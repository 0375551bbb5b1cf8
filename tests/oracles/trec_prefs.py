"""A direct, deliberately naive definition of trec_eval's 14 preference measures (oracle of property tests).

Straight from the rules of ``form_prefs_counts.c`` and ``m_prefs_*.c`` (trec_eval 9.0+, C. Buckley 2008),
with Python loops over explicit pairs, a Floyd-Warshall closure and the R-nonrel recounts as described in
``m_prefs_avgjg_Rnonrel.c`` (including the lowest class counted against itself). A several-jsg group with a
cycle, which trec_eval rejects, is condensed as the library does: two docs each reachable from the other (one
strongly connected component) are tied, every other pair of the closure is kept.
"""

from __future__ import annotations

import math
from itertools import product

from hypothesis import strategies as st

DOCS = [f"d{i}" for i in range(6)]


def cyclic_lines():
    """Random judgment lines ``(query, jg, jsg, doc, level)`` whose groups often hold cycles: each jsg two lines
    (as a preference file is read), a doc of d0-d3 over another (levels 2 and 1, or 1 and 0.5) or over d4 or
    d5, always at level 0 (never a doc at 0 and above, which trec_eval rejects for another reason)."""
    key = (st.sampled_from(["q1", "q1", "q2"]), st.sampled_from(["g1", "g2"]))
    relevant = st.sampled_from(DOCS[:4])
    two = st.permutations(DOCS[:4]).map(lambda docs: docs[:2])
    preference = st.tuples(two, st.sampled_from([(2.0, 1.0), (1.0, 0.5)])).map(lambda x: (*x[0], x[1]))
    over_nonrelevant = st.tuples(relevant, st.sampled_from(DOCS[4:]), st.sampled_from([(2.0, 0.0), (0.5, 0.0)]))
    pairs = st.lists(st.tuples(*key, st.one_of(preference, preference, over_nonrelevant)), min_size=8, max_size=16)
    return pairs.map(
        lambda found: [
            (q, g, f"s{i}", doc, level)
            for i, (q, g, (a, b, levels)) in enumerate(found)
            for doc, level in zip((a, b), levels, strict=True)
        ]
    )


def internal_ranks(docs: set[str], scores: dict[str, float]) -> tuple[dict[str, int], int]:
    """Retrieved judged docs by (score desc, docno asc), then the others by docno."""
    ranked = sorted(scores, key=lambda d: (-scores[d], d))
    retrieved = [d for d in ranked if d in docs]
    order = retrieved + sorted(docs - set(retrieved))
    return {d: i for i, d in enumerate(order)}, len(retrieved)


def _kind(a: int, b: int, njr: int) -> str:
    if a < njr and b < njr:
        return "ful_ret" if a < b else "unful_ret"
    if a < njr or b < njr:
        return "ful_imp" if a < njr else "unful_imp"
    return "not"


def group_data(lines, rank, njr):
    """(pairs of internal ranks, rel/nonrel lists of (rank), lowest class, is_weak) of one jg."""
    jsgs = sorted({s for s, _, _ in lines})
    if len(jsgs) == 1:
        pairs = [(rank[a], rank[b]) for (_, a, la), (_, b, lb) in product(lines, lines) if la > lb]
        rel = [rank[d] for _, d, lv in lines if lv > 0]
        nonrel = [rank[d] for _, d, lv in lines if lv <= 0]
        return pairs, rel, nonrel, True
    prefs = {(a, b) for (s, a, la), (t, b, lb) in product(lines, lines) if s == t and la > lb}
    docs = sorted({d for _, d, _ in lines})
    for k in docs:
        for i in docs:
            for j in docs:
                if (i, k) in prefs and (k, j) in prefs:
                    prefs.add((i, j))
    prefs -= {(b, a) for a, b in prefs}  # mutually reachable: one component of the condensation, tied
    final = {}
    for _, d, lv in sorted(lines, key=lambda x: (x[0], -x[2])):
        final[d] = lv
    pairs = [(rank[a], rank[b]) for a, b in prefs if a != b]
    rel = [rank[d] for d, lv in final.items() if lv > 0]
    nonrel = [rank[d] for d, lv in final.items() if lv == 0]
    return pairs, rel, nonrel, False


def rnonrel(lines, rank, njr, pairs, rel, nonrel, weak, retrieved_only):
    """One group's ratio of prefs_avgjg_Rnonrel (``retrieved_only``: ``_ret``); NaN for 0/0."""
    kinds = [_kind(a, b, njr) for a, b in pairs]
    if retrieved_only:
        r_rel = sum(r < njr for r in rel)
        n = sum(r < njr for r in nonrel)
        ful, total = kinds.count("ful_ret"), kinds.count("ful_ret") + kinds.count("unful_ret")
        r = r_rel
    else:
        r_rel, r, n = sum(x < njr for x in rel), len(rel), len(nonrel)
        ful, total = kinds.count("ful_ret") + kinds.count("ful_imp"), len(kinds)
    if r >= n:
        ful, total = ful + r_rel * (r - n), total + len(rel) * (r - n)
    elif weak:
        lowest = min(lv for _, _, lv in lines)
        low = sorted(rank[d] for _, d, lv in lines if lv == lowest)
        kept = [x for x in low if x < njr][:r] if retrieved_only else low[:r]
        others = [(rank[d], lv) for _, d, lv in lines if lv != lowest]
        every = [rank[d] for _, d, _ in lines]
        usable = (lambda x: x < njr) if retrieved_only else (lambda x: True)
        candidates = [(a, b) for (a, la), (b, lb) in product(others, others) if la > lb and usable(a) and usable(b)]
        candidates += [(a, b) for a in every for b in kept if usable(a)]
        ful = sum(a < b and a < njr for a, b in candidates)
        total = len(candidates)
    else:
        limit = njr if retrieved_only else math.inf
        ordered = sorted(x for x in nonrel if x < limit)
        dropped = set(ordered[len(rel) :])
        kept_pairs = [(a, b) for a, b in pairs if a not in dropped and b not in dropped and a < limit and b < limit]
        ful = sum(a < b and a < njr for a, b in kept_pairs)
        total = len(kept_pairs)
    return ful / total if total else math.nan


def query_values(lines, scores: dict[str, float]) -> dict[str, float]:
    """The 14 measures of one query: ``lines`` of (jg, jsg, doc, level), ``scores`` of the run (may be empty)."""
    rank, njr = internal_ranks({d for _, _, d, _ in lines}, scores)
    totals = dict.fromkeys(("ful_ret", "unful_ret", "ful_imp", "unful_imp", "not"), 0)
    avg = {"": [], "_ret": [], "_imp": [], "_Rnonrel": [], "_Rnonrel_ret": []}
    pair_counts: dict[tuple[int, int], int] = {}
    for jg in sorted({g for g, _, _, _ in lines}):
        group = [(s, d, lv) for g, s, d, lv in lines if g == jg]
        pairs, rel, nonrel, weak = group_data(group, rank, njr)
        kinds = [_kind(a, b, njr) for a, b in pairs]
        for k in kinds:
            totals[k] += 1
        for a, b in pairs:
            pair_counts[(a, b)] = pair_counts.get((a, b), 0) + 1
        ful = kinds.count("ful_ret") + kinds.count("ful_imp")
        ret = kinds.count("ful_ret") + kinds.count("unful_ret")
        imp = ret + kinds.count("ful_imp") + kinds.count("unful_imp")
        avg[""].append(ful / len(kinds) if kinds else 0.0)
        avg["_ret"].append(kinds.count("ful_ret") / ret if ret else 0.0)
        avg["_imp"].append(ful / imp if imp else 0.0)
        avg["_Rnonrel"].append(rnonrel(group, rank, njr, pairs, rel, nonrel, weak, False))
        avg["_Rnonrel_ret"].append(rnonrel(group, rank, njr, pairs, rel, nonrel, weak, True))
    t = totals
    ful = t["ful_ret"] + t["ful_imp"]
    ret = t["ful_ret"] + t["unful_ret"]
    imp = ret + t["ful_imp"] + t["unful_imp"]
    possible = imp + t["not"]
    out = {
        "prefs_num_prefs_poss": possible,
        "prefs_num_prefs_ful": ful,
        "prefs_num_prefs_ful_ret": t["ful_ret"],
        "prefs_simp": ful / possible if possible else 0.0,
        "prefs_simp_ret": t["ful_ret"] / ret if ret else 0.0,
        "prefs_simp_imp": ful / imp if imp else 0.0,
    }
    for suffix, values in avg.items():
        total = sum(values)
        out["prefs_avgjg" + suffix] = total / len(values) if total > 0 else 0.0
    shares = {"ret": [], "imp": [], "not": []}
    for a, b in {(min(a, b), max(a, b)) for a, b in pair_counts}:
        share = pair_counts.get((a, b), 0) / (pair_counts.get((a, b), 0) + pair_counts.get((b, a), 0))
        shares["ret" if b < njr else "imp" if a < njr else "not"].append(share)
    every = shares["ret"] + shares["imp"]
    n_all = len(every) + len(shares["not"])
    out["prefs_pair"] = sum(every) / n_all if n_all else 0.0
    out["prefs_pair_ret"] = sum(shares["ret"]) / len(shares["ret"]) if shares["ret"] else 0.0
    out["prefs_pair_imp"] = sum(every) / len(every) if every else 0.0
    return out
