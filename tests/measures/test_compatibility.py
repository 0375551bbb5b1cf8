"""Compatibility: Clarke's compatibility.py reproduced (toy examples, ir_measures fixture, CAsT 2019 rows)."""

from __future__ import annotations

import json
import re
from functools import cache

import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import FIXTURES, testdata_path
from ir_pref_measures.adapters.ir_measures import MEASURES

from ir_pref_measures.commands import main
from ir_pref_measures.dropins.compatibility import compatibility_report
from ir_pref_measures.dropins.script_output import ordered_ranking
from ir_pref_measures.errors import InputError
from ir_pref_measures.loading.sources import judgments as load_judgments
from ir_pref_measures.measures.compatibility import compatibility
from ir_pref_measures.measures.rbo import rbo
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.parsing.formats import read_qrels, read_run

Compatibility = MEASURES["Compatibility"]
RUNS = [f"decaf_exp{i}" for i in range(1, 17)]
QRELS = {
    "combined": ("cast2019_toppref", "TREC-CAsT-2019.qrels"),
    "original": ("cast2019_qrels", "2019qrels.txt"),
    "local": ("cast2019_toppref", "TREC-CAST-2019.local.qrels"),
}


def direct_compatibility(qrels: dict, run: list, p: float, normalize: bool) -> float:
    """The definition, written out: ideal = value > 0 by value, ties by run position, unretrieved last."""
    position = {doc: i for i, doc in enumerate(run)}
    ideal = sorted((d for d, v in qrels.items() if v > 0), key=lambda d: (-qrels[d], position.get(d, len(run)), d))
    score = rbo(run, ideal, p)
    return score / rbo(ideal, ideal, p) if normalize and ideal else score


@pytest.mark.parametrize("seed", range(15))
def test_kernel_equals_the_definition_on_random_inputs(seed):
    rng = np.random.default_rng(seed)
    rows, runs = [], []
    for q in range(5):
        docs = [f"d{i}" for i in range(int(rng.integers(1, 30)))]
        rows += [
            (f"q{q}", d, float(g)) for d, g in zip(docs, rng.choice([-1, 0, 1, 2, 2.5, 7], len(docs)), strict=True)
        ]
        retrieved = list(rng.permutation(docs + [f"x{i}" for i in range(5)])[: int(rng.integers(0, 35))])
        runs += [(f"q{q}", d, float(s)) for d, s in zip(retrieved, rng.integers(0, 4, len(retrieved)), strict=True)]
    qrels = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(runs, columns=["query_id", "doc_id", "score"])
    judgments = Judgments.from_qrels(qrels)
    ranking = ordered_ranking(run, -run["score"].to_numpy())
    rank = ranking.rank_of(judgments.query_ids[judgments.doc_query], judgments.doc_ids)
    for p, normalize in ((0.95, True), (0.8, False), (1.0, True)):
        got = compatibility(judgments, rank, np.arange(len(judgments)), p, normalize=normalize)
        for i, q in enumerate(judgments.query_ids):
            grades = dict(qrels[qrels["query_id"] == q][["doc_id", "relevance"]].itertuples(index=False))
            order = run[run["query_id"] == q].sort_values("doc_id").sort_values("score", ascending=False, kind="stable")
            expected = direct_compatibility(grades, order["doc_id"].tolist(), p, normalize)
            assert got[i] == pytest.approx(expected, abs=1e-14)


def test_toy_examples_of_the_thesis():
    expected = json.loads(testdata_path("toy_examples", "expected.json").read_text())["compatibility_reference_script"]
    qrels = testdata_path("toy_examples", expected["qrels"])
    for key, value in expected["values"].items():
        run, p, normalize = key.split("|")
        text = compatibility_report(
            qrels, testdata_path("toy_examples", run), float(p[2:]), normalize == "normalize=True"
        )
        assert text.splitlines()[1] == f"r,q,{value!r}"
    negative = expected["negative_scores"]
    text = compatibility_report(
        testdata_path("toy_examples", negative["qrels"]), testdata_path("toy_examples", negative["run"])
    )
    assert text.splitlines()[1] == f"r,q,{negative['p=0.95|normalize=True']!r}"


def test_ir_measures_fixture_through_ir_measures():
    qrels = read_qrels(testdata_path("irmeasures_compat", "compat.qrels"))[["query_id", "doc_id", "relevance"]]
    run = read_run(testdata_path("irmeasures_compat", "compat.run"))[["query_id", "doc_id", "score"]]
    expected = {  # irmeasures_compat/README.md: ir_measures' tests, also the reference script's output
        Compatibility: (0.51779512165509, 0.018400100569017922),
        Compatibility(p=0.9): (0.3761334522946854, 0.004344079941789211),
        Compatibility(p=0.8): (0.16723008845234535, 0.00022806427320561776),
        Compatibility(normalize=False): (0.5169193697957316, 0.018336027961735724),
        Compatibility(p=0.8, normalize=False): (0.16723008843203374, 0.00022806427274576777),
    }
    measures = [*expected, ir_measures.parse_measure("Compat(p=0.95)"), ir_measures.parse_measure("nDCG@10")]
    got = {(m.measure, m.query_id): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    for measure, values in expected.items():
        assert [got[measure, q] for q in ("31_1", "31_2")] == pytest.approx(values, abs=1e-12)
    # on ~1,000-doc runs the depth choice is invisible: ir_measures' Compat agrees here
    assert got[Compatibility, "31_1"] == pytest.approx(
        got[ir_measures.parse_measure("Compat(p=0.95)"), "31_1"], abs=1e-12
    )


@cache
def compat_reference() -> pd.DataFrame:
    path = testdata_path("cast2019_reference_outputs", "compat_reference.csv.gz")
    return pd.read_csv(path, dtype={"topic": str, "compatibility": str})


def check_compat_run(qrels_name: str, run: str) -> int:
    qrels = testdata_path(*QRELS[qrels_name])
    run_path = testdata_path("cast2019_runs_decaf", f"{run}.run.gz")
    frame = read_run(run_path)
    judgments = load_judgments(qrels, format="qrels")
    ranking = ordered_ranking(frame, -frame["score"].to_numpy())  # the script's order: score, then doc id ascending
    rank = ranking.rank_of(judgments.query_ids[judgments.doc_query], judgments.doc_ids)
    reference = compat_reference()
    rows = reference[(reference["qrels"] == qrels_name) & (reference["run"] == run)]
    for (p, normalize), part in rows.groupby(["p", "normalize"]):
        queries = np.searchsorted(judgments.query_ids, part["topic"].to_numpy(dtype=object))
        got = compatibility(judgments, rank, queries, p, normalize=bool(normalize))
        np.testing.assert_allclose(got, part["compatibility"].astype(float), rtol=0, atol=1e-12)
    return len(rows)


@pytest.mark.parametrize("qrels_name", list(QRELS))
@pytest.mark.parametrize("run", ["decaf_exp1", "decaf_exp12"])
def test_cast2019_reference_sampled_runs(qrels_name, run):
    assert check_compat_run(qrels_name, run) > 600


@pytest.mark.slow
def test_cast2019_reference_every_row():
    assert sum(check_compat_run(q, run) for q in QRELS for run in RUNS) == 33216


@pytest.mark.parametrize("qrels_name", list(QRELS))
def test_command_output_is_byte_identical(qrels_name, capsys):
    reference = compat_reference()
    means = pd.read_csv(testdata_path("cast2019_reference_outputs", "compat_reference_means.csv"), dtype={"mean": str})
    run = "decaf_exp5"
    for p, normalize in ((0.95, 1), (0.8, 0)):
        rows = reference[
            (reference["qrels"] == qrels_name)
            & (reference["run"] == run)
            & (reference["p"] == p)
            & (reference["normalize"] == normalize)
        ]
        mean = means[
            (means["qrels"] == qrels_name)
            & (means["run"] == run)
            & (means["p"] == p)
            & (means["normalize"] == normalize)
        ]["mean"].iloc[0]
        lines = [
            "runid,topic,compatibility",
            *(f"exp5,{t},{v}" for t, v in zip(rows["topic"], rows["compatibility"], strict=True)),
        ]
        args = ["compatibility", "-p", str(p), *([] if normalize else ["--no-normalize"])]
        assert (
            main(
                [
                    *args,
                    str(testdata_path(*QRELS[qrels_name])),
                    str(testdata_path("cast2019_runs_decaf", f"{run}.run.gz")),
                ]
            )
            == 0
        )
        assert capsys.readouterr().out == "\n".join([*lines, f"exp5,average,{mean}"]) + "\n"


GENERATED = FIXTURES / "pgc"  # generated qrels and runs, compatibility.py's outputs (see make_reference.py there)


@pytest.mark.parametrize("expected", sorted((GENERATED / "compat").glob("*.csv")), ids=lambda path: path.stem)
def test_command_reproduces_the_script_on_generated_inputs(expected, capsys, monkeypatch):
    """Byte for byte, on graded and float qrels, p = 0.95 and 0.8, with and without normalisation."""
    qrels, run, p, nonorm = re.fullmatch(r"(\w+)\.(\w+)\.p([\d.]+?)(\.nonorm)?", expected.stem).groups()
    monkeypatch.chdir(GENERATED)
    args = ["compatibility", "-p", p, *(["--no-normalize"] if nonorm else []), f"{qrels}.txt", f"{run}.txt"]
    assert main(args) == 0
    assert capsys.readouterr().out == expected.read_text()


def test_command_rejects_bad_input(tmp_path, capsys):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n1 0 b 2\n")
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 a 2 1.0 t\n")
    with pytest.raises(InputError, match="out of range"):
        compatibility_report(qrels, run, p=1.0)
    with pytest.raises(InputError, match="listed twice"):
        compatibility_report(qrels, run)
    run.write_text("1 Q0 a 1 2.0\n")
    assert main(["compatibility", str(qrels), str(run)]) == 2
    assert "fields" in capsys.readouterr().err


def test_compatibility_and_ir_measures_compat_have_distinct_pretty_names():
    ours = ir_measures.parse_measure("Compatibility")
    theirs = ir_measures.parse_measure("Compat")
    assert ours.PRETTY_NAME != theirs.PRETTY_NAME
    assert ours.NAME != theirs.NAME
