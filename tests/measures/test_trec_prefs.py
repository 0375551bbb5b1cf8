"""trec_eval's 14 preference measures as ir_measures measures, judgment groups, and the one measure catalog."""

from __future__ import annotations

import re
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, TIERS, data_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles.trec_prefs import DOCS, cyclic_lines, query_values

import ir_pref_measures as ipm
from ir_pref_measures.commands import main
from ir_pref_measures.dropins.trec_eval import prefs_values
from ir_pref_measures.errors import InputError
from ir_pref_measures.loading.groups import read_judgments
from ir_pref_measures.measures.catalog import SPECS, update_tables
from ir_pref_measures.measures.trec_prefs import COUNT_MEASURES
from ir_pref_measures.measures.trec_prefs import MEASURES as TREC_MEASURES
from ir_pref_measures.model.judgments import Judgments, combine

TREC_PREFS = [ir_measures.parse_measure(name) for name in TREC_MEASURES]
# (tier, format, judgments, run): trec_eval's own test files, and generated cases whose trec_eval outputs the drop-in
# reproduces byte for byte (tests/data/trec_eval_prefs)
GROUP_FILES = [
    ("real", "prefs", ("prefs.test",), ("prefs.results.test",)),
    ("real", "qrels_prefs", ("qrels.test",), ("results.test",)),
    *(
        ("fixtures", "prefs", ("generated", case, "prefs.txt"), ("generated", case, "run.txt"))
        for case in ("case0", "case2")
    ),
    ("fixtures", "qrels_prefs", ("generated", "case4", "qrels.txt"), ("generated", "case4", "run.txt")),
]
DL19 = ("dl_llm_prefs_arabzadeh",)


def _per_query(measures, judgments, run) -> dict[tuple[str, str], float]:
    return {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, judgments, run)}


def _drop_in(path, fmt, run_path, complete=False) -> dict[tuple[str, str], float]:
    run = ipm.read_run(run_path)
    query_ids, values = prefs_values(read_judgments(path, fmt), run, complete=complete, depth=None)
    return {(name, q): float(values[name][i]) for name in TREC_MEASURES for i, q in enumerate(query_ids)}


@pytest.mark.parametrize(("tier", "fmt", "judgments", "run"), GROUP_FILES)
def test_per_query_values_equal_the_drop_in(tier, fmt, judgments, run):
    path, run_path = TIERS[tier]("trec_eval_prefs", *judgments), TIERS[tier]("trec_eval_prefs", *run)
    expected = _drop_in(path, fmt, run_path)
    got = _per_query(TREC_PREFS, ipm.load_judgments(f"{fmt}:{path}"), ipm.read_run(run_path))
    assert got.keys() == expected.keys()
    assert got == pytest.approx(expected, abs=1e-12)


def test_trec_eval_tie_rule_and_sum_aggregator(tmp_path):
    qrels = tmp_path / "q"
    qrels.write_text("x 0 d1 1\nx 0 d2 0\ny 0 d1 2\ny 0 d2 1\ny 0 d3 0\n")
    run = pd.DataFrame({"query_id": ["x", "x", "y"], "doc_id": ["d2", "d1", "d3"], "score": [2.0, 2.0, 1.0]})
    judgments = ipm.load_judgments(f"qrels_prefs:{qrels}")
    values = _per_query([ipm.prefs_simp, ipm.prefs_num_prefs_poss], judgments, run)
    assert values[("prefs_simp", "x")] == 1.0  # d1 before d2: docno ascending among equal scores
    total = ir_measures.calc_aggregate([ipm.prefs_num_prefs_poss, ipm.prefs_simp], judgments, run)
    assert total[ipm.prefs_num_prefs_poss] == 1 + 3  # summed over queries, as trec_eval
    assert total[ipm.prefs_simp] == pytest.approx(np.mean([values[("prefs_simp", q)] for q in "xy"]))


def test_graded_qrels_are_one_group():
    qrels = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "relevance": [2, 1, 0]})
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "c", "b"], "score": [3.0, 2.0, 1.0]})
    got = ir_measures.calc_aggregate([ipm.prefs_simp, ipm.rpref, ipm.prefs_num_prefs_poss], qrels, run)
    assert got[ipm.prefs_simp] == pytest.approx(2 / 3) == got[ipm.rpref]
    assert got[ipm.prefs_num_prefs_poss] == 3


def test_pairs_are_sub_groups_with_levels_2_and_1(tmp_path):
    """A pairs file as a group equals the prefs file that writes each pair as a jsg (levels 2 and 1)."""
    pairs = [("q", "a", "b"), ("q", "b", "c"), ("q", "a", "d"), ("r", "x", "y"), ("r", "x", "y")]
    (tmp_path / "pairs").write_text("".join(f"{q} {w} {lo}\n" for q, w, lo in pairs))
    prefs = "".join(f"{q} j {i} {w} 2\n{q} j {i} {lo} 1\n" for i, (q, w, lo) in enumerate(pairs))
    (tmp_path / "prefs").write_text(prefs)
    run_text = "q Q0 c 1 3 r\nq Q0 a 2 2 r\nq Q0 e 3 1 r\nr Q0 y 1 1 r\n"
    (tmp_path / "run").write_text(run_text)
    judgments = ipm.load_judgments(tmp_path / "pairs", format="pairs", group="j")
    assert judgments.groups == ["j"]
    got = _per_query(TREC_PREFS, judgments, ipm.read_run(tmp_path / "run"))
    assert got == pytest.approx(_drop_in(tmp_path / "prefs", "prefs", tmp_path / "run"), abs=1e-12)


# -- groups with cycles: their condensation ------------------------------------------------------------------------

CYCLE_WARNING = r"prefs_\*: (\d+) \(query, judgment group\) hold preference cycles, which trec_eval rejects"


def test_a_cycle_is_tied_and_the_rest_kept(tmp_path):
    """jg j: d1 > d2 > d3 > d1 (tied once condensed) and d1 > d4, so d1, d2, d3 > d4; jg k: d4 > d1."""
    prefs = "q j s d1 2\nq j s d2 1\nq j t d2 2\nq j t d3 1\nq j u d3 2\nq j u d1 1\nq j v d1 2\nq j v d4 1\n"
    (tmp_path / "prefs").write_text(prefs + "q k s d4 2\nq k s d1 1\n")
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["d2", "d4", "d1"], "score": [3.0, 2.0, 1.0]})
    judgments = ipm.load_judgments(f"prefs:{tmp_path / 'prefs'}")  # read, where the trec-eval drop-in refuses it
    with pytest.warns(UserWarning, match=CYCLE_WARNING) as caught:
        got = _per_query(TREC_PREFS, judgments, run)
    assert len(caught) == 1
    assert "1 (query, judgment group)" in str(caught[0].message)
    assert "The first: group 'j', query 'q', docs 'd1', 'd2', 'd3'" in str(caught[0].message)
    # j: d1 > d4 retrieved, not fulfilled; d2 > d4 fulfilled; d3 > d4 implied (d3 not retrieved), not fulfilled
    expected = {
        "prefs_num_prefs_poss": 4,  # 3 in j, 1 in k
        "prefs_num_prefs_ful": 2,
        "prefs_num_prefs_ful_ret": 2,
        "prefs_simp": 2 / 4,
        "prefs_simp_ret": 2 / 3,
        "prefs_avgjg": (1 / 3 + 1) / 2,
        "prefs_avgjg_ret": (1 / 2 + 1) / 2,
        "prefs_pair": (1 / 2 + 1 + 0) / 3,  # pairs (d1, d4): half its preferences fulfilled, (d2, d4), (d3, d4)
        "prefs_pair_ret": (1 / 2 + 1) / 2,
    }
    assert {name: got[(name, "q")] for name in expected} == pytest.approx(expected, abs=1e-15)


run_line = st.tuples(st.sampled_from(["q1", "q2", "q4"]), st.sampled_from(DOCS), st.sampled_from([0.5, 1.0, 2.0, 3.0]))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cyclic_lines(), st.lists(run_line, min_size=1, max_size=14))
def test_provider_condenses_cycles_as_the_direct_definition(lines, run_lines):
    """The provider's per-query values are the direct definition's on the condensed groups (unchanged where
    a group is consistent), and one warning says how many (query, group) were condensed."""
    judged = pd.DataFrame(lines, columns=["query_id", "jg", "jsg", "doc_id", "level"])
    run = pd.DataFrame(run_lines, columns=["query_id", "doc_id", "score"]).drop_duplicates(["query_id", "doc_id"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = _per_query(TREC_PREFS, Judgments.from_trec_prefs(judged), run)
    cyclic = 0
    for qid in sorted(set(judged["query_id"]) & set(run["query_id"])):
        mine = judged[judged["query_id"] == qid]
        scores = {d: s for q, d, s in run.itertuples(index=False) if q == qid}
        want = query_values(list(mine[["jg", "jsg", "doc_id", "level"]].itertuples(index=False)), scores)
        for name in TREC_MEASURES:
            assert got[(name, qid)] == pytest.approx(want[name], abs=0 if name in COUNT_MEASURES else 1e-12)
        cyclic += sum(_has_cycle(mine[mine["jg"] == jg]) for jg in sorted(set(mine["jg"])))
    messages = [str(w.message) for w in caught if "preference cycles" in str(w.message)]
    assert len(messages) == (cyclic > 0)
    assert all(f"prefs_*: {cyclic} (query, judgment group)" in m for m in messages)


def _has_cycle(group: pd.DataFrame) -> bool:
    """Two docs each preferred to the other in the closure of ``group``'s jsgs (a dense Warshall closure)."""
    docs = sorted(set(group["doc_id"]))
    index = {d: i for i, d in enumerate(docs)}
    reach = np.zeros((len(docs), len(docs)), bool)
    for _, jsg in group.groupby("jsg"):
        for a, la in zip(jsg["doc_id"], jsg["level"], strict=True):
            for b, lb in zip(jsg["doc_id"], jsg["level"], strict=True):
                reach[index[a], index[b]] |= la > lb
    for k in range(len(docs)):
        reach |= reach[:, [k]] & reach[[k], :]
    mutual = reach & reach.T
    np.fill_diagonal(mutual, False)
    return bool(mutual.any())


# -- judgment groups ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def judges():
    folder = data_path(*DL19, "llm_pref_judgments", "DL2019")
    paths = {f"judge.0{i}": folder / f"judge.0{i}" for i in range(7)}
    return paths, ipm.load_groups(paths, format="pairs")


@pytest.fixture(scope="module")
def dl19_run():
    return ipm.as_ranking(data_path(*DL19, "runs", "input.ICT-BERT2.txt.gz"))


def test_dl19_judges_as_groups(judges, dl19_run):
    paths, judgments = judges
    assert judgments.groups == sorted(paths)
    alone = [ipm.load_judgments(path, format="pairs") for path in paths.values()]
    union = combine(*alone)
    assert len(judgments.edge_src) == len(union.edge_src) == sum(len(j.edge_src) for j in alone)
    ppref10 = ipm.ppref @ 10
    on_union = ir_measures.calc_aggregate([ppref10], judgments, dl19_run)[ppref10]
    assert on_union == ir_measures.calc_aggregate([ppref10], union, dl19_run)[ppref10]
    for name, part in zip(paths, alone, strict=True):
        mine = ir_measures.calc_aggregate([ppref10], judgments.group(name), dl19_run)[ppref10]
        assert mine == ir_measures.calc_aggregate([ppref10], part, dl19_run)[ppref10]


def _condensed(caught) -> int:
    """The number of condensed (query, group) that the one cycle warning among ``caught`` reports (0: none)."""
    found = [re.match(CYCLE_WARNING, str(w.message)) for w in caught]
    counts = [int(m.group(1)) for m in found if m]
    assert len(counts) <= 1
    return counts[0] if counts else 0


def test_dl19_prefs_avgjg_over_the_seven_judges(judges, dl19_run):
    """Six of the seven judges hold cycles (condensed, with one warning); per query, prefs_avgjg is the mean over
    the query's judges of each judge's prefs_simp alone, and the counts are the judges' counts added up."""
    paths, judgments = judges
    counts = [ipm.prefs_num_prefs_poss, ipm.prefs_num_prefs_ful]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        together = _per_query([ipm.prefs_avgjg, *counts], judgments, dl19_run)
    assert "The first: group 'judge.00', query '" in str(caught[-1].message)
    alone, condensed = {}, 0
    for name in paths:
        with warnings.catch_warnings(record=True) as caught_alone:
            warnings.simplefilter("always")
            alone[name] = _per_query([ipm.prefs_simp, *counts], judgments.group(name), dl19_run)
        condensed += _condensed(caught_alone)
    assert _condensed(caught) == condensed > 0
    query_ids = sorted({q for _, q in together})
    for qid in query_ids:
        simp = [values[("prefs_simp", qid)] for values in alone.values() if ("prefs_simp", qid) in values]
        assert together[("prefs_avgjg", qid)] == pytest.approx(np.mean(simp), rel=1e-12)
        for count in map(str, counts):
            assert together[(count, qid)] == sum(values.get((count, qid), 0) for values in alone.values())


def test_dl19_condensed_judge_equals_the_direct_definition(judges):
    """judge.00 alone, on its smaller queries with cycles: the direct definition on the condensed groups."""
    paths, _ = judges
    judgments = ipm.load_judgments(paths["judge.00"], format="pairs")
    run = ipm.read_run(data_path(*DL19, "runs", "input.ICT-BERT2.txt.gz"))
    with pytest.warns(UserWarning, match=CYCLE_WARNING):
        got = _per_query(TREC_PREFS, judgments, run)
    lines = judgments.lines
    table = pd.DataFrame(
        {
            "query_id": judgments.query_ids[judgments.doc_query[lines.doc]],
            "jg": lines.group,
            "jsg": lines.subgroup,
            "doc_id": judgments.doc_ids[lines.doc],
            "level": lines.level,
        }
    )
    small = [qid for q, qid in enumerate(judgments.query_ids) if np.diff(judgments.doc_offsets)[q] <= 25]
    for qid in small:
        mine = table[table["query_id"] == qid]
        scores = run[run["query_id"] == qid]
        want = query_values(
            list(mine[["jg", "jsg", "doc_id", "level"]].itertuples(index=False)),
            dict(zip(scores["doc_id"], scores["score"], strict=True)),
        )
        assert {name: got[(name, qid)] for name in TREC_MEASURES} == pytest.approx(want, abs=1e-12), qid
    assert sum(_has_cycle(table[table["query_id"] == qid]) for qid in small) >= 2  # some of them condensed


def test_dl19_experiment_per_judge(judges, dl19_run):
    paths, judgments = judges
    measures = ["ppref@10", "prefs_avgjg", "judge.00:ppref@10", "judge.00:prefs_avgjg", "judge.06:prefs_num_prefs_poss"]
    with pytest.warns(UserWarning, match=CYCLE_WARNING):
        table = ipm.Experiment({"BERT2": dl19_run}, judgments, measures).set_index("name")
    assert list(table.columns) == [
        "ppref@10",
        "prefs_avgjg",
        "ppref@10 [judge.00]",
        "prefs_avgjg [judge.00]",
        "prefs_num_prefs_poss [judge.06]",
    ]
    alone = ipm.load_judgments(paths["judge.00"], format="pairs")
    with pytest.warns(UserWarning, match=CYCLE_WARNING):
        expected = ir_measures.calc_aggregate([ipm.ppref @ 10, ipm.prefs_avgjg], alone, dl19_run)
    assert table.loc["BERT2", "ppref@10 [judge.00]"] == pytest.approx(expected[ipm.ppref @ 10], rel=1e-12)
    assert table.loc["BERT2", "prefs_avgjg [judge.00]"] == pytest.approx(expected[ipm.prefs_avgjg], rel=1e-12)
    with pytest.warns(UserWarning, match=CYCLE_WARNING):
        together = ir_measures.calc_aggregate([ipm.prefs_avgjg], judgments, dl19_run)[ipm.prefs_avgjg]
    assert table.loc["BERT2", "prefs_avgjg"] == pytest.approx(together, rel=1e-12)
    count = ir_measures.calc_aggregate([ipm.prefs_num_prefs_poss], judgments.group("judge.06"), dl19_run)
    assert table.loc["BERT2", "prefs_num_prefs_poss [judge.06]"] == count[ipm.prefs_num_prefs_poss]
    with pytest.raises(InputError, match="unknown judgment group 'judge.9'"):
        ipm.Experiment({"BERT2": dl19_run}, judgments, ["judge.9:ppref@10"])


def test_experiment_command_with_the_seven_judges(judges, dl19_run, capsys):
    paths, judgments = judges
    run = data_path(*DL19, "runs", "input.ICT-BERT2.txt.gz")
    first, *others = paths.items()
    argv = ["experiment", f"{first[0]}=pairs:{first[1]}", str(run), "--prefs-format", "pairs"]
    for name, path in others:
        argv += ["--prefs", f"{name}={path}"]
    argv += ["-m", "prefs_avgjg", "judge.00:ppref@10", "--format", "csv", "--round", "16"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    header, row = out.splitlines()
    assert re.search(f"ir-pref-measures experiment: warning: .*{CYCLE_WARNING}", err)  # one line of words
    assert header == "name,prefs_avgjg,ppref@10 [judge.00]"
    with pytest.warns(UserWarning, match=CYCLE_WARNING):
        expected = ipm.Experiment([run], judgments, ["prefs_avgjg", "judge.00:ppref@10"])
    assert [float(x) for x in row.split(",")[1:]] == pytest.approx(expected.iloc[0, 1:].tolist(), rel=1e-12)


def test_experiment_command_with_named_groups(judges, capsys):
    paths, _ = judges
    run = data_path(*DL19, "runs", "input.ICT-BERT2.txt.gz")
    argv = ["experiment", f"judge.05=pairs:{paths['judge.05']}", str(run), "--prefs", f"judge.06={paths['judge.06']}"]
    argv += ["--prefs-format", "pairs", "-m", "ppref@10", "judge.06:prefs_avgjg", "--format", "csv"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "name,ppref@10,prefs_avgjg [judge.06]"
    expected = ipm.Experiment(
        [run], ipm.load_groups({k: paths[k] for k in ("judge.05", "judge.06")}, format="pairs"), ["ppref@10"]
    )
    assert float(out.splitlines()[1].split(",")[1]) == pytest.approx(expected["ppref@10"].iloc[0], rel=1e-12)


def test_combine_keeps_groups_and_restriction():
    a = ipm.load_judgments(pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["x", "y"], "relevance": [1, 0]}))
    prefs = pd.DataFrame({"query_id": ["q"], "doc_id_a": ["y"], "doc_id_b": ["z"], "preference": [-1]})
    b = ipm.load_judgments(prefs, group="judge")
    both = combine(a, b)
    assert both.groups == ["judge", ipm.DEFAULT_GROUP]
    assert both.group("judge").groups == ["judge"] and len(both.group("judge").edge_src) == 1
    assert len(both.group(ipm.DEFAULT_GROUP).doc_ids) == 2
    assert combine(both, b).groups == both.groups  # groups of one name merge
    assert len(combine(both, b).group("judge").lines) == 4
    with pytest.raises(InputError, match="unknown judgment group"):
        both.group("nobody")
    with pytest.raises(InputError, match="cannot become the one group"):
        both.renamed("x")
    with pytest.raises(InputError, match="mapping"):
        ipm.load_groups(["a"])


def test_prefs_file_names_its_groups(tmp_path):
    path = tmp_path / "p"
    path.write_text("q 1 a d1 2\nq 1 a d2 1\nq 2 a d2 1\nq 2 a d1 0\n")
    judgments = ipm.load_judgments(f"prefs:{path}")
    assert judgments.groups == ["1", "2"]
    with pytest.raises(InputError, match="names its judgment groups"):
        ipm.load_judgments(f"prefs:{path}", group="x")
    path.write_text("q 1 a d1 2\nq 1 a d2 1\nq 1 b d2 1\nq 1 b d1 0\n")  # d1 at 2, then at 0: trec_eval's error
    with pytest.raises(InputError, match="both 0 and non-0"):
        ipm.load_judgments(f"prefs:{path}")


# -- the catalog -----------------------------------------------------------------------------------------------------


def test_docs_measure_tables_are_generated_from_the_catalog():
    text = (ROOT / "docs" / "measures.md").read_text()
    assert update_tables(text) == text, "run: python -m ir_pref_measures.measures.catalog docs/measures.md"
    for name in SPECS:
        assert f"`{name}" in text


def test_every_catalog_measure_is_registered():
    for name, spec in SPECS.items():
        measure = ir_measures.parse_measure(name)
        assert measure.NAME == name and getattr(ipm, name) == measure
        assert set(measure.SUPPORTED_PARAMS) == set(spec.params)
        assert type(measure.aggregator()).__name__ == ("SumAgg" if spec.aggregate == "sum" else "MeanAgg")
