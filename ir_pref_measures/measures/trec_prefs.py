"""trec_eval's 14 preference measures (``-R prefs`` / ``-R qrels_prefs``), as numpy kernels.

Definitions from trec_eval 9.0+ (C. Buckley 2008; ``m_prefs_*.c`` of usnistgov/trec_eval). The input is one row
per judgment line: query, judgment group (jg), sub-group (jsg), doc, level; within a jsg every doc of a higher
level is preferred to every doc of a lower one. :mod:`.trec_groups` holds a jg's preferences (the closure of a
jg with several jsgs, condensed where trec_eval would abort on a cycle) and the checks trec_eval makes;
:mod:`.trec_counts` counts them per jg by kind: *retrieved* (both docs retrieved), *implied* (exactly one) or
*not retrieved*. Per query:

* ``prefs_num_prefs_poss`` / ``_ful`` / ``_ful_ret``: preferences possible, fulfilled, fulfilled retrieved;
* ``prefs_simp``: fulfilled / possible over all jgs; ``_ret``: retrieved only; ``_imp``: no not-retrieved;
* ``prefs_pair``: mean over doc pairs of the share of that pair's preferences (over jgs) fulfilled;
* ``prefs_avgjg``: ``prefs_simp`` within each jg, averaged over jgs (0 unless the sum is positive);
* ``prefs_avgjg_Rnonrel``: as ``prefs_avgjg`` with the non-relevant docs of each jg (level 0) cut or padded
  to R, its number of relevant docs (see :func:`.trec_counts.rnonrel_ratios`); akin to bpref.

The arithmetic follows trec_eval's order of floating-point operations (sequential sums), so that values
printed with four decimals match it byte for byte.
"""

from __future__ import annotations

import warnings

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.measures.trec_counts import (
    GroupStats,
    PreferenceCounts,
    count_by,
    internal_ranks,
    partial_order_stats,
    rnonrel_ratios,
    weak_order_pairs,
    weak_order_stats,
)
from ir_pref_measures.measures.trec_groups import (
    dense_ids,
    find_cycles,
    find_inconsistency,
    first_rows,
    partial_orders,
    subgroup_counts,
)
from ir_pref_measures.model.judgments import JudgmentLines, Judgments
from ir_pref_measures.model.rankings import Ranking

MEASURES = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)
COUNT_MEASURES = MEASURES[:3]


def _sequential_sums(values: np.ndarray, segment: np.ndarray, n: int) -> np.ndarray:
    """Sum of ``values`` per segment, left to right as trec_eval adds them (``segment`` sorted)."""
    out = np.zeros(n)
    bounds = np.searchsorted(segment, np.arange(n + 1))
    for s in np.flatnonzero(np.diff(bounds)):
        out[s] = np.add.accumulate(values[bounds[s] : bounds[s + 1]])[-1]
    return out


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` where the denominator is non-zero, else 0 (trec_eval's default)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator != 0, numerator / np.where(denominator != 0, denominator, 1), 0.0)


# -- per query ---------------------------------------------------------------------------------------------------------


def trec_prefs_values(query, group, subgroup, doc, level, rank, n_queries: int) -> dict[str, np.ndarray]:
    """The 14 measures per query ``0..n_queries-1``, from one row per judgment line.

    ``query``, ``group``, ``subgroup``, ``doc``: int codes (``group`` and ``subgroup`` in jg / jsg string
    order, ``doc`` in docno order: they order jgs when averaging, the final level of a doc in several
    jsgs and the docs not retrieved); ``level``: float; ``rank``: the doc's position in the run (float,
    ``inf`` = not retrieved; trec_eval orders the run by score descending, then docno ascending). Counts
    are int64, the rest float64. The groups must pass :func:`.trec_groups.find_inconsistency` with
    ``cycles=False``; a several-jsg group with cycles (:func:`.trec_groups.find_cycles`) is evaluated on its
    condensation.
    """
    query, group, subgroup, doc = (np.asarray(a, np.int64) for a in (query, group, subgroup, doc))
    level, rank = np.asarray(level, np.float64), np.asarray(rank, np.float64)
    gid, n = dense_ids(query, group)
    g_query = query[first_rows(gid, n)]
    internal, retrieved = internal_ranks(query, doc, rank, n_queries)
    ret = internal < retrieved[query]
    partial = (subgroup_counts(gid, subgroup) > 1)[gid]
    rows = np.flatnonzero(partial)
    po = partial_orders(gid[rows], subgroup[rows], doc[rows], level[rows], internal[rows])
    weak = np.flatnonzero(~partial)
    w = (gid[weak], level[weak], internal[weak])
    stats = weak_order_stats(*w, ret[weak], n) + partial_order_stats(po, retrieved[g_query[po.node_group]], n)
    values = _simple_and_avgjg(stats, g_query, n_queries)
    multi = (np.bincount(g_query, minlength=n_queries) > 1)[g_query]
    in_multi = multi[w[0]]
    pa_multi = multi[po.node_group[po.preferred]]
    a, b = po.preferred[pa_multi], po.other[pa_multi]
    pa_pairs = (po.node_group[a], po.node_rank[a], po.node_rank[b])
    pairs = zip(weak_order_pairs(*(x[in_multi] for x in w)), pa_pairs, strict=True)
    pair_group, preferred, other = (np.concatenate(p) for p in pairs)
    values |= _pair_measures(stats.distinct, g_query, g_query[pair_group], preferred, other, retrieved, n_queries)
    return {name: values[name] for name in MEASURES}


def _simple_and_avgjg(s: GroupStats, g_query: np.ndarray, n_queries: int) -> dict[str, np.ndarray]:
    """The counts and the ``simp``, ``avgjg`` and ``avgjg_Rnonrel`` families."""
    c = s.counts

    def per_query(values):
        return count_by(g_query, n_queries, values)

    ful, total, ful_ret, ret_total = per_query(c.ful), per_query(c.total), per_query(c.ful_ret), per_query(c.ret_total)
    imp_total = ret_total + per_query(c.imp_total)
    n_groups = np.bincount(g_query, minlength=n_queries)

    def mean_over_groups(ratios):
        sums = _sequential_sums(ratios, g_query, n_queries)
        return np.where(sums > 0, sums / np.maximum(n_groups, 1), 0.0)

    rnonrel, rnonrel_ret = rnonrel_ratios(s)
    return {
        "prefs_num_prefs_poss": total,
        "prefs_num_prefs_ful": ful,
        "prefs_num_prefs_ful_ret": ful_ret,
        "prefs_simp": _ratio(ful, total),
        "prefs_simp_ret": _ratio(ful_ret, ret_total),
        "prefs_simp_imp": _ratio(ful, imp_total),
        "prefs_avgjg": mean_over_groups(_ratio(c.ful, c.total)),
        "prefs_avgjg_ret": mean_over_groups(_ratio(c.ful_ret, c.ret_total)),
        "prefs_avgjg_imp": mean_over_groups(_ratio(c.ful, c.ret_total + c.imp_total)),
        "prefs_avgjg_Rnonrel": mean_over_groups(rnonrel),
        "prefs_avgjg_Rnonrel_ret": mean_over_groups(rnonrel_ret),
    }


def _pair_measures(distinct: PreferenceCounts, g_query, pair_query, preferred, other, retrieved, n_queries: int):
    """``prefs_pair`` and its variants: the mean over doc pairs of the share of their preferences fulfilled.

    A pair counts in ``_ret`` when both docs are retrieved, in ``_imp`` when at least one is, in
    ``prefs_pair`` always (a pair with neither retrieved adds 0). With one jg per query every share is
    0 or 1, so the distinct-pair counts give it; with several jgs the pairs of the query are listed and
    the shares added in trec_eval's order (both retrieved first, then by internal rank).
    """
    low, high = np.minimum(preferred, other), np.maximum(preferred, other)
    ids, m = dense_ids(pair_query, low, high)
    first = first_rows(ids, m)
    share = count_by(ids, m, (preferred < other).astype(np.float64)) / np.bincount(ids, minlength=m)
    q, low, high = pair_query[first], low[first], high[first]
    kind = (high >= retrieved[q]).astype(np.int64) + (low >= retrieved[q])  # 0 both retrieved, 1 one, 2 none
    order = np.lexsort((high, low, kind, q))
    q, kind, share = q[order], kind[order], share[order]
    listed = np.bincount(q, minlength=n_queries) > 0
    both, some = kind == 0, kind < 2
    n_both, n_some, n_all = (np.bincount(q[mask], minlength=n_queries) for mask in (both, some, kind >= 0))
    sum_both = _sequential_sums(share[both], q[both], n_queries)
    sum_some = _sequential_sums(share[some], q[some], n_queries)

    def per_query(values):
        return count_by(g_query, n_queries, values)

    ful, ful_ret = per_query(distinct.ful), per_query(distinct.ful_ret)
    ret_total, imp_total = per_query(distinct.ret_total), per_query(distinct.imp_total)
    return {
        "prefs_pair": np.where(listed, _ratio(sum_some, n_all), _ratio(ful, per_query(distinct.total))),
        "prefs_pair_ret": np.where(listed, _ratio(sum_both, n_both), _ratio(ful_ret, ret_total)),
        "prefs_pair_imp": np.where(listed, _ratio(sum_some, n_some), _ratio(ful, ret_total + imp_total)),
    }


# -- on a Judgments: trec_eval's checks of the groups, its tie rule -------------------------------------------------


def check_groups(judgments: Judgments) -> None:
    """:class:`InputError` naming the judgment group, the query and the docs where trec_eval would reject the
    judgments for a reason other than a cycle (a doc at two levels of a one-sub-group group, or at level 0 and
    above); checked once per judgment set. A cycle (a judge who prefers a to b, b to c and c to a) is no error
    here: the prefs_* measures evaluate that (query, group) on its condensation (:func:`warn_cycles`)."""
    if "trec_check" in judgments._cache:
        return
    lines = judgments.lines
    columns = (judgments.doc_query[lines.doc], lines.group, lines.subgroup, lines.doc, lines.level)
    found = find_inconsistency(*columns, cycles=False)
    if found is not None:
        first, second = found.rows
        doc = judgments.doc_ids
        raise InputError(
            f"judgment group {judgments.group_names[lines.group[first]]!r}, query "
            f"{judgments.query_ids[judgments.doc_query[lines.doc[first]]]!r}: {found.message} "
            f"(docs {doc[lines.doc[first]]!r} and {doc[lines.doc[second]]!r}); trec_eval's prefs_* measures need "
            "each doc at one level per sub-group, and never at level 0 and above in one group",
            expected="consistent levels for the prefs_* measures (ppref@k, PGC and the others take any "
            "preferences; Judgments.group(name) evaluates one group)",
        )
    judgments._cache["trec_check"] = True


def trec_positions(ranking: Ranking, query_ids: np.ndarray, doc_rank: np.ndarray) -> np.ndarray:
    """Per judged doc (its query id, its rank under the library's tie rule), its 0-based position in the run
    under trec_eval's tie rule for preferences: score descending, then docno *ascending* (``inf``: not
    retrieved). Equal scores of a query form a block, whose order is reversed."""
    entry_query = np.repeat(np.arange(len(ranking.query_ids)), np.diff(ranking.offsets))
    scores = ranking.scores
    new_block = np.r_[True, (entry_query[1:] != entry_query[:-1]) | (scores[1:] != scores[:-1])]
    starts = np.flatnonzero(new_block)
    ends = np.r_[starts[1:], len(scores)]
    block = np.cumsum(new_block) - 1
    index = np.arange(len(scores))
    position = starts[block] + ends[block] - 1 - index - ranking.offsets[entry_query]
    out = np.full(len(doc_rank), np.inf)
    found = np.isfinite(doc_rank)
    run_query = ranking.query_index(query_ids[found])
    out[found] = position[ranking.offsets[run_query] + doc_rank[found].astype(np.int64) - 1]
    return out


def judgment_rows(judgments: Judgments, queries: np.ndarray) -> tuple[JudgmentLines, np.ndarray]:
    """The judgment lines of ``queries`` and each line's position among them."""
    lines = judgments.lines
    position = np.full(len(judgments), -1, np.int64)
    position[queries] = np.arange(len(queries))
    rows = lines.take(np.flatnonzero(position[judgments.doc_query[lines.doc]] >= 0))
    return rows, position[judgments.doc_query[rows.doc]]


def warn_cycles(judgments: Judgments, queries: np.ndarray) -> None:
    """One warning naming the (query, group) of ``queries`` whose preferences hold cycles: the prefs_* measures
    evaluate them on their condensation (:mod:`ir_pref_measures.measures.trec_groups`), where trec_eval aborts."""
    rows, query = judgment_rows(judgments, queries)
    cycles = find_cycles(query, rows.group, rows.subgroup, rows.doc, rows.level)
    if len(cycles.blocks):
        first = cycles.first[0]
        docs = judgments.doc_ids[rows.doc[cycles.first]]
        more = f" and {len(docs) - 3} more" if len(docs) > 3 else ""
        warnings.warn(
            f"prefs_*: {len(cycles.blocks)} (query, judgment group) hold preference cycles, which trec_eval rejects; "
            "each is evaluated on its condensation (the docs of a cycle tied within their group). The first: group "
            f"{judgments.group_names[rows.group[first]]!r}, query {judgments.query_ids[queries[query[first]]]!r}, "
            f"docs {', '.join(map(repr, docs[:3]))}{more}",
            stacklevel=2,
        )
