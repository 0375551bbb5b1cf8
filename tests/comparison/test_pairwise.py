"""The compare API's reading of runs: the relevant docs' ranks picked from one lookup of every judged doc are those
looked up directly, and the coverage checks give the same answers from the shared ranks (random inputs)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ir_pref_measures as ipm
from ir_pref_measures.comparison.pairwise import relevant_docs, relevant_ranks
from ir_pref_measures.model.checks import check_judged
from ir_pref_measures.model.coverage import covered, judged_ranks, unjudged_queries


def _random_input(seed: int) -> tuple[ipm.Judgments, ipm.Ranking]:
    """Qrels over 6 queries (one only judged, one only retrieved) and a run with tied scores."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(6):
        pool = [f"d{q}_{d}" for d in rng.permutation(40)]
        if q != 5:
            judged = pool[: rng.integers(1, 20)]
            qrels += [(f"q{q}", d, int(g)) for d, g in zip(judged, rng.integers(0, 4, len(judged)), strict=True)]
        if q != 4:
            retrieved = rng.permutation(pool)[: rng.integers(1, 30)]
            run += [(f"q{q}", d, float(s)) for d, s in zip(retrieved, rng.integers(0, 5, len(retrieved)), strict=True)]
    judgments = ipm.Judgments.from_qrels(pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]))
    ranking = ipm.Ranking.from_frame(pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))
    return judgments, ranking


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("topk", [None, 3])
def test_relevant_ranks_from_the_judged_ranks_are_those_looked_up(seed, topk):
    judgments, ranking = _random_input(seed)
    if not (judgments.grades > 0).any():
        pytest.skip("no relevant doc drawn")
    relevant = relevant_docs(judgments)
    every = judged_ranks(ranking, judgments)
    direct = relevant_ranks(ranking, relevant, topk)
    shared = relevant_ranks(ranking, relevant, topk, judged=every)
    assert np.array_equal(direct, shared)


@pytest.mark.parametrize("seed", range(20))
def test_the_coverage_checks_agree_with_and_without_shared_ranks(seed):
    judgments, ranking = _random_input(seed)
    every = judged_ranks(ranking, judgments)
    assert np.array_equal(covered(ranking, judgments), covered(ranking, judgments, every))
    assert unjudged_queries(ranking, judgments) == unjudged_queries(ranking, judgments, every)
    outcomes = []
    for ranks in (None, every):
        try:
            check_judged(ranking, judgments, ranks=ranks)
            outcomes.append(None)
        except ipm.InputError as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]


def test_judged_ranks_are_each_judged_docs_rank():
    """The direct definition: the 1-based position of the doc in its query's ranking, inf where absent."""
    judgments, ranking = _random_input(7)
    every = judged_ranks(ranking, judgments)
    queries = judgments.query_ids[judgments.doc_query]
    for query, doc, rank in zip(queries.tolist(), judgments.doc_text.to_pylist(), every.tolist(), strict=True):
        where = np.flatnonzero(ranking.query_ids == query)
        docs = [] if not len(where) else ranking.doc_ids[ranking.offsets[where[0]] : ranking.offsets[where[0] + 1]]
        expected = list(docs).index(doc) + 1 if doc in list(docs) else np.inf
        assert rank == expected
