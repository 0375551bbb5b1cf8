"""The input layer: one decision "file or ir_datasets ID?", one converter for every table form."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

import ir_pref_measures as ipm
from ir_pref_measures.errors import InputError
from ir_pref_measures.loading import sources

DL19 = "msmarco-passage/trec-dl-2019/judged"


def test_what_a_string_names(tmp_path, irds_home):
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 1\n")
    assert sources.resolve(str(path)) == sources.Location(path=str(path))
    assert sources.resolve(f"pairs:{path}") == sources.Location(path=str(path), format="pairs")
    assert sources.resolve(f"irds:{DL19}") == sources.Location(dataset=DL19)
    assert sources.resolve(DL19) == sources.Location(dataset=DL19)
    with pytest.raises(InputError, match="neither an existing file nor a known ir_datasets ID"):
        sources.resolve(str(tmp_path / "missing.txt"))
    with pytest.raises(InputError, match="unknown ir_datasets ID"):
        sources.resolve("irds:no/such/dataset")


def test_a_format_prefix_wins_over_detection(tmp_path):
    path = tmp_path / "prefs"
    path.write_text("q1 1 2 1\nq1 2 1 1\n")  # fits carterette and winner
    with pytest.raises(InputError, match="ambiguous"):
        sources.judgments(str(path))
    as_winner = sources.judgments(f"winner:{path}")
    as_carterette = sources.judgments(str(path), format="carterette")
    assert len(as_winner.edge_src) == len(as_carterette.edge_src) == 2
    assert sources.judgments(str(path), preference_format="winner").frame().equals(as_winner.frame())


def test_every_table_form_gives_the_same_judgments():
    rows = [("q1", "a", 2), ("q1", "b", 0), ("q2", "a", 1)]
    Qrel = namedtuple("Qrel", "query_id doc_id relevance")
    frames = [
        sources.judgments(pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])).frame(),
        sources.judgments(pd.DataFrame(rows, columns=["qid", "docno", "label"])).frame(),  # PyTerrier's names
        sources.judgments({"q1": {"a": 2, "b": 0}, "q2": {"a": 1}}).frame(),
        sources.judgments([Qrel(*row) for row in rows]).frame(),
    ]
    for frame in frames[1:]:
        pd.testing.assert_frame_equal(frame, frames[0])


def test_every_run_form_gives_the_same_ranking():
    rows = [("q1", "a", 2.0), ("q1", "b", 2.0), ("q1", "c", 1.0), ("q2", "a", 0.5)]
    ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
    rankings = [
        sources.ranking(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])),
        sources.ranking(pd.DataFrame(rows, columns=["qid", "docno", "score"])),
        sources.ranking({"q1": {"a": 2.0, "b": 2.0, "c": 1.0}, "q2": {"a": 0.5}}),
        sources.ranking([ScoredDoc(*row) for row in rows]),
    ]
    for ranking in rankings:
        # ties by doc id descending: b before a
        assert ranking.doc_ids.tolist() == ["b", "a", "c", "a"]
        np.testing.assert_array_equal(ranking.offsets, [0, 3, 4])


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ({"query_id": ["q"], "doc_id": ["d"], "relevance": [np.nan]}, "grade nan is not a finite number"),
        ({"query_id": ["q"], "doc_id": ["d"], "relevance": ["high"]}, "grade 'high' is not a number"),
        ({"query_id": [None], "doc_id": ["d"], "relevance": [1]}, "query_id is missing"),
        ({"query_id": ["q"], "doc_id": ["d\x00"], "relevance": [1]}, "control character"),
        ({"query_id": ["q", "q"], "doc_id": ["d", "d"], "relevance": [1, 2]}, "judged twice"),
        ({"query_id": ["q"], "doc_id": ["d"]}, r"no column\(s\) \['relevance'\]"),
    ],
)
def test_bad_tables_are_input_errors(rows, message):
    with pytest.raises(InputError, match=message):
        ipm.load_judgments(pd.DataFrame(rows))


def test_judgment_sets(tmp_path):
    qrels, prefs = tmp_path / "qrels", tmp_path / "prefs"
    qrels.write_text("q1 0 a 2\nq1 0 b 0\n")
    prefs.write_text("q1 b a\n")
    sets = sources.judgment_sets([f"graded={qrels}", f"both={qrels}+pairs:{prefs}", f"{prefs}"])
    assert list(sets) == ["graded", "both", "judgments"]
    assert len(sets["both"].edge_src) == 1 and sets["both"].graded.sum() == 2
    with pytest.raises(InputError, match="named twice"):
        sources.judgment_sets([f"a={qrels}", f"a={prefs}"])


def test_one_table_of_records_is_told_from_a_list_of_sources():
    """A list of namedtuples of one class is one table whatever its length (the class decides, once); a list that
    mixes them with other items is not, and neither is a list of sources."""
    ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
    Point = namedtuple("Point", "x y")
    rows = [ScoredDoc("q", f"d{i}", float(i)) for i in range(1000)]
    assert sources.is_records(rows)
    assert sources.is_records(tuple(rows))
    assert not sources.is_records([Point(1, 2), Point(3, 4)])
    assert not sources.is_records([*rows, "run.txt"])
    assert not sources.is_records(["qrels.txt", "prefs.txt"])
    assert not sources.is_records([pd.DataFrame({"doc_id": ["a"]})])


def test_locations_resolve_paths_globs_formats_and_ids_once(tmp_path, irds_home):
    for name in ("b.txt", "a.txt", "c.dat"):
        (tmp_path / name).write_text("q1 0 d1 1\n")
    found = sources.locations(str(tmp_path / "*.txt"))
    assert found == [sources.Location(path=str(tmp_path / n)) for n in ("a.txt", "b.txt")]  # sorted
    assert sources.locations(f"pairs:{tmp_path / 'c.dat'}") == [
        sources.Location(path=str(tmp_path / "c.dat"), format="pairs")
    ]
    assert sources.locations(str(tmp_path / "c.dat"), "qrels") == [
        sources.Location(path=str(tmp_path / "c.dat"), format="qrels")
    ]
    assert sources.locations([str(tmp_path / "c.dat"), f"irds:{DL19}"]) == [
        sources.Location(path=str(tmp_path / "c.dat")),
        sources.Location(dataset=DL19),
    ]
    with pytest.raises(InputError, match="no file matches this pattern"):
        sources.locations(str(tmp_path / "*.qrels"))


def test_named_judgments_are_the_union_that_judgments_reads(tmp_path):
    qrels, prefs, more = tmp_path / "qrels.txt", tmp_path / "prefs.txt", tmp_path / "more.txt"
    qrels.write_text("q1 0 a 2\nq1 0 b 1\nq2 0 a 1\n")
    prefs.write_text("q1 c a\nq3 a b\n")
    more.write_text("q2 b a\n")
    specs = [str(qrels), f"{prefs}+{more}"]
    found = sources.named_judgments(specs, preference_format="pairs")
    expected = sources.combined(*specs, preference_format="pairs")
    assert found.frame().equals(expected.frame())
    assert (found.edge_src.tolist(), found.edge_dst.tolist()) == (
        expected.edge_src.tolist(),
        expected.edge_dst.tolist(),
    )
    with pytest.raises(InputError, match="no judgments"):
        sources.named_judgments([])
