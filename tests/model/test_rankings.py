"""A run read into a :class:`~ir_pref_measures.model.rankings.Ranking`: the shortcuts for run files written query
by query (the swapped-columns check without a sort, each entry's query found per
slice) give what the direct definitions give, whatever the order of the lines."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ir_pref_measures as ipm
from ir_pref_measures.model import rankings


def _lines(rng: np.random.Generator) -> list[tuple[str, str, float]]:
    """A random run: query ids whose string order is not their numeric order, a few tied scores."""
    lines = []
    for q in rng.choice(40, rng.integers(1, 12), replace=False).tolist():
        docs = rng.choice(200, rng.integers(1, 30), replace=False)
        lines += [(str(q), f"d{d}", float(rng.integers(0, 8))) for d in docs.tolist()]
    return lines


def _write(path, lines) -> str:
    path.write_text("".join(f"{q} Q0 {d} 1 {s} x\n" for q, d, s in lines))
    return str(path)


@pytest.mark.parametrize("seed", range(25))
def test_a_run_is_the_same_ranking_whatever_the_order_of_its_lines(seed, tmp_path):
    rng = np.random.default_rng(seed)
    lines = _lines(rng)
    shuffled = [lines[i] for i in rng.permutation(len(lines))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # random scores may increase down every query: the swapped-columns warning
        first, second = (ipm.as_ranking(_write(tmp_path / f"{k}.run", ls)) for k, ls in enumerate((lines, shuffled)))
    assert list(first.query_ids) == list(second.query_ids) == sorted({q for q, _, _ in lines})
    assert np.array_equal(first.offsets, second.offsets)
    assert first.doc_text.equals(second.doc_text) and np.array_equal(first.scores, second.scores)
    for q in sorted({q for q, _, _ in lines}):  # each doc at its rank under the tie rule (score, then doc id, down)
        docs = sorted(((s, d) for qq, d, s in lines if qq == q), key=lambda item: item[1], reverse=True)
        ranked = [d for _, d in sorted(docs, key=lambda item: item[0], reverse=True)]
        assert first.rank_of([q] * len(ranked), ranked).tolist() == list(range(1, len(ranked) + 1))


def _increase(query: np.ndarray, score: np.ndarray) -> bool:
    """The definition: per query, its last line (in file order) scores above its first, for one query at least
    and below it for none."""
    change = []
    for q in np.unique(query).tolist():
        rows = np.flatnonzero(query == q)
        change.append(score[rows[-1]] - score[rows[0]])
    change = np.asarray(change)
    return bool((change > 0).any() and not (change < 0).any())


@pytest.mark.parametrize("seed", range(40))
def test_the_swapped_columns_check_is_its_definition_in_blocks_or_interleaved(seed):
    rng = np.random.default_rng(seed)
    n_queries = int(rng.integers(1, 6))
    sizes = rng.integers(1, 6, n_queries)
    query = np.repeat(rng.permutation(n_queries), sizes).astype(np.int32)  # blocks, not in query order
    score = rng.integers(0, 4, len(query)).astype(np.float64)
    for order in (np.arange(len(query)), rng.permutation(len(query))):
        assert rankings._scores_increase(query[order], score[order], n_queries) == _increase(query[order], score[order])


def test_a_swapped_run_warns_when_its_queries_are_not_in_string_order(tmp_path):
    path = tmp_path / "swapped.run"  # queries 2, 10, 1: blocks, not in string order
    path.write_text("".join(f"{q} Q0 d{k} 0.{9 - k} {k + 1} x\n" for q in (2, 10, 1) for k in range(4)))
    with pytest.warns(UserWarning, match="the scores increase down the lines of every query"):
        ipm.as_ranking(str(path))
    fine = tmp_path / "fine.run"
    fine.write_text("".join(f"{q} Q0 d{k} {k + 1} 0.{9 - k} x\n" for q in (2, 10, 1) for k in range(4)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ipm.as_ranking(str(fine))


@pytest.mark.parametrize("seed", range(30))
def test_the_query_of_each_entry_of_a_slice_is_found_by_binary_search(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 5, rng.integers(1, 12))
    sizes[rng.integers(len(sizes))] += 1  # one entry at least
    offsets = np.r_[0, np.cumsum(sizes)]
    lo = int(rng.integers(0, offsets[-1]))
    hi = int(rng.integers(lo + 1, offsets[-1] + 1))
    expected = np.searchsorted(offsets, np.arange(lo, hi), "right") - 1
    assert np.array_equal(rankings._query_of(offsets, lo, hi), expected)
