"""Preference precision and recall (the ppref family), per query, from :class:`PairCounts`.

Definitions (P = the pair multiset of ``pair_counts``; a pair (f, t) is *correct at k* if f < t and
f <= k, *ordered at k* if min(f, t) <= k; N = |P|; PR = ranks of retrieved preferred docs, PU = number of
unretrieved preferred docs):

* ``ppref@k`` = correct(k) / ordered(k); ``rpref@k`` = correct(k) / N;
  ``fpref@k`` = (1 + b^2) p r / (b^2 p + r) (Carterette & Bennett, SIGIR 2008 poster);
* ``wpref@k`` = sum over correct pairs of 1 / (log2 f + 1), ``nwpref@k`` = wpref@k / the same weight
  summed over the ordered pairs (``pairwise_pref_eval.py``, Elsas 2011);
* ``wppref@k`` = sum over correct pairs of (2^|pref| - 1) / log2(f + 1), ``nwppref@k`` = wppref@k / wppref@k
  of the ideal ranking (Carterette & Bennett, SIGIR 2008 poster, section 2; our reading, see docs/measures.md);
* ``rrpref`` = 1 / the best rank of a correct pair; ``pprefMax`` / ``rprefMax`` = max over r in PR;
* ``APpref`` = (sum over r in PR of ppref@r + PU * correct(inf) / N) / (|PR| + PU) (the tool's form);
* counts ``num_pref_ranked``, ``num_pref_total``, ``num_preferred``, ``num_preferred_unrk``, ``num_bad``.

Every ratio with a zero denominator is 0, as in the tool. A cutoff of ``None`` means the whole ranking.
"""

from __future__ import annotations

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.measures.pair_counts import PairCounts


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _upto(c: PairCounts, values: np.ndarray, k: float | None) -> np.ndarray:
    """Per query: the sum of ``values`` over events at rank <= k."""
    keep = values if k is None else values * (c.rank <= k)
    return np.bincount(c.event_query, weights=keep, minlength=len(c.queries))


def _running(c: PairCounts, values: np.ndarray) -> np.ndarray:
    """Per event: the sum of ``values`` over the events of its query up to and including it."""
    total = np.cumsum(values)
    before_query = np.r_[0.0, total][c.offsets[:-1]]
    return total - np.repeat(before_query, np.diff(c.offsets))


def _tool_weight(c: PairCounts) -> np.ndarray:
    return 1.0 / (np.log2(c.rank) + 1.0)


def ppref(c: PairCounts, k: float | None = None) -> np.ndarray:
    return _ratio(_upto(c, c.correct, k), _upto(c, c.ordered, k))


def rpref(c: PairCounts, k: float | None = None) -> np.ndarray:
    return _ratio(_upto(c, c.correct, k), c.total)


def fpref(c: PairCounts, k: float | None = None, beta: float = 1.0) -> np.ndarray:
    p, r = ppref(c, k), rpref(c, k)
    return _ratio((1 + beta**2) * p * r, beta**2 * p + r)


def wpref(c: PairCounts, k: float | None = None) -> np.ndarray:
    return _upto(c, c.correct * _tool_weight(c), k)


def nwpref(c: PairCounts, k: float | None = None) -> np.ndarray:
    return _ratio(wpref(c, k), _upto(c, c.ordered * _tool_weight(c), k))


def wppref(c: PairCounts, k: float | None = None) -> np.ndarray:
    if not np.isfinite(c.gain).all():
        raise InputError(
            "wppref@k and nwppref@k weigh a correct pair by 2^(grade difference) - 1, which float64 cannot hold "
            "for the grades given (grades beyond +-1023)",
            expected="grades between -1023 and 1023 for wppref and nwppref (the other measures take any)",
        )
    return _upto(c, c.gain / np.log2(c.rank + 1.0), k)


def nwppref(c: PairCounts, ideal: PairCounts, k: float | None = None) -> np.ndarray:
    """wppref@k over the ideal ranking's wppref@k; ``ideal`` covers the same queries."""
    return _ratio(wppref(c, k), wppref(ideal, k))


def rrpref(c: PairCounts) -> np.ndarray:
    has_correct = c.correct > 0
    first = np.full(len(c.queries), np.inf)
    query, index = np.unique(c.event_query[has_correct], return_index=True)
    first[query] = c.rank[has_correct][index]
    return 1.0 / first


def _ppref_at_events(c: PairCounts) -> np.ndarray:
    return _ratio(_running(c, c.correct), _running(c, c.ordered))


def pprefmax(c: PairCounts) -> np.ndarray:
    out = np.zeros(len(c.queries))
    np.maximum.at(out, c.event_query[c.preferred], _ppref_at_events(c)[c.preferred])
    return out


def rprefmax(c: PairCounts) -> np.ndarray:
    return rpref(c, None)


def appref(c: PairCounts) -> np.ndarray:
    at_pr = np.bincount(c.event_query[c.preferred], weights=_ppref_at_events(c)[c.preferred], minlength=len(c.queries))
    n_pr = np.bincount(c.event_query[c.preferred], minlength=len(c.queries))
    pu = c.unretrieved_preferred
    return _ratio(at_pr + pu * rprefmax(c), n_pr + pu)


def num_pref_ranked(c: PairCounts) -> np.ndarray:
    return _upto(c, c.ordered, None)


def num_pref_total(c: PairCounts) -> np.ndarray:
    return np.asarray(c.total, dtype=np.float64)


def num_preferred(c: PairCounts) -> np.ndarray:
    return np.bincount(c.event_query[c.preferred], minlength=len(c.queries)) + c.unretrieved_preferred


def num_preferred_unrk(c: PairCounts) -> np.ndarray:
    return np.asarray(c.unretrieved_preferred, dtype=np.float64)


def num_bad(c: PairCounts) -> np.ndarray:
    return np.asarray(c.bad, dtype=np.float64)
