"""Tie-aware RBO between runs (:mod:`ir_pref_measures.comparison.rbo`, ``ir-pref-measures rbo``): per query it is
the single-pair RBO of the two score lists; missing queries, depth cuts, bad options, the command's table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_pref_measures.commands import main
from ir_pref_measures.comparison.rbo import rbo_runs
from ir_pref_measures.errors import InputError
from ir_pref_measures.measures.tied_rbo import SCORES, rbo_of_scores

RUN_A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 2.0, "d4": 1.0}, "q2": {"d1": 1.0}, "q3": {"x": 1.0, "y": 1.0}}
RUN_B = {"q1": {"d3": 9.0, "d5": 9.0, "d1": 7.0, "d2": 0.5}, "q2": {"d2": 4.0, "d1": 3.0}, "q4": {"z": 0.0}}


def by_scores(run_a, run_b, query, **options):
    a, b = run_a.get(query, {}), run_b.get(query, {})
    return rbo_of_scores(a.keys(), a.values(), b.keys(), b.values(), **options)


@pytest.mark.parametrize("ties", ["w", "a", "b"])
@pytest.mark.parametrize("depth", [None, 1, 2, 3])
def test_each_query_is_the_rbo_of_its_score_lists(ties, depth):
    table = rbo_runs(RUN_A, RUN_B, p=0.8, ties=ties, depth=depth)
    assert table["query_id"].tolist() == ["q1", "q2", "q3", "q4", "all"]
    for row in table.iloc[:-1].itertuples():
        expected = by_scores(RUN_A, RUN_B, row.query_id, p=0.8, ties=ties, depth=depth)
        for score in SCORES:
            assert getattr(row, score) == pytest.approx(expected[score], abs=1e-15)
    assert table.iloc[-1][list(SCORES)].tolist() == pytest.approx(table.iloc[:-1][list(SCORES)].mean().tolist())
    missing = table.set_index("query_id").loc[["q3", "q4"]]  # a query one run lacks: nothing seen agrees
    assert (missing["min"] == 0).all() and (missing["ext"] == 0).all() and (missing["max"] > 0).all()
    assert missing.loc["q4", "max"] == pytest.approx(1.0)  # without ties, anything may follow


def test_real_runs_with_ties(data):
    """CAsT 2019 runs, whose scores tie: per query, the single-pair RBO of the run files' score lists."""
    folder = data("cast2019_runs_decaf")
    frames = [
        pd.read_csv(folder / f"decaf_exp{k}.run.gz", sep=r"\s+", header=None, dtype={0: str, 2: str}) for k in (1, 7)
    ]
    runs = [
        {q: dict(zip(g[2], g[4], strict=True)) for q, g in frame.groupby(0) if q in {"31_1", "31_2", "32_5", "40_3"}}
        for frame in frames
    ]
    assert any(len(set(docs.values())) < len(docs) for run in runs for docs in run.values())  # ties are present
    table = rbo_runs(folder / "decaf_exp1.run.gz", folder / "decaf_exp7.run.gz", p=0.95, ties="b", depth=200)
    table = table.set_index("query_id")
    for query in runs[0]:
        expected = by_scores(*runs, query, p=0.95, ties="b", depth=200)
        for score in SCORES:
            assert table.loc[query, score] == pytest.approx(expected[score], abs=1e-12)


@pytest.mark.parametrize(
    ("options", "message"),
    [({"p": 1.0}, "p=1.0"), ({"ties": "x"}, "ties='x'"), ({"depth": 0}, "depth=0")],
)
def test_bad_options(options, message):
    with pytest.raises(InputError, match=message):
        rbo_runs(RUN_A, RUN_B, **options)


def test_command_prints_the_table(tmp_path, capsys):
    paths = []
    for name, run in (("a", RUN_A), ("b", RUN_B)):
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n" for q, docs in run.items() for d, s in docs.items()))
        paths.append(str(path))
    assert main(["rbo", "-q", "-p", "0.8", "--ties", "w", *paths]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "query_id\text\tmin\tmax\tres"
    expected = rbo_runs(RUN_A, RUN_B, p=0.8, ties="w")
    assert [line.split("\t")[0] for line in lines[1:]] == expected["query_id"].tolist()
    assert [float(v) for v in lines[1].split("\t")[1:]] == pytest.approx(
        expected.iloc[0][list(SCORES)].tolist(), abs=1e-6
    )
    assert main(["rbo", paths[0], str(tmp_path / "missing.run")]) == 2
    assert "missing.run" in capsys.readouterr().err


def test_compare_offers_rbo_between_the_runs():
    """In ``compare``, rbo measures are the runs' tie-aware RBO on each judged query; ``all`` is their mean."""
    from ir_pref_measures.comparison import compare
    from ir_pref_measures.measures.names import pairwise_measures

    qrels = {"q1": {"d1": 1, "d9": 0}, "q2": {"d2": 2}, "q4": {"z": 1}}
    names = ["rbo", "rbo_b_min@0.8", "rbo_w_res@0.5,2", "rpp"]
    table = compare({"a": RUN_A, "b": RUN_B}, qrels, names, perquery=True).set_index("query_id")
    for query in ("q1", "q2", "q4"):
        assert table.loc[query, "rbo"] == by_scores(RUN_A, RUN_B, query, p=0.9, ties="a")["ext"]
        assert table.loc[query, "rbo_b_min@0.8"] == by_scores(RUN_A, RUN_B, query, p=0.8, ties="b")["min"]
        expected = by_scores(RUN_A, RUN_B, query, p=0.5, ties="w", depth=2)["res"]
        assert table.loc[query, "rbo_w_res@0.5,2"] == pytest.approx(expected, abs=1e-15)
    assert table.loc["all", "rbo"] == pytest.approx(table.loc[["q1", "q2", "q4"], "rbo"].mean())
    (measure,) = pairwise_measures("rbo_b_max@0.95,100")
    assert (measure.family, measure.ties, measure.score, measure.persistence, measure.depth) == (
        "rbo",
        "b",
        "max",
        0.95,
        100,
    )
    for bad in ("rbo@1.5", "rbo_c", "rbo@0.9,0", "rbo_ext_a"):
        with pytest.raises(InputError, match="unknown measure"):
            pairwise_measures(bad)


def test_compatibility_with_ties_is_compatibility_where_nothing_ties(tmp_path):
    """With distinct scores and distinct grades, Compatibility with ties (any variant) is Clarke's Compatibility;
    with ties it differs, and the reference form stays the default."""
    from ir_pref_measures.dropins.compatibility import compatibility_report

    rng = np.random.default_rng(7)
    qrels, run, tied = tmp_path / "qrels", tmp_path / "run", tmp_path / "tied"
    qrels_lines, run_lines, tied_lines = [], [], []
    for q in range(5):
        docs = rng.permutation(60)
        for grade, doc in enumerate(docs[:12], start=1):  # distinct grades, a few docs never retrieved
            qrels_lines.append(f"t{q} 0 d{doc} {grade}\n")
        qrels_lines.append(f"t{q} 0 d{docs[12]} 0\n")
        for rank, doc in enumerate(rng.permutation(55)):
            run_lines.append(f"t{q} Q0 d{doc} {rank} {100 - rank * 1.5} r\n")
            tied_lines.append(f"t{q} Q0 d{doc} {rank} {100 - rank // 4} r\n")
    qrels.write_text("".join(qrels_lines))
    run.write_text("".join(run_lines))
    tied.write_text("".join(tied_lines))

    def values(path, **options):
        lines = compatibility_report(qrels, path, 0.9, **options).splitlines()[1:]
        return np.array([float(line.split(",")[2]) for line in lines])

    reference = values(run)
    for ties in ("w", "a", "b"):
        assert values(run, ties=ties) == pytest.approx(reference, abs=1e-12)
        assert values(run, ties=ties, normalize=False) == pytest.approx(values(run, normalize=False), abs=1e-12)
    assert not np.allclose(values(tied, ties="a"), values(tied))
    assert np.all(values(tied, ties="a") <= 1 + 1e-12)


@st.composite
def two_runs(draw):
    """Two runs as dicts: a few queries (some in one run only), docs from a small pool, scores with ties."""
    runs = []
    for _ in range(2):
        run = {}
        for query in draw(st.lists(st.sampled_from(["q1", "q2", "q3", "q4"]), unique=True, min_size=1)):
            docs = draw(st.lists(st.sampled_from([f"d{k}" for k in range(12)]), unique=True, min_size=1))
            run[query] = {doc: float(draw(st.integers(0, 4))) for doc in docs}
        runs.append(run)
    return runs


@settings(max_examples=60, deadline=None)
@given(two_runs(), st.floats(0.1, 0.95), st.sampled_from(["w", "a", "b"]), st.sampled_from([None, 1, 3, 20]))
def test_runs_equal_pairs_on_random_tied_runs(runs, p, ties, depth):
    table = rbo_runs(*runs, p=p, ties=ties, depth=depth).set_index("query_id")
    assert list(table.index[:-1]) == sorted(set(runs[0]) | set(runs[1]))
    for query in table.index[:-1]:
        expected = by_scores(*runs, query, p=p, ties=ties, depth=depth)
        for score in SCORES:
            assert table.loc[query, score] == pytest.approx(expected[score], abs=1e-13)
