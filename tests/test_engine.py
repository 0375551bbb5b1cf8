"""The columnar core (issue 11): runs matched by hashed doc ids, the tie rule without a vocabulary sort, blocks of
queries on threads, the command line without pandas, and compare on the one judgment model."""

from __future__ import annotations

import subprocess
import sys
import time
import types
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ir_pref_measures
from ir_pref_measures import engine
from ir_pref_measures.comparison.pairwise import relevant_docs
from ir_pref_measures.errors import InputError
from ir_pref_measures.loading import sources
from ir_pref_measures.model import ids, rankings
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.judgments import combine as model_combine
from ir_pref_measures.model.rankings import Ranking

DOC_IDS = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=0, max_size=20)


def direct_order(query, doc, score) -> list[tuple[str, str]]:
    """The tie rule by definition: query id ascending, score descending, doc id descending."""
    rows = sorted(zip(query, doc, score, strict=True), key=lambda r: (r[0], -r[2]))
    out = []
    for q in sorted(set(query)):
        in_query = [r for r in rows if r[0] == q]
        scores = sorted({r[2] for r in in_query}, reverse=True)
        for s in scores:
            out += [(q, d) for d in sorted((r[1] for r in in_query if r[2] == s), reverse=True)]
    return out


@st.composite
def runs(draw):
    n_queries = draw(st.integers(1, 4))
    rows = []
    for q in range(n_queries):
        docs = draw(st.lists(DOC_IDS, min_size=1, max_size=12, unique=True))
        scores = draw(st.lists(st.sampled_from([0.0, 1.0, 1.5, 2.0]), min_size=len(docs), max_size=len(docs)))
        rows += [(f"q{q}", d, s) for d, s in zip(docs, scores, strict=True)]
    layout = draw(st.sampled_from(["as drawn", "shuffled", "scores descending"]))
    if layout == "shuffled":
        order = draw(st.permutations(range(len(rows))))
        rows = [rows[i] for i in order]
    if layout == "scores descending":  # as most run files: ties in any order, the query blocks in any order
        blocks = draw(st.permutations([f"q{q}" for q in range(n_queries)]))
        rows = sorted(rows, key=lambda r: (blocks.index(r[0]), -r[2]))
    return rows


@settings(max_examples=150, deadline=None)
@given(runs())
def test_ranking_follows_the_tie_rule_and_finds_every_doc(rows):
    query, doc, score = (list(c) for c in zip(*rows, strict=True))
    ranking = Ranking.from_frame(pd.DataFrame({"query_id": query, "doc_id": doc, "score": score}))
    entry_query = np.repeat(ranking.query_ids, np.diff(ranking.offsets)).tolist()
    got = list(zip(entry_query, ranking.doc_ids.tolist(), strict=True))
    assert got == direct_order(query, doc, score)
    rank = {pair: r for pair, r in zip(got, ranking.ranks.tolist(), strict=True)}
    wanted = [(q, d) for q, d in got] + [(q, d + "x") for q, d in got] + [("nope", doc[0])]
    found = ranking.rank_of(
        np.array([w[0] for w in wanted], dtype=object), np.array([w[1] for w in wanted], dtype=object)
    )
    assert found.tolist() == [float(rank.get(w, np.inf)) for w in wanted]


SCORES = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 5e-324, -5e-324, 1e308, -1e308]),
    st.floats(allow_nan=False, allow_infinity=False),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]), DOC_IDS, SCORES), min_size=1, max_size=40), st.data())
def test_any_order_of_any_scores_follows_the_tie_rule(rows, data):
    """Shuffled runs of any finite scores (negative ones, ``-0.0`` equal to ``0.0``, the smallest and largest):
    the sort on the scores' bits gives the tie rule's order."""
    rows = list({(q, d): (q, d, s) for q, d, s in rows}.values())  # each doc once per query
    rows = [rows[i] for i in data.draw(st.permutations(range(len(rows))))]
    query, doc, score = (list(c) for c in zip(*rows, strict=True))
    ranking = Ranking.from_frame(pd.DataFrame({"query_id": query, "doc_id": doc, "score": score}))
    entry_query = np.repeat(ranking.query_ids, np.diff(ranking.offsets)).tolist()
    assert list(zip(entry_query, ranking.doc_ids.tolist(), strict=True)) == direct_order(query, doc, score)


def test_the_tie_rule_with_more_queries_than_a_radix_sort_takes():
    """2**15 + 2 queries (codes sorted as int32): each query's docs by score descending, then doc id descending."""
    n = 2**15 + 2
    rng = np.random.default_rng(7)
    query = [f"q{i:06d}" for i in range(n) for _ in range(2)]
    doc = ["a", "b"] * n
    score = rng.integers(0, 2, 2 * n).astype(float).tolist()
    order = rng.permutation(2 * n)
    frame = pd.DataFrame({"query_id": query, "doc_id": doc, "score": score}).iloc[order]
    ranking = Ranking.from_frame(frame)
    expected = [d for i in range(n) for d in (("a", "b") if score[2 * i] > score[2 * i + 1] else ("b", "a"))]
    assert ranking.doc_ids.tolist() == expected
    assert ranking.query_ids.tolist() == [f"q{i:06d}" for i in range(n)]


def test_hash_collisions_are_resolved_by_comparing_the_ids(monkeypatch):
    """Every id hashed alike: lookups and the repeated-doc check still compare the ids themselves."""
    monkeypatch.setattr(rankings, "string_hashes", lambda values: np.zeros(len(ids.as_text(values)), np.uint64))
    frame = pd.DataFrame({"query_id": ["q"] * 4 + ["r"], "doc_id": ["a", "b", "c", "d", "a"], "score": [4, 3, 2, 1, 1]})
    ranking = Ranking.from_frame(frame)
    wanted = np.array(["a", "b", "c", "d", "e", "a", "b"], dtype=object)
    queries = np.array(["q"] * 5 + ["r"] * 2, dtype=object)
    assert ranking.rank_of(queries, wanted).tolist() == [1, 2, 3, 4, np.inf, 1, np.inf]
    repeated = frame.assign(doc_id=["a", "b", "a", "d", "a"])
    with pytest.raises(InputError, match="'a' is listed twice in query 'q'"):
        Ranking.from_frame(repeated)


def test_string_hashes_depend_on_the_bytes_only():
    values = ["", "a", "a ", "abcdefgh", "abcdefgh ", "é", "日本語の文書", "a"]
    hashes = ids.string_hashes(np.array(values, dtype=object))
    assert hashes[1] == hashes[7]
    assert len(set(hashes.tolist())) == len(set(values))
    sliced = pa.array(["x", *values]).slice(1)  # an offset into the Arrow buffers
    assert ids.string_hashes(sliced).tolist() == hashes.tolist()
    assert ids.string_hashes(pa.array(values, pa.large_string())).tolist() == hashes.tolist()


def _splitmix_finaliser(z: int) -> int:
    mask = (1 << 64) - 1
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def _direct_hash(value: str) -> int:
    """The documented hash, one id at a time: its byte length, then its bytes in space-padded 8-byte words."""
    data = value.encode()
    h = _splitmix_finaliser((len(data) + 0x9E3779B97F4A7C15) & ((1 << 64) - 1))
    padded = data + b" " * (-len(data) % 8)
    for lo in range(0, len(padded), 8):
        h = _splitmix_finaliser(h ^ int.from_bytes(padded[lo : lo + 8], "little"))
    return h


@pytest.mark.parametrize("rows", [3, 1 << 15])
def test_string_hashes_follow_their_definition(monkeypatch, rows):
    """The vectorised hash (in slices of ``rows`` ids, ASCII or not) equals the definition computed id by id."""
    monkeypatch.setattr(ids, "_HASH_ROWS", rows)
    rng = np.random.default_rng(5)
    alphabet = list("abcXYZ019 _-") + ["é", "日"]
    values = ["".join(rng.choice(alphabet, size=rng.integers(0, 30))) for _ in range(200)]
    ascii_only = [v.encode("ascii", "ignore").decode() for v in values]
    for sample in (values, ascii_only):
        assert ids.string_hashes(np.array(sample, dtype=object)).tolist() == [_direct_hash(v) for v in sample]


def test_blocks_of_queries_on_threads_give_the_values_of_one_block(monkeypatch):
    rng = np.random.default_rng(11)
    qrels = pd.DataFrame(
        {
            "query_id": np.repeat([f"q{i:03d}" for i in range(60)], 30),
            "doc_id": [f"d{i}" for i in range(1800)],
            "relevance": rng.integers(0, 4, 1800),
        }
    )
    run = qrels.assign(score=rng.normal(size=1800).round(1)).drop(columns="relevance")
    judgments = ir_pref_measures.load_judgments(qrels)
    ranking = ir_pref_measures.as_ranking(run)
    measures = [ir_pref_measures.ppref @ 5, ir_pref_measures.APpref, ir_pref_measures.PGC, ir_pref_measures.nwppref @ 5]
    measures += [ir_pref_measures.prefs_avgjg, ir_pref_measures.Compatibility]
    queries = np.arange(len(judgments))
    ranks = engine.judged_ranks(ranking, judgments)
    monkeypatch.setattr(engine, "BLOCK_DOCS", 10**9)
    whole = engine.evaluate_blocks(measures, judgments, ranking, queries, ranks)
    monkeypatch.setattr(engine, "BLOCK_DOCS", 100)
    assert len(engine.query_blocks(judgments, queries)) > 10
    for n_jobs in (1, 3):
        engine.set_n_jobs(n_jobs)
        try:
            blocked = engine.evaluate_blocks(measures, judgments, ranking, queries, ranks)
        finally:
            engine.set_n_jobs(None)
        for a, b in zip(whole, blocked, strict=True):
            np.testing.assert_array_equal(a, b)
    with pytest.raises(InputError, match="n_jobs"):
        ir_pref_measures.set_n_jobs(0)


PREFERENCE_FILES = {  # format -> lines: b over c in q1, a over b in q2
    "pairs": "q1 b c\nq2 a b\n",
    "winner": "q1 b c b\nq2 b a a\n",
    "carterette": "q1 b c -1\nq2 b a 1\nq2 c NA -2\n",
}


@pytest.mark.parametrize("prefs", [None, *PREFERENCE_FILES])
def test_eval_of_files_imports_no_pandas(tmp_path, prefs):
    (tmp_path / "qrels.txt").write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 a 1\nq2 0 b 0\n")
    (tmp_path / "run.txt").write_text("q1 Q0 b 1 3.0 r\nq1 Q0 a 2 2.0 r\nq1 Q0 c 3 1.0 r\nq2 Q0 a 1 1.0 r\n")
    options = []
    if prefs:
        (tmp_path / "prefs.txt").write_text(PREFERENCE_FILES[prefs])
        options = ["--prefs", "prefs.txt", "--prefs-format", prefs]
    code = (
        "import sys\nfrom ir_pref_measures.commands import main\n"
        f"main(['eval', 'qrels.txt', 'run.txt', 'ppref@2', 'APpref', 'PGC', '--n-jobs', '2', *{options}])\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'statsmodels', 'matplotlib', 'tqdm'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]"
    assert done.stdout.splitlines()[0].startswith("ppref@2\t")


def test_compare_reads_the_one_judgment_model_with_its_rule_for_repeated_grades():
    qrels = pd.DataFrame(
        {"query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["a", "a", "b", "c", "d"], "relevance": [1, 3, 0, 0, 2]}
    )
    with pytest.raises(InputError, match="judged twice"):
        Judgments.from_qrels(qrels)
    judgments = Judgments.from_qrels(qrels, repeated="max")
    relevant = relevant_docs(judgments)
    assert relevant.query_ids.tolist() == ["q1", "q2"]
    assert relevant.doc_ids.tolist() == ["a", "d"] and relevant.grades.tolist() == [3.0, 2.0]
    assert relevant_docs(judgments, query_order=["q2", "q1"]).query_ids.tolist() == ["q2", "q1"]
    assert relevant_docs(judgments, binary=3).doc_ids.tolist() == ["a"]
    runs = {
        "x": pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "d"], "score": [1.0, 1.0]}),
        "y": pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "score": [1.0, 1.0]}),
    }
    table = ir_pref_measures.compare(runs, qrels, ["rpp", "ap"])
    assert table["ap"].tolist() == [1.0]


def test_reading_a_file_does_not_touch_a_half_imported_pandas(monkeypatch, tmp_path):
    """``eval`` reads the run on a thread while the judgments may be importing pandas on another: the run's
    reader must not look into the half-initialised module (it once raised AttributeError there)."""
    monkeypatch.setitem(sys.modules, "pandas", types.ModuleType("pandas"))  # no Series, no DataFrame yet
    path = tmp_path / "run"
    path.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n")
    assert not sources.is_frame(str(path))
    assert sources.ranking(str(path)).doc_text.to_pylist() == ["d1", "d2"]


def test_judgments_restricted_to_some_queries_give_those_queries_their_values():
    """``Judgments.restrict`` (a partition of queries, as the Dask adapter sends each worker): every measure of a
    kept query is what the whole judgments give it; groups are restricted too."""
    import ir_measures

    from ir_pref_measures.model.judgments import combine

    rng = np.random.default_rng(2)
    queries = [f"q{i}" for i in range(6)]
    qrels = pd.DataFrame(
        {
            "query_id": np.repeat(queries, 8),
            "doc_id": [f"d{i}" for i in range(48)],
            "relevance": rng.integers(0, 4, 48),
        }
    )
    a, b = rng.integers(0, 8, (2, 30)) + 8 * rng.integers(0, 6, 30)
    keep = a != b
    prefs = pd.DataFrame(
        {
            "query_id": np.asarray(queries)[a[keep] // 8],
            "doc_id_a": [f"d{i}" for i in a[keep]],
            "doc_id_b": [f"d{i}" for i in (a[keep] // 8) * 8 + b[keep] % 8],
            "preference": rng.choice([-1, 1, 0, -2], keep.sum()),
        }
    )
    prefs = prefs[prefs["doc_id_a"] != prefs["doc_id_b"]]
    prefs.loc[prefs["preference"] == -2, "doc_id_b"] = "NA"  # a bad doc: b is NA
    judgments = combine(Judgments.from_qrels(qrels, group="graded"), Judgments.from_preferences(prefs, group="judge"))
    run = qrels.assign(score=rng.random(48))[["query_id", "doc_id", "score"]]
    measures = [ir_measures.parse_measure(m) for m in ("ppref@5", "APpref", "PGC", "Compatibility")]
    kept = ["q1", "q4", "q5", "unjudged"]
    part = judgments.restrict(kept)
    assert part.query_ids.tolist() == ["q1", "q4", "q5"] and part.groups == judgments.groups
    whole = {(m.query_id, str(m.measure)): m.value for m in engine.evaluate(measures, run, judgments=judgments)}
    restricted = {(m.query_id, str(m.measure)): m.value for m in engine.evaluate(measures, run, judgments=part)}
    assert restricted == {key: value for key, value in whole.items() if key[0] in kept}
    for name in judgments.groups:
        one = judgments.group(name)
        expected = {k: v for k, v in _values(measures, run, one).items() if k[0] in kept}
        assert _values(measures, run, part.group(name)) == expected


def _values(measures, run, judgments) -> dict:
    return {(m.query_id, str(m.measure)): m.value for m in engine.evaluate(measures, run, judgments=judgments)}


def test_compare_reports_bad_qrels_first_and_reads_no_further_run(tmp_path, monkeypatch):
    """The qrels are read while the first runs are: a bad qrels file is still the error reported, even when a run
    is bad too, and the runs not yet started are not read."""
    compare_module = sys.modules["ir_pref_measures.comparison.pairwise"]  # the package's name "compare" is the function

    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq1 0 b\n")  # line 2: a field missing
    runs = {f"r{i}": tmp_path / f"r{i}" for i in range(8)}
    for path in runs.values():
        path.write_text("q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\n")
    runs["r0"].write_text("q1 Q0 a 1 2.0\n")  # a bad run as well
    read = []

    def slow_ranking(source):
        read.append(source)
        time.sleep(0.05)
        return sources.ranking(source)

    monkeypatch.setattr(compare_module, "as_ranking", slow_ranking)
    with pytest.raises(InputError, match=r"qrels\.txt:2"):
        ir_pref_measures.compare(runs, str(tmp_path / "qrels.txt"), ["rpp"])
    assert len(read) <= compare_module.READERS


def test_compare_comparison_takes_the_relevant_docs_or_a_function_reading_them():
    from ir_pref_measures.comparison.pairwise import comparison
    from ir_pref_measures.measures.names import pairwise_measures

    judgments = Judgments.from_qrels(
        pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [2, 0, 1]})
    )
    runs = {"x": pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})}
    runs["y"] = runs["x"].assign(score=[1.0, 2.0, 1.0])
    measures = pairwise_measures(["rpp", "lexiprecision", "ap"])
    given = comparison(runs, relevant_docs(judgments), measures)
    read = comparison(runs, lambda: relevant_docs(judgments), measures)
    assert given.query_ids.tolist() == read.query_ids.tolist() == ["q1", "q2"]
    for name in ("rpp", "lexiprecision", "ap"):
        assert given.pair_values[name].tolist() == read.pair_values[name].tolist()
    assert given.pair_values["ap"].tolist() == [[1.0 - 0.5, 0.0]]  # x ranks a first, y second


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_ir_measures_measures_read_the_graded_docs_of_combined_judgments(seed):
    """On judgments that combine qrels and preferences (one query judged by preferences alone), ir_measures' own
    measures read the graded docs only, on the queries that have one: the values ir_measures itself computes on the
    qrels; ours read everything, every judged query."""
    import ir_measures

    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(8)]
    qrels = pd.DataFrame(
        {"query_id": ["q1"] * 5 + ["q2"] * 4, "doc_id": docs[:5] + docs[2:6], "relevance": rng.integers(0, 4, 9)}
    )
    prefs = pd.DataFrame(
        {"query_id": ["q2", "q3", "q3"], "doc_id_a": ["d6", "d1", "d2"], "doc_id_b": ["d7", "d2", "d3"]}
    ).assign(preference=-1)
    combined = model_combine(Judgments.from_qrels(qrels), Judgments.from_preferences(prefs))
    run = pd.DataFrame(
        {"query_id": np.repeat(["q1", "q2", "q3"], 8), "doc_id": docs * 3, "score": rng.normal(size=24).round(1)}
    )
    theirs = [ir_measures.parse_measure(m) for m in ("nDCG@5", "AP", "P@3", "Bpref", "infAP")]
    got = engine.evaluate([*theirs, ir_pref_measures.ppref @ 5], run, judgments=combined)
    ranked = engine.ranked_frame(sources.ranking(run))
    expected = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(theirs, qrels, ranked)}
    found = {(m.query_id, str(m.measure)): m.value for m in got if str(m.measure) != "ppref@5"}
    assert found.keys() == expected.keys()  # no value of theirs for q3
    for key, value in expected.items():
        assert found[key] == pytest.approx(value, abs=1e-12)
    assert {m.query_id for m in got if str(m.measure) == "ppref@5"} == {"q1", "q2", "q3"}


def _graded_inputs(seed: int, share: float) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    """Seeded qrels (up to 40 docs of 4 queries, grades 0-3), a run of ``share`` of their docs in random order with
    scores of one decimal (ties), and measures of both kinds (ours, and ir_measures' that trec_eval defines)."""
    import ir_measures

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    qrels = pd.DataFrame(
        {
            "query_id": rng.choice(["q1", "q2", "q3", "q4"], n),
            "doc_id": [f"d{i}" for i in range(n)],
            "relevance": rng.integers(0, 4, n),
        }
    )
    run = qrels.sample(frac=share, random_state=int(rng.integers(0, 2**31))).drop(columns="relevance")
    run = run.assign(score=rng.normal(size=len(run)).round(1))
    measures = [ir_pref_measures.ppref @ 5, ir_pref_measures.APpref, ir_pref_measures.PGC]
    measures += [ir_measures.parse_measure(m) for m in ("nDCG@5", "P@3", "Bpref")]
    return qrels, run, measures


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_run_metrics_on_inputs_read_already_are_those_of_evaluate_on_the_sources(seed):
    """``eval`` reads its inputs once and hands the engine a Ranking and Judgments: the same metrics, in the same
    order, as :func:`evaluate` reading the sources itself; the same refusal of grades pytrec_eval cannot take."""
    qrels, run, measures = _graded_inputs(seed, 1.0)
    expected = engine.evaluate(measures, run, judgments=qrels)
    got = engine.run_metrics(measures, sources.ranking(run), sources.judgments(qrels))
    assert [(m.query_id, str(m.measure), m.value) for m in got] == [
        (m.query_id, str(m.measure), m.value) for m in expected
    ]
    halves = qrels.assign(relevance=qrels["relevance"] + 0.5)
    with pytest.raises(InputError) as direct:
        engine.evaluate(measures, run, judgments=halves)
    with pytest.raises(InputError) as read:
        engine.run_metrics(measures, sources.ranking(run), sources.judgments(halves))
    assert str(read.value) == str(direct.value)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_checked_metrics_with_the_ranks_of_the_checks_are_those_of_run_metrics(seed):
    """``eval`` checks its inputs once (``check_run``) and hands the engine the judged docs' ranks those checks
    looked up: the same metrics, in the same order, as :func:`run_metrics` looking them up itself."""
    from ir_pref_measures.model.checks import check_run

    qrels, run, measures = _graded_inputs(seed, 0.7)
    run = pd.concat([run, pd.DataFrame({"query_id": ["q1"], "doc_id": ["unjudged"], "score": [0.0]})])
    ranking, judgments = sources.ranking(run), sources.judgments(qrels)
    expected = engine.run_metrics(measures, ranking, judgments)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a run that misses most judged queries is warned of, as eval warns
        ranks = check_run(ranking, judgments, "run", measures[3:])
    got = engine.checked_metrics(measures, ranking, judgments, ranks)
    assert [(m.query_id, str(m.measure), m.value) for m in got] == [
        (m.query_id, str(m.measure), m.value) for m in expected
    ]
