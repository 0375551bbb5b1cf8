"""Greedy PGC for image grids: layouts, examination orders, the thesis example, the Xie et al. data."""

from __future__ import annotations

from functools import cache

import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import testdata_path
from ir_pref_measures.adapters.ir_measures import MEASURES

from ir_pref_measures.errors import InputError
from ir_pref_measures.measures.image_grid import ORDERS, Grid, examination_key, grid_pgc
from ir_pref_measures.measures.pgc import ideal_order, pgc
from ir_pref_measures.measures.rbo import rbo
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.rankings import Ranking
from ir_pref_measures.parsing.images import read_image_pairs, read_image_positions

PGC = MEASURES["PGC"]


def ranking_of(docs: list[str]) -> Ranking:
    return Ranking.from_frame(pd.DataFrame({"query_id": "q", "doc_id": docs, "score": -np.arange(len(docs.copy()))}))


def test_row_major_layout():
    grid = Grid.from_ranking(ranking_of(list("abcdefg")), 3)
    assert grid.row.tolist() == [0, 0, 0, 1, 1, 1, 2]
    assert grid.col.tolist() == [0, 1, 2, 0, 1, 2, 0]
    assert grid.width.tolist() == [3, 3, 3, 3, 3, 3, 1]
    with pytest.raises(InputError):
        Grid.from_ranking(ranking_of(list("ab")), 0)


# Thesis Figure 5.1: a 2 x 3 grid, A C E over B D F.
FIG_5_1 = pd.DataFrame({"query_id": "q", "doc_id": list("ACEBDF"), "row": [0, 0, 0, 1, 1, 1], "col": [0, 1, 2] * 2})


@pytest.mark.parametrize(
    "order, keys",
    [
        ("left_right", [0, 1, 2, 3, 4, 5]),
        ("weighted", [0, 1, 2, 3, 4, 5]),
        ("bottom_top", [0, -1, -2, -3, -4, -5]),
        ("middle", [1, 0, 1, 2, 1, 2]),  # row + |floor(3/2) - col|
        ("manhattan", [0, 1, 2, 1, 2, 3]),
        ("euclidean", [0, 1, 4, 1, 2, 5]),  # squared distances: A, then B and C tied, D, E, F as the thesis
    ],
)
def test_examination_keys_on_figure_5_1(order, keys):
    grid = Grid.from_positions(FIG_5_1)
    assert grid.ranking.doc_ids.tolist() == list("ACEBDF")
    assert grid.width.tolist() == [3] * 6
    assert examination_key(grid, order).tolist() == keys


def test_unknown_order_and_bad_positions():
    with pytest.raises(InputError, match="unknown examination order"):
        examination_key(Grid.from_positions(FIG_5_1), "diagonal")
    with pytest.raises(InputError, match="two docs in one cell"):
        Grid.from_positions(FIG_5_1.assign(col=0))
    with pytest.raises(InputError, match="placed twice"):
        Grid.from_positions(FIG_5_1.assign(doc_id="A"))


def thesis_graph() -> Judgments:
    prefs = pd.DataFrame({"query_id": "q", "doc_id_a": list("HAAABCB"), "doc_id_b": list("BBFGCBD"), "preference": -1})
    return Judgments.from_preferences(prefs)


def test_thesis_example_figure_5_4():
    """§5.3: the Figure 3.2 graph on the grid C A y F / B x D z, Euclidean order."""
    judgments = thesis_graph()
    grid = Grid.from_ranking(ranking_of(list("CAyFBxDz")), 4)
    key = examination_key(grid, "euclidean")
    doc_key = np.full(len(judgments.doc_ids), np.inf)
    for doc, k in zip(grid.ranking.doc_ids, key, strict=True):
        doc_key[judgments.doc_ids == doc] = k
    assert judgments.doc_ids[ideal_order(judgments, doc_key, np.array([0]))].tolist() == list("AHCBDFG")
    # linear list C, A, B, x, y, D, F, z (A before B: ahead in the ideal); the thesis sums to 3.249 at depth 7
    value = grid_pgc(judgments, grid, np.array([0]), "euclidean", p=0.95, depth=7)[0]
    assert value == rbo(list("AHCBDFG"), list("CABxyDFz"), 0.95, depth=7)
    assert value * (1 - 0.95**7) / (1 - 0.95) == pytest.approx(3.249, abs=5e-4)


@pytest.mark.parametrize("seed", range(10))
def test_left_right_grid_is_the_ranking(seed):
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(15)]
    prefs = pd.DataFrame(
        {"query_id": "q", "doc_id_a": rng.choice(docs, 40), "doc_id_b": rng.choice(docs, 40), "preference": -1}
    )
    judgments = Judgments.from_preferences(prefs)
    ranking = ranking_of(list(rng.permutation(docs + ["x", "y"])[: int(rng.integers(1, 17))]))
    rank = ranking.rank_of(judgments.query_ids[judgments.doc_query], judgments.doc_ids)
    for cols in (1, 3, 5):
        grid = Grid.from_ranking(ranking, cols)
        assert grid_pgc(judgments, grid, np.array([0]), "left_right")[0] == pgc(judgments, rank, np.array([0]))[0]
        bottom_top = grid_pgc(judgments, grid, np.array([0]), "bottom_top")[0]
        reversed_rank = ranking_of(ranking.doc_ids[::-1].tolist())
        reversed_doc_rank = reversed_rank.rank_of(judgments.query_ids[judgments.doc_query], judgments.doc_ids)
        assert bottom_top == pgc(judgments, reversed_doc_rank, np.array([0]))[0]


def test_grid_measure_in_ir_measures():
    judgments = thesis_graph()
    run = pd.DataFrame({"query_id": "q", "doc_id": list("CAyFBxDz"), "score": -np.arange(8.0)})
    measures = [PGC(cols=4, order=order) for order in ORDERS]
    got = {m.measure: m.value for m in ir_measures.iter_calc(measures, judgments, run)}
    grid = Grid.from_ranking(ranking_of(list("CAyFBxDz")), 4)
    for measure in measures:
        assert got[measure] == grid_pgc(judgments, grid, np.array([0]), measure["order"])[0]
    assert got[PGC(cols=4)] == got[PGC(cols=4, order="middle")]


def test_image_pair_reader_rejects_bad_tags(tmp_path):
    path = tmp_path / "pairs"
    path.write_text("Query\tpair\ttags\nq\tb/q_0.jpg,b/q_1.jpg\t-2\t0\t1\n")
    frame = read_image_pairs(path)
    assert frame["preference"].tolist() == [-1, 0, 1] and frame["line"].tolist() == [2, 2, 2]
    path.write_text("Query\tpair\ttags\nq\tb/q_0.jpg,b/q_1.jpg\t-2\t3\t1\n")
    with pytest.raises(InputError, match="image-pair"):
        read_image_pairs(path)


@cache
def xie() -> tuple[Judgments, pd.DataFrame]:
    pairs = read_image_pairs(testdata_path("xie2020_image_prefs", "image_pairs_annotation"))
    positions = read_image_positions(testdata_path("xie2020_image_prefs", "Image_position.json"))
    return Judgments.from_preferences(pairs.drop(columns="line")), positions


def test_xie_data_both_engines_every_order():
    judgments, positions = xie()
    assert len(judgments) == 102 and len(judgments.doc_ids) == 2919
    assert set(positions["doc_id"]) == set(judgments.doc_ids)
    scores = {}
    for engine in ("sogou", "baidu"):
        grid = Grid.from_positions(positions[positions["engine"] == engine])
        queries = np.searchsorted(judgments.query_ids, grid.ranking.query_ids)
        assert len(queries) == 102
        for order in ORDERS:
            scores[engine, order] = grid_pgc(judgments, grid, queries, order)
            assert ((scores[engine, order] > 0) & (scores[engine, order] < 1)).all()
    for order in ORDERS:
        # thesis §5.4.4: Greedy PGC prefers Baidu's grid on most queries (75-84% of the untied ones)
        assert (scores["baidu", order] > scores["sogou", order]).mean() > 0.7
    np.testing.assert_array_equal(scores["baidu", "weighted"], scores["baidu", "left_right"])
