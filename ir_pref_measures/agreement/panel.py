"""Agreement and reliability of preference judges (people, LLMs, graded qrels), as DataFrames.

* :func:`align`: the judges' labels on the pairs they judged, per query, one row per pair (doc ids in order),
  one column per judge: ``1`` the first doc preferred, ``0`` a tie, ``-1`` the second preferred, missing where the
  judge did not judge the pair. ``a > b`` and ``b < a`` are the same judgment; a pair judged several times by one
  judge takes the label given most often, a tie when labels share the top count (``majority="net"``: the sign of
  its wins minus its losses; :func:`~ir_pref_measures.agreement.coefficients.majority`); a graded judge labels every
  pair of docs it grades among the pairs the other judges judged (a > b iff grade(a) > grade(b), equal grades a
  tie).
* :func:`agreement`: for every two judges, on the pairs both judged: agree (the same label, ties included),
  disagree (opposite preferences), tie (one judge a tie, the other a preference), their rates, Cohen's kappa,
  linearly weighted kappa over ``<, =, >``, Krippendorff's alpha (nominal and ordinal), each with a percentile
  bootstrap interval over queries.
* :func:`reliability`: across all judges, Fleiss' kappa (pairs every judge judged) and Krippendorff's alpha
  (pairs two or more judged), with intervals.
* :func:`diagnostics`: per judge, coverage (judgments, pairs, queries, docs), self-contradictions (a pair
  judged both ways), position bias (how often the doc shown first wins; pairs shown in both orders that kept
  their label), and intransitive triads (cycles a > b > c > a among triads whose three pairs are strict).
* :func:`system_agreement`: per judge, the ordering of runs under a measure and its Kendall's tau and tau_AP
  against the ordering under reference judgments (:mod:`ir_pref_measures.meta.evaluation`).
* :func:`runs_at_depth`: the runs a judge's ordering of runs is measured on, read once, cut at a depth, with one
  warning where their depths differ (the prediction-powered tables and the simulator of judging efforts read them
  so too).

References: J. Cohen 1960, 1968; J. L. Fleiss 1971; K. Krippendorff 2011
(:mod:`ir_pref_measures.agreement.coefficients`); H. Arabzadeh, C. L. A. Clarke, SIGIR 2025 (GPT-4o preference
judgments against people); X. Yan et al., SIGIR 2022 (human preferences on TREC DL 2021).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ir_pref_measures import arguments
from ir_pref_measures.agreement import coefficients as kernels
from ir_pref_measures.agreement.sources import Grades, Labels, Votes, judges, judgments_of
from ir_pref_measures.errors import InputError
from ir_pref_measures.model.ids import intern, unique_sorted
from ir_pref_measures.stats.paired import CONFIDENCE, bootstrap_sums

MISSING = np.int8(-128)  # no label: the judge did not judge the pair
SAMPLES = 1000  # bootstrap resamples of the queries

if TYPE_CHECKING:
    from ir_pref_measures.model.rankings import Ranking


@dataclass(frozen=True)
class JudgeVotes:
    """One judge's votes, encoded: pair ``key`` (oriented: its first doc before its second), ``label`` of the
    pair's first doc over its second, ``first_shown`` (True where the pair's first doc was shown first; meaningful
    only where ``shown``, the order known), ``unusable`` (lines without a usable judgment)."""

    key: np.ndarray
    label: np.ndarray
    first_shown: np.ndarray
    shown: np.ndarray
    unusable: int


@dataclass(frozen=True)
class Aligned:
    """Judges' labels on pairs: ``judges`` (names), ``query_ids`` and ``docs`` (vocabularies), per pair its query
    code ``query``, doc codes ``doc_a < doc_b`` and ``labels`` ``(pairs, judges)`` (int8, :data:`MISSING` where
    not judged); ``votes``: the encoded votes of each judge that judged pairs (not the graded ones)."""

    judges: list[str]
    query_ids: np.ndarray
    docs: np.ndarray
    query: np.ndarray
    doc_a: np.ndarray
    doc_b: np.ndarray
    labels: np.ndarray
    votes: dict[str, JudgeVotes]

    def query_docs(self) -> tuple[np.ndarray, np.ndarray]:
        """Each pair's two docs as query-doc keys, ``query * len(docs) + doc`` (int64)."""
        base = self.query.astype(np.int64) * len(self.docs)
        return base + self.doc_a, base + self.doc_b

    def frame(self) -> pd.DataFrame:
        """``query_id, doc_id_a, doc_id_b`` and one column per judge (nullable Int8: 1, 0, -1 or missing)."""
        frame = pd.DataFrame(
            {
                "query_id": self.query_ids[self.query],
                "doc_id_a": self.docs[self.doc_a],
                "doc_id_b": self.docs[self.doc_b],
            }
        )
        for k, judge in enumerate(self.judges):
            frame[judge] = pd.arrays.IntegerArray(self.labels[:, k].astype(np.int8), self.labels[:, k] == MISSING)
        return frame


def align(
    sources: Mapping[str, object] | Mapping[str, Labels], *, format: str | None = None, majority: str = "plurality"
) -> Aligned:
    """The judges ``{name: source}`` (:func:`ir_pref_measures.agreement.sources.judges`: files, ir_datasets IDs,
    tables, judgment groups) aligned on their pairs (module docstring). ``format``: the preference files' format
    where detection cannot tell; ``majority``: how a pair judged several times by one judge gets its label,
    ``"plurality"`` (the label given most often, a tie when the top count is shared) or ``"net"`` (the sign of
    wins minus losses, tie votes abstaining; :func:`~ir_pref_measures.agreement.coefficients.majority`). Every pair any
    judge judged is a row."""
    if majority not in kernels.MAJORITY_RULES:
        raise InputError(f"unknown majority rule {majority!r}", expected=" or ".join(kernels.MAJORITY_RULES))
    read: Mapping[str, Labels] = {n: j for n, j in sources.items() if isinstance(j, Votes | Grades)}
    if len(read) < len(sources):
        read = judges(sources, format=format)
    names = list(read)
    votes = {n: judge for n, judge in read.items() if isinstance(judge, Votes)}
    voters = list(votes)
    if not voters:
        raise InputError("no judge judges pairs: graded judges are compared on the pairs that other judges judged")
    query_codes, query_vocabulary = intern(*[read[n].query_id for n in names])
    doc_codes, doc_vocabulary = intern(*[part for n in names for part in _doc_parts(read[n])])
    n_docs = len(doc_vocabulary)
    docs_of = iter(doc_codes)
    qdocs = {}  # per judge, its docs as query * n_docs + doc (int64)
    for name, q in zip(names, query_codes, strict=True):
        q = q.astype(np.int64) * n_docs
        qdocs[name] = [q + next(docs_of)] + ([q + next(docs_of)] if isinstance(read[name], Votes) else [])
    vocabulary = unique_sorted(np.concatenate([x for n in voters for x in qdocs[n]]))  # the judged (query, doc)s
    n = len(vocabulary)
    encoded = {}
    for name, judge in votes.items():
        a, b = (np.searchsorted(vocabulary, x) for x in qdocs[name])
        lo, hi, label, a_is_lo = kernels.orient(a, b, judge.label)
        if (lo == hi).any():
            row = int(np.flatnonzero(lo == hi)[0])
            doc, query = (str(judge.doc_a[row]), str(judge.query_id[row]))
            raise InputError(f"judge {name!r}: doc {doc!r} is compared with itself in query {query!r}")
        encoded[name] = JudgeVotes(lo * n + hi, label, a_is_lo, judge.shown, judge.unusable)
    reduced = {name: kernels.majority(encoded[name].key, encoded[name].label, majority)[:2] for name in voters}
    keys = unique_sorted(np.concatenate([reduced[name][0] for name in voters]))
    first, second = vocabulary[keys // n], vocabulary[keys % n]
    labels = np.full((len(keys), len(names)), MISSING, dtype=np.int8)
    for k, name in enumerate(names):
        if name in reduced:
            labels[np.searchsorted(keys, reduced[name][0]), k] = reduced[name][1]
        else:
            graded = read[name]
            assert isinstance(graded, Grades), "a judge without votes is graded"
            labels[:, k] = _graded_labels(qdocs[name][0], graded.grade, first, second)
    query, doc_a = np.divmod(first, n_docs)
    return Aligned(names, query_vocabulary, doc_vocabulary, query, doc_a, second % n_docs, labels, encoded)


def _doc_parts(judge: Labels) -> list[np.ndarray]:
    return [judge.doc_a, judge.doc_b] if isinstance(judge, Votes) else [judge.doc_id]


def _graded_labels(qdoc: np.ndarray, grade: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The labels graded docs imply on pairs ``(first, second)`` (query-doc keys): the sign of the grade difference,
    :data:`MISSING` where a doc is not graded."""
    order = np.argsort(qdoc, kind="stable")
    qdoc, grade = qdoc[order], grade[order]
    found = []
    for side in (first, second):
        at = np.minimum(np.searchsorted(qdoc, side), max(len(qdoc) - 1, 0))
        hit = (qdoc[at] == side) if len(qdoc) else np.zeros(len(side), dtype=bool)
        found.append((hit, grade[at] if len(qdoc) else np.zeros(len(side))))
    both = found[0][0] & found[1][0]
    return np.where(both, np.sign(found[0][1] - found[1][1]), MISSING).astype(np.int8)


# -- agreement ---------------------------------------------------------------------------------------------------

PAIR_STATISTICS = {  # name -> statistic of a stack of 3 x 3 tables (rows: the first judge, order <, =, >)
    "kappa": kernels.cohen_kappa,
    "weighted kappa": lambda t: kernels.cohen_kappa(t, "linear"),
    "alpha": lambda t: kernels.krippendorff_alpha(t + np.swapaxes(t, -1, -2)),
    "alpha ordinal": lambda t: kernels.krippendorff_alpha(t + np.swapaxes(t, -1, -2), "ordinal"),
}


def _interval(per_query: np.ndarray, statistic, samples: int, seed: int, confidence: float) -> tuple[float, float]:
    """The percentile bootstrap interval (over queries) of ``statistic`` of the summed per-query rows."""
    resampled = statistic(bootstrap_sums(per_query, samples, np.random.default_rng(seed)))
    resampled = resampled[~np.isnan(resampled)]
    if not len(resampled):
        return np.nan, np.nan
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(resampled, [tail, 100 - tail])
    return float(low), float(high)


def bootstrap_options(samples=SAMPLES, seed=0, confidence=CONFIDENCE) -> tuple[int, int, float]:
    """``samples``, ``seed`` and ``confidence`` of :func:`agreement` and :func:`reliability` checked
    (:mod:`ir_pref_measures.arguments`)."""
    return (
        arguments.positive_int(samples, "samples"),
        arguments.seed(seed),
        arguments.open_unit(confidence, "confidence"),
    )


def agreement(
    aligned: Aligned, *, samples: int = SAMPLES, seed: int = 0, confidence: float = CONFIDENCE
) -> pd.DataFrame:
    """One row per two judges (in the order given), on the pairs both judged: ``pairs, agree, tie, disagree``,
    their rates, ``kappa``, ``weighted kappa``, ``alpha``, ``alpha ordinal``, each statistic with ``ci low`` and
    ``ci high`` (bootstrap over queries, ``samples`` resamples seeded by ``seed``)."""
    samples, seed, confidence = bootstrap_options(samples, seed, confidence)
    n_queries = len(aligned.query_ids)
    rows = []
    for i, j in combinations(range(len(aligned.judges)), 2):
        x, y = aligned.labels[:, i], aligned.labels[:, j]
        both = (x != MISSING) & (y != MISSING)
        tables = kernels.contingency(x[both], y[both], aligned.query[both], n_queries)
        tables = tables[tables.sum(axis=(1, 2)) > 0]
        total = tables.sum(axis=0)
        agree, disagree = int(np.trace(total)), int(total[0, 2] + total[2, 0])
        n = int(total.sum())
        row: dict[str, Any] = {"judge a": aligned.judges[i], "judge b": aligned.judges[j], "queries": len(tables)}
        row["pairs"] = n
        row |= {"agree": agree, "tie": n - agree - disagree, "disagree": disagree}
        for name in ("agree", "tie", "disagree"):
            row[f"{name} rate"] = row[name] / n if n else np.nan
        flat = tables.reshape(-1, 9).astype(np.float64)
        for name, statistic in PAIR_STATISTICS.items():
            row[name], row[f"{name} ci low"], row[f"{name} ci high"] = np.nan, np.nan, np.nan
            if n:
                row[name] = float(statistic(total))
                low_high = _interval(flat, lambda s, f=statistic: f(s.reshape(-1, 3, 3)), samples, seed, confidence)
                row[f"{name} ci low"], row[f"{name} ci high"] = low_high
        rows.append(row)
    return pd.DataFrame(rows)


def reliability(
    aligned: Aligned, *, samples: int = SAMPLES, seed: int = 0, confidence: float = CONFIDENCE
) -> pd.DataFrame:
    """Across all judges, on the pairs two or more of them judged: Fleiss' kappa (Gwet's form where pairs have
    different numbers of judges) and Krippendorff's alpha (nominal, ordinal); one row per statistic with ``judges,
    pairs, value, ci low, ci high``."""
    samples, seed, confidence = bootstrap_options(samples, seed, confidence)
    m = len(aligned.judges)
    if m < 2:
        raise InputError("reliability needs two or more judges")
    n_queries = len(aligned.query_ids)
    present = aligned.labels != MISSING
    rows: list[tuple[str, int, np.ndarray, Callable[[np.ndarray], Any]]] = []
    several = present.sum(axis=1) >= 2
    counts = np.stack([(aligned.labels[several] == v).sum(axis=1) for v in kernels.LABELS], axis=1)
    totals = kernels.fleiss_totals(counts, aligned.query[several], n_queries)
    rows.append(("Fleiss kappa", int(several.sum()), totals, kernels.fleiss_kappa))
    coincidence = kernels.coincidences(aligned.labels[several], aligned.query[several], n_queries)
    for level in ("nominal", "ordinal"):
        name = "Krippendorff alpha" + ("" if level == "nominal" else " ordinal")
        alpha = functools.partial(_alpha, level=level)
        rows.append((name, int(several.sum()), coincidence.reshape(n_queries, -1), alpha))
    out = []
    for name, pairs, per_query, statistic in rows:
        per_query = per_query[per_query.any(axis=1)]
        value = float(np.ravel(statistic(per_query.sum(axis=0)))[0]) if pairs else np.nan
        low, high = _interval(per_query, statistic, samples, seed, confidence) if pairs else (np.nan, np.nan)
        out.append({"statistic": name, "judges": m, "pairs": pairs, "value": value, "ci low": low, "ci high": high})
    return pd.DataFrame(out)


# -- diagnostics -------------------------------------------------------------------------------------------------


def triads(aligned: Aligned) -> pd.DataFrame:
    """Per judge and query: ``triads`` (three docs whose three pairs the judge judged strictly), ``intransitive``
    (of them, the cycles a > b > c > a) and ``rate``."""
    n_queries = len(aligned.query_ids)
    nodes, index = np.unique(np.concatenate(aligned.query_docs()), return_inverse=True)
    first, second = index[: len(aligned.query)], index[len(aligned.query) :]
    node_query = nodes // len(aligned.docs)
    frames = []
    for k, judge in enumerate(aligned.judges):
        label = aligned.labels[:, k]
        src = np.r_[first[label == 1], second[label == -1]]
        dst = np.r_[second[label == 1], first[label == -1]]
        total, cyclic = kernels.cyclic_triads(node_query, src, dst, n_queries)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.where(total > 0, cyclic / np.maximum(total, 1), np.nan)
        frames.append(
            pd.DataFrame(
                {"judge": judge, "query_id": aligned.query_ids, "triads": total, "intransitive": cyclic, "rate": rate}
            )
        )
    return pd.concat(frames, ignore_index=True)


def diagnostics(aligned: Aligned) -> pd.DataFrame:
    """One row per judge: coverage (``judgments``, ``unusable``, ``pairs``, ``queries``, ``docs``, ``pairs per
    query``), ``repeated`` pairs and ``contradicted`` ones (judged both ways by the judge), ``first wins`` (the
    share of strict judgments won by the doc shown first, where the order is known) with its two-sided exact
    binomial p-value against 1/2, ``both orders`` (pairs shown in both orders) and ``order kept`` (of them, the
    share whose majority label is the same in both orders), and the intransitive triads over all queries."""
    per_query = triads(aligned).groupby("judge", sort=False)[["triads", "intransitive"]].sum()
    query_docs = aligned.query_docs()
    rows = []
    for k, judge in enumerate(aligned.judges):
        judged = aligned.labels[:, k] != MISSING
        docs = np.unique(np.concatenate([side[judged] for side in query_docs]))
        queries = len(np.unique(aligned.query[judged]))
        row = {"judge": judge, "judgments": int(judged.sum()), "unusable": 0, "pairs": int(judged.sum())}
        row |= {"queries": queries, "docs": len(docs), "pairs per query": judged.sum() / queries if queries else np.nan}
        votes = aligned.votes.get(judge)
        row |= _vote_diagnostics(votes) if votes is not None else {}
        triad_total, cyclic = per_query.loc[judge]
        row |= {"triads": int(triad_total), "intransitive": int(cyclic)}
        row["intransitive rate"] = cyclic / triad_total if triad_total else np.nan
        rows.append(row)
    table = pd.DataFrame(rows)
    for column in ("repeated", "contradicted", "both orders"):  # counts, missing for a graded judge
        if column in table.columns:
            table[column] = table[column].astype("Int64")
    return table


def _alpha(coincidences: np.ndarray, level: str) -> np.ndarray:
    """Krippendorff's alpha at ``level`` of flattened 3 x 3 coincidence matrices."""
    return kernels.krippendorff_alpha(coincidences.reshape(-1, 3, 3), level)


def _vote_diagnostics(votes: JudgeVotes) -> dict:
    """The columns of :func:`diagnostics` that need the votes themselves (not the majorities)."""
    from scipy.stats import binomtest

    counts = kernels.majority(votes.key, votes.label)[2]
    row: dict[str, Any] = {"judgments": len(votes.key) + votes.unusable, "unusable": votes.unusable}  # lines read
    row["repeated"] = int((counts.sum(axis=1) > 1).sum())
    row["contradicted"] = int(((counts[:, 0] > 0) & (counts[:, 2] > 0)).sum())
    strict = votes.shown & (votes.label != 0)
    first_won = np.where(votes.first_shown, votes.label == 1, votes.label == -1)[strict]
    row["first wins"] = first_won.mean() if len(first_won) else np.nan
    row["first wins p"] = binomtest(int(first_won.sum()), len(first_won)).pvalue if len(first_won) else np.nan
    halves = []  # the majorities of the pairs shown first-doc-first, then of those shown the other way round
    for order in (True, False):
        rows = votes.shown & (votes.first_shown == order)
        halves.append(kernels.majority(votes.key[rows], votes.label[rows]))
    common, in_first, in_second = np.intersect1d(halves[0][0], halves[1][0], return_indices=True)
    row["both orders"] = len(common)
    kept = halves[0][1][in_first] == halves[1][1][in_second]
    row["order kept"] = kept.mean() if len(common) else np.nan
    return row


# -- system-level agreement --------------------------------------------------------------------------------------


def runs_at_depth(runs, topk: int | None = None) -> dict[str, Ranking]:
    """``runs`` (as :func:`~ir_pref_measures.meta.measure_values` takes them) read once and named, each cut at rank
    ``topk`` first when given (as they are read); runs of different depths warn here, once, not once per
    evaluation."""
    from ir_pref_measures.experiment.runs import named_runs
    from ir_pref_measures.model.coverage import depths, warn_depths

    rankings = named_runs(runs, topk=topk)
    warn_depths(depths(rankings))
    return rankings


def system_agreement(
    runs,
    sources: Mapping[str, object],
    measure: str,
    reference: str,
    *,
    format: str | None = None,
    topk: int | None = None,
) -> pd.DataFrame:
    """Per judge (one row each, the reference first): the mean of ``measure`` (a name such as ``ppref@10``,
    ``PGC(p=0.8)``, ``Compatibility``) over the queries, for each run (one column per run), evaluated on that
    judge's judgments, and ``tau`` (Kendall's tau-b) and ``tau_ap`` of the runs' ordering against the ordering
    under the judge ``reference`` (:func:`~ir_pref_measures.meta.kendall_tau`,
    :func:`~ir_pref_measures.meta.tau_ap`). ``runs`` as :func:`~ir_pref_measures.meta.measure_values`
    takes them; ``topk``: every run cut at rank ``topk`` first (runs of different depths warn once)."""
    from ir_pref_measures.meta import evaluation as meta
    from ir_pref_measures.model.coverage import DepthWarning

    read = judges(sources, format=format)
    if reference not in read:
        raise InputError(f"the reference judge {reference!r} is not among the judges: {', '.join(read)}")
    rankings = runs_at_depth(runs, topk)
    means = {}
    for name in [reference, *(n for n in read if n != reference)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DepthWarning)
            (values,) = meta.measure_values(rankings, judgments_of(read[name]), [measure]).values()
        means[name] = values.mean(axis=0)
    truth = means[reference]
    rows = [
        {"judge": name, "tau": meta.kendall_tau(m, truth), "tau_ap": meta.tau_ap(m, truth), **m.to_dict()}
        for name, m in means.items()
    ]
    return pd.DataFrame(rows)


def matrix(table: pd.DataFrame, statistic: str = "kappa") -> pd.DataFrame:
    """A column of an :func:`agreement` table as a symmetric judges x judges matrix (1 on the diagonal for the
    chance-corrected statistics and the agree rate, NaN for counts), for :func:`~ir_pref_measures.meta.plots.
    agreement_heatmap`."""
    if statistic not in table.columns or statistic in ("judge a", "judge b"):
        known = [c for c in table.columns if c not in ("judge a", "judge b")]
        raise InputError(f"unknown agreement statistic {statistic!r}", expected=", ".join(known))
    names = list(dict.fromkeys([*table["judge a"], *table["judge b"]]))
    position = {name: k for k, name in enumerate(names)}
    values = np.full((len(names), len(names)), np.nan)
    if statistic in (*PAIR_STATISTICS, "agree rate"):
        np.fill_diagonal(values, 1.0)
    for a, b, value in zip(table["judge a"], table["judge b"], table[statistic], strict=True):
        values[position[a], position[b]] = values[position[b], position[a]] = value
    return pd.DataFrame(values, index=names, columns=names)
