"""trec_eval's 14 preference measures as ir_measures measures, judgment groups, and the one measure catalog."""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, testdata_path

import ir_pref_measures as ipm
from ir_pref_measures.commands import main
from ir_pref_measures.errors import InputError
from ir_pref_measures.judgments import combine
from ir_pref_measures.measures.catalog import SPECS, update_readme
from ir_pref_measures.measures.trec_prefs import MEASURES as TREC_MEASURES
from ir_pref_measures.trec_eval import evaluate, read_judgments

TREC_PREFS = [ir_measures.parse_measure(name) for name in TREC_MEASURES]
FIXTURES = [("prefs", "prefs.test", "prefs.results.test"), ("qrels_prefs", "qrels.test", "results.test")]
DL19 = ("dl_llm_prefs_arabzadeh",)


def _per_query(measures, judgments, run) -> dict[tuple[str, str], float]:
    return {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, judgments, run)}


def _drop_in(path, fmt, run_path, complete=False) -> dict[tuple[str, str], float]:
    run = ipm.read_run(run_path)
    query_ids, values = evaluate(read_judgments(path, fmt), run, complete=complete, depth=None)
    return {(name, q): float(values[name][i]) for name in TREC_MEASURES for i, q in enumerate(query_ids)}


@pytest.mark.parametrize(("fmt", "judgments", "run"), FIXTURES)
def test_per_query_values_equal_the_drop_in(fmt, judgments, run):
    folder = ("trec_eval_prefs",)
    path, run_path = testdata_path(*folder, judgments), testdata_path(*folder, run)
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


# -- judgment groups ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def judges():
    folder = testdata_path(*DL19, "llm_pref_judgments", "DL2019")
    paths = {f"judge.0{i}": folder / f"judge.0{i}" for i in range(7)}
    return paths, ipm.load_groups(paths, format="pairs")


@pytest.fixture(scope="module")
def dl19_run():
    return ipm.as_ranking(testdata_path(*DL19, "runs", "input.ICT-BERT2.txt.gz"))


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


def test_dl19_inconsistent_judge_is_named(judges, dl19_run):
    _, judgments = judges
    with pytest.raises(InputError, match=r"judgment group 'judge\.00', query '\d+': Pref inconsistency"):
        ir_measures.calc_aggregate([ipm.prefs_avgjg], judgments, dl19_run)
    consistent = judgments.group("judge.06")
    values = ir_measures.calc_aggregate([ipm.prefs_avgjg, ipm.prefs_num_prefs_poss], consistent, dl19_run)
    assert values[ipm.prefs_num_prefs_poss] > 0


def test_dl19_experiment_per_judge(judges, dl19_run):
    paths, judgments = judges
    measures = ["ppref@10", "judge.00:ppref@10", "judge.06:prefs_avgjg", "judge.06:prefs_num_prefs_poss"]
    table = ipm.Experiment({"BERT2": dl19_run}, judgments, measures).set_index("name")
    assert list(table.columns) == [
        "ppref@10",
        "ppref@10 [judge.00]",
        "prefs_avgjg [judge.06]",
        *["prefs_num_prefs_poss [judge.06]"],
    ]
    alone = ipm.load_judgments(paths["judge.00"], format="pairs")
    expected = ir_measures.calc_aggregate([ipm.ppref @ 10], alone, dl19_run)[ipm.ppref @ 10]
    assert table.loc["BERT2", "ppref@10 [judge.00]"] == pytest.approx(expected, rel=1e-12)
    count = ir_measures.calc_aggregate([ipm.prefs_num_prefs_poss], judgments.group("judge.06"), dl19_run)
    assert table.loc["BERT2", "prefs_num_prefs_poss [judge.06]"] == count[ipm.prefs_num_prefs_poss]
    with pytest.raises(InputError, match="unknown judgment group 'judge.9'"):
        ipm.Experiment({"BERT2": dl19_run}, judgments, ["judge.9:ppref@10"])


def test_experiment_command_with_named_groups(judges, capsys):
    paths, _ = judges
    run = testdata_path(*DL19, "runs", "input.ICT-BERT2.txt.gz")
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
    path.write_text("q 1 a d1 2\nq 1 a d2 1\nq 1 b d2 2\nq 1 b d1 1\n")
    with pytest.raises(InputError, match="Pref inconsistency"):
        ipm.load_judgments(f"prefs:{path}")


# -- the catalog -----------------------------------------------------------------------------------------------------


def test_readme_measure_tables_are_generated_from_the_catalog():
    text = (ROOT / "README.md").read_text()
    assert update_readme(text) == text, "run: python -m ir_pref_measures.measures.catalog README.md"
    for name in SPECS:
        assert f"`{name}" in text


def test_every_catalog_measure_is_registered():
    for name, spec in SPECS.items():
        measure = ir_measures.parse_measure(name)
        assert measure.NAME == name and getattr(ipm, name) == measure
        assert set(measure.SUPPORTED_PARAMS) == set(spec.params)
        assert type(measure.aggregator()).__name__ == ("SumAgg" if spec.aggregate == "sum" else "MeanAgg")
