"""Judge agreement: alignment, agreement counts and statistics, reliability, diagnostics, system agreement.

Counts are checked against direct counts written here from the definitions (pure Python dictionaries); kappa,
alpha and Fleiss' kappa against scikit-learn's ``cohen_kappa_score``, the ``krippendorff`` package and statsmodels'
``fleiss_kappa`` on the same aligned labels; triads against brute-force enumeration.
"""

from __future__ import annotations

import io
import itertools
from collections import Counter, defaultdict

import krippendorff
import numpy as np
import pandas as pd
import pytest
from conftest import data_path
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

from ir_pref_measures.agreement import coefficients as kernels
from ir_pref_measures.agreement import panel as judges
from ir_pref_measures.agreement.sources import Grades, Votes
from ir_pref_measures.errors import InputError
from ir_pref_measures.parsing.preferences import read_judging_log

DL = "dl_llm_prefs_arabzadeh"


# -- direct definitions --------------------------------------------------------------------------------------------


def direct_majority(lines):
    """{(query, lo, hi): label} from (query, a, b, label) lines, label 1 = a preferred: the most frequent label of
    each unordered pair, a tie when the top count is shared."""
    votes = defaultdict(Counter)
    for query, a, b, label in lines:
        key, label = ((query, a, b), label) if a < b else ((query, b, a), -label)
        votes[key][label] += 1
    out = {}
    for key, counter in votes.items():
        top = max(counter.values())
        winners = [label for label, count in counter.items() if count == top]
        out[key] = winners[0] if len(winners) == 1 else 0
    return out


def direct_net(lines):
    """{(query, lo, hi): label}: the sign of each unordered pair's wins minus losses (tie votes abstain)."""
    net = defaultdict(int)
    for query, a, b, label in lines:
        key, label = ((query, a, b), label) if a < b else ((query, b, a), -label)
        net[key] += label
    return {key: int(np.sign(value)) for key, value in net.items()}


def direct_counts(x: dict, y: dict):
    agree = tie = disagree = 0
    for key in x.keys() & y.keys():
        if x[key] == y[key]:
            agree += 1
        elif x[key] == -y[key]:
            disagree += 1
        else:
            tie += 1
    return agree, tie, disagree


def human_lines(path):
    lines = []
    for text in open(path):
        query, a, b, winner = text.split()
        lines.append((query, a, b, 1 if winner == a else -1))
    return lines


def log_lines(path):
    lines, unusable = [], 0
    for text in open(path):
        _, query, a, b, verdict = text.split()
        if verdict == "?":
            unusable += 1
        else:
            lines.append((query, a, b, 1 if verdict == "!" else 0))
    return lines, unusable


def qrels_grades(path):
    grades = {}
    for text in open(path):
        query, _, doc, grade = text.split()
        grades[query, doc] = float(grade)
    return grades


def implied(grades, pairs):
    out = {}
    for query, a, b in pairs:
        if (query, a) in grades and (query, b) in grades:
            out[query, a, b] = int(np.sign(grades[query, a] - grades[query, b]))
    return out


# -- DL 2021: people against GPT-4o ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dl21():
    human = data_path("dueling_bandits_dl2021", "judgments.txt")
    log = data_path(DL, "llm_pref_judgments", "DL2021", "judge.human")
    return human, log


def test_dl21_people_against_gpt4o_counts_and_statistics(dl21, on_real_data):
    human, log = dl21
    aligned = judges.align({"human": f"winner:{human}", "gpt4o": str(log)})
    row = judges.agreement(aligned, samples=200).iloc[0]
    people = direct_majority(human_lines(human))
    llm_lines, unusable = log_lines(log)
    llm = direct_majority(llm_lines)
    agree, tie, disagree = direct_counts(people, llm)
    assert (row["agree"], row["tie"], row["disagree"]) == (agree, tie, disagree)
    assert row["pairs"] == len(people.keys() & llm.keys()) == agree + tie + disagree
    assert unusable > 0 and (unusable == 2265 or not on_real_data)
    assert judges.diagnostics(aligned).set_index("judge").loc["gpt4o", "unusable"] == unusable

    frame = aligned.frame().dropna(subset=["human", "gpt4o"])
    x, y = frame["human"].to_numpy(int), frame["gpt4o"].to_numpy(int)
    assert row["kappa"] == pytest.approx(cohen_kappa_score(x, y), abs=1e-12)
    assert row["weighted kappa"] == pytest.approx(cohen_kappa_score(x, y, weights="linear"), abs=1e-12)
    data = np.vstack([x, y]).astype(float)
    assert row["alpha"] == pytest.approx(krippendorff.alpha(data, level_of_measurement="nominal"), abs=1e-12)
    ordinal = krippendorff.alpha(data, level_of_measurement="ordinal", value_domain=[-1, 0, 1])
    assert row["alpha ordinal"] == pytest.approx(ordinal, abs=1e-12)
    assert row["kappa ci low"] < row["kappa"] < row["kappa ci high"]


@pytest.mark.parametrize(("rule", "direct"), [("plurality", direct_majority), ("net", direct_net)])
def test_dl21_aligned_labels_are_the_direct_majorities(dl21, rule, direct):
    human, log = dl21
    frame = judges.align({"human": f"winner:{human}", "gpt4o": str(log)}, majority=rule).frame()
    for judge, lines in (("human", human_lines(human)), ("gpt4o", log_lines(log)[0])):
        rows = frame.dropna(subset=[judge])[["query_id", "doc_id_a", "doc_id_b", judge]]
        assert {(q, a, b): int(v) for q, a, b, v in rows.itertuples(index=False)} == direct(lines)


# -- DL 2019: seven GPT-4o judges -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dl19():
    sources = {f"judge.0{k}": str(data_path(DL, "llm_pref_judgments", "DL2019", f"judge.0{k}")) for k in range(7)}
    return sources, str(data_path(DL, "qrels.dl19-passage.txt"))


def _pairs_lines(path):
    return [(q, w, loser, 1) for q, w, loser in (line.split() for line in open(path))]


def test_dl19_fleiss_kappa_across_the_seven_judges(dl19):
    sources, _ = dl19
    aligned = judges.align(sources)
    table = judges.reliability(aligned, samples=200).set_index("statistic")
    labels = {name: direct_majority(_pairs_lines(path)) for name, path in sources.items()}
    pairs = Counter(key for found in labels.values() for key in found)
    shared = [key for key, count in pairs.items() if count >= 2]
    assert table.loc["Fleiss kappa", "pairs"] == len(shared) > 0
    # Gwet's form of Fleiss' kappa, item by item
    rows = [[found[key] for found in labels.values() if key in found] for key in shared]
    pa = np.mean([sum(c * (c - 1) for c in Counter(r).values()) / (len(r) * (len(r) - 1)) for r in rows])
    pi = np.array([np.mean([r.count(v) / len(r) for r in rows]) for v in (-1, 0, 1)])
    pe = (pi**2).sum()
    assert table.loc["Fleiss kappa", "value"] == pytest.approx((pa - pe) / (1 - pe), abs=1e-12)
    data = np.array([[found.get(key, np.nan) for key in shared] for found in labels.values()], dtype=float)
    assert table.loc["Krippendorff alpha", "value"] == pytest.approx(
        krippendorff.alpha(data, level_of_measurement="nominal"), abs=1e-12
    )


def test_dl19_each_judge_against_the_nist_qrels(dl19):
    sources, qrels = dl19
    aligned = judges.align({**sources, "qrels": qrels})
    table = judges.agreement(aligned, samples=100)
    grades = qrels_grades(qrels)
    for name, path in sources.items():
        judged = direct_majority(_pairs_lines(path))
        expected = direct_counts(judged, implied(grades, judged))
        row = table[(table["judge a"] == name) & (table["judge b"] == "qrels")].iloc[0]
        assert (row["agree"], row["tie"], row["disagree"]) == expected


def test_dl19_intransitive_triads_by_enumeration(dl19):
    sources, _ = dl19
    aligned = judges.align({"judge.03": sources["judge.03"]})
    per_query = judges.triads(aligned).set_index("query_id")
    judged = direct_majority(_pairs_lines(sources["judge.03"]))
    for query in sorted({q for q, _, _ in judged})[:8]:
        edges = {(a, b): label for (q, a, b), label in judged.items() if q == query and label}
        docs = sorted({d for pair in edges for d in pair})
        triads = cycles = 0
        for x, y, z in itertools.combinations(docs, 3):
            labels = [edges.get((x, y)), edges.get((y, z)), edges.get((x, z))]
            if None in labels:
                continue
            triads += 1
            cycles += labels[0] == labels[1] == -labels[2]  # x>y>z>x or the reverse
        assert (per_query.loc[query, "triads"], per_query.loc[query, "intransitive"]) == (triads, cycles)


def test_dl19_pgc_ranking_of_the_ict_runs_per_judge(dl19):
    from ir_pref_measures import Experiment

    sources, qrels = dl19
    runs = [str(data_path(DL, "runs", f"input.ICT-{r}.txt.gz")) for r in ("BERT2", "CKNRM_B", "CKNRM_B50")]
    chosen = {"qrels": qrels, "judge.00": sources["judge.00"], "judge.01": sources["judge.01"]}
    with pytest.warns(Warning):  # the runs' depths differ
        table = judges.system_agreement(runs, chosen, "PGC", "qrels").set_index("judge")
    names = ["ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50"]
    from scipy.stats import kendalltau

    for judge in chosen:  # each judge's means as Experiment gives them from the file itself
        with pytest.warns(Warning):
            means = Experiment(runs, f"pairs:{chosen[judge]}" if judge != "qrels" else qrels, ["PGC"])
        expected = means.set_index("name")["PGC"].reindex(names)
        np.testing.assert_allclose(table.loc[judge, names].to_numpy(float), expected.to_numpy(), rtol=1e-12)
        tau = kendalltau(expected, table.loc["qrels", names].to_numpy(float)).statistic
        assert table.loc[judge, "tau"] == pytest.approx(tau)
    assert table.loc["qrels", "tau"] == 1


# -- properties on random judges ------------------------------------------------------------------------------------

DOCS = [f"d{k}" for k in range(6)]


@st.composite
def judge_lines(draw):
    n = draw(st.integers(1, 40))
    return [
        (
            draw(st.sampled_from(["q1", "q2", "q3"])),
            *draw(st.lists(st.sampled_from(DOCS), min_size=2, max_size=2, unique=True)),
            draw(st.sampled_from([-1, 0, 1])),
        )
        for _ in range(n)
    ]


def votes_of(lines):
    q, a, b, label = (np.array(c, dtype=object) for c in zip(*lines, strict=True))
    return Votes(q, a, b, label.astype(np.int8), np.ones(len(lines), dtype=bool))


@settings(max_examples=60, deadline=None)
@given(st.lists(judge_lines(), min_size=2, max_size=4), st.randoms(use_true_random=False))
def test_agreement_equals_direct_definitions(judge_sets, random):
    named = {f"j{k}": votes_of(lines) for k, lines in enumerate(judge_sets)}
    aligned = judges.align(named)
    table = judges.agreement(aligned, samples=20)
    direct = {name: direct_majority(lines) for name, lines in zip(named, judge_sets, strict=True)}
    frame = aligned.frame()
    for row in table.itertuples(index=False):
        x, y = direct[row[0]], direct[row[1]]
        assert (row.agree, row.tie, row.disagree) == direct_counts(x, y)
        shared = sorted(x.keys() & y.keys())
        if shared and len({x[k] for k in shared} | {y[k] for k in shared}) > 1:
            a, b = [x[k] for k in shared], [y[k] for k in shared]
            expected = cohen_kappa_score(a, b)
            assert row.kappa == pytest.approx(expected, abs=1e-9) or (np.isnan(row.kappa) and np.isnan(expected))
    # shuffled lines, each pair written either way round: the same alignment
    shuffled = {}
    for name, lines in zip(named, judge_sets, strict=True):
        flipped = [(q, b, a, -label) if random.random() < 0.5 else (q, a, b, label) for q, a, b, label in lines]
        random.shuffle(flipped)
        shuffled[name] = votes_of(flipped)
    pd.testing.assert_frame_equal(judges.align(shuffled).frame(), frame)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # statsmodels when chance is 1
@settings(max_examples=60, deadline=None)
@given(st.lists(judge_lines(), min_size=2, max_size=4))
def test_reliability_equals_the_libraries(judge_sets):
    named = {f"j{k}": votes_of(lines) for k, lines in enumerate(judge_sets)}
    aligned = judges.align(named)
    table = judges.reliability(aligned, samples=20).set_index("statistic")
    labels = aligned.labels.astype(float)
    labels[aligned.labels == judges.MISSING] = np.nan
    several = (~np.isnan(labels)).sum(axis=1) >= 2
    data = labels[several].T
    if several.sum() and len(np.unique(data[~np.isnan(data)])) > 1:
        assert table.loc["Krippendorff alpha", "value"] == pytest.approx(
            krippendorff.alpha(data, level_of_measurement="nominal"), abs=1e-9
        )
        ordinal = krippendorff.alpha(data, level_of_measurement="ordinal", value_domain=[-1, 0, 1])
        assert table.loc["Krippendorff alpha ordinal", "value"] == pytest.approx(ordinal, abs=1e-9)
    complete = labels[~np.isnan(labels).any(axis=1)]
    if len(complete):
        counts = np.stack([(complete == v).sum(axis=1) for v in (-1, 0, 1)], axis=1)
        totals = kernels.fleiss_totals(counts, np.zeros(len(counts), dtype=int), 1)[0]
        expected = fleiss_kappa(counts)
        got = kernels.fleiss_kappa(totals)
        assert got == pytest.approx(expected, abs=1e-9) or (np.isnan(got) and not np.isfinite(expected))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 9), st.data())
def test_cyclic_triads_by_enumeration(n, data):
    pairs = list(itertools.combinations(range(n), 2))
    kept = data.draw(st.lists(st.sampled_from(pairs), unique=True))
    direction = data.draw(st.lists(st.booleans(), min_size=len(kept), max_size=len(kept)))
    edges = {(a, b) if d else (b, a) for (a, b), d in zip(kept, direction, strict=True)}
    src = np.array([a for a, _ in edges], dtype=np.int64)
    dst = np.array([b for _, b in edges], dtype=np.int64)
    triads, cycles = kernels.cyclic_triads(np.zeros(n, dtype=np.int64), src, dst, 1)
    expected_triads = expected_cycles = 0
    for x, y, z in itertools.combinations(range(n), 3):
        present = [p in edges or p[::-1] in edges for p in ((x, y), (y, z), (x, z))]
        if all(present):
            expected_triads += 1
            expected_cycles += ((x, y) in edges) == ((y, z) in edges) == ((z, x) in edges)
    assert (triads[0], cycles[0]) == (expected_triads, expected_cycles)


def test_bootstrap_is_seeded():
    rng = np.random.default_rng(3)
    lines = [
        ("q" + str(rng.integers(5)), "a", "b" + str(rng.integers(9)), int(rng.integers(-1, 2))) for _ in range(300)
    ]
    other = [(q, a, b, label if rng.random() < 0.7 else -label) for q, a, b, label in lines]
    aligned = judges.align({"x": votes_of(lines), "y": votes_of(other)})
    first, second = judges.agreement(aligned, seed=5), judges.agreement(aligned, seed=5)
    pd.testing.assert_frame_equal(first, second)
    assert not judges.agreement(aligned, seed=6).equals(first)


# -- graded judges, diagnostics ------------------------------------------------------------------------------------


def test_graded_judge_labels_the_pairs_others_judged():
    votes = votes_of([("q", "a", "b", 1), ("q", "b", "c", 0), ("q", "c", "x", -1)])
    grades = Grades(np.array(["q"] * 3, dtype=object), np.array(["a", "b", "c"], dtype=object), np.array([2, 1, 1.0]))
    frame = judges.align({"v": votes, "g": grades}).frame()
    assert frame["g"].tolist() == [1, 0, pd.NA]  # a > b; b = c; x ungraded
    with pytest.raises(InputError, match="no judge judges pairs"):
        judges.align({"g": grades})


def test_self_contradictions_and_position_bias():
    lines = [("q", "a", "b", 1), ("q", "b", "a", 1), ("q", "a", "b", 1), ("q", "c", "d", 1), ("q", "d", "c", -1)]
    row = judges.diagnostics(judges.align({"v": votes_of(lines)})).iloc[0]
    assert row["contradicted"] == 1 and row["repeated"] == 2
    assert row["first wins"] == pytest.approx(4 / 5)  # the first shown won 4 of the 5 strict judgments
    assert row["both orders"] == 2 and row["order kept"] == pytest.approx(1 / 2)  # (a, b) flips with the order


def test_judging_log_errors_name_the_line():
    with pytest.raises(InputError, match=r"<stream>:2: unknown verdict '\+'"):
        read_judging_log(io.StringIO("@ 1 a b !\n@ 1 a c +\n"))
    with pytest.raises(InputError, match=r":1: the line starts with 'x'"):
        read_judging_log(io.StringIO("x 1 a b !\n"))
    frame = read_judging_log(io.StringIO("@ 1 a b !\n@ 1 a c =\n@ 1 b c ?\n"))
    assert frame["verdict"].tolist() == [1, 0, -1]


# -- the command ----------------------------------------------------------------------------------------------------


def _judge_files(tmp_path):
    first = tmp_path / "first.txt"
    first.write_text("q1 a b a\nq1 b c c\nq1 a c a\nq2 x y y\n")
    second = tmp_path / "second.log"
    second.write_text("@ q1 a b !\n@ q1 c b =\n@ q1 c a !\n@ q2 x y ?\n")
    return first, second


def test_command_prints_the_api_tables(tmp_path, capsys):
    from ir_pref_measures.commands import main

    first, second = _judge_files(tmp_path)
    specs = [f"people=winner:{first}", f"llm={second}"]
    assert main(["judges", *specs, "--show", "agreement", "--format", "csv", "--samples", "50"]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    expected = judges.agreement(judges.align({"people": f"winner:{first}", "llm": str(second)}), samples=50)
    assert printed[["agree", "tie", "disagree"]].values.tolist() == [[1, 1, 1]]
    np.testing.assert_allclose(printed["kappa"], expected["kappa"])
    heatmap, aligned = tmp_path / "kappa.png", tmp_path / "aligned.csv"
    assert main(["judges", *specs, "--heatmap", str(heatmap), "--aligned", str(aligned)]) == 0
    out = capsys.readouterr().out
    assert "agreement:" in out and "reliability:" in out and "diagnostics:" in out
    assert heatmap.stat().st_size > 0 and pd.read_csv(aligned).shape == (4, 5)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--format", "csv"], "csv output holds one table"),
        (["--show", "systems"], "the systems table needs --runs"),
        (["--reference", "nobody", "--runs", "r"], "--reference 'nobody' is not a judge"),
    ],
)
def test_command_errors(tmp_path, capsys, extra, message):
    from ir_pref_measures.commands import main

    first, second = _judge_files(tmp_path)
    assert main(["judges", f"people=winner:{first}", f"llm={second}", *extra]) == 2
    assert message in capsys.readouterr().err


def test_command_names_a_bad_log_line(tmp_path, capsys):
    from ir_pref_measures.commands import main

    first, second = _judge_files(tmp_path)
    second.write_text("@ q1 a b !\n@ q1 c b maybe\n")
    assert main(["judges", f"people=winner:{first}", f"llm=log:{second}"]) == 2
    err = capsys.readouterr().err
    assert f"{second}:2: unknown verdict 'maybe'" in err and "line: '@ q1 c b maybe'" in err


def test_judgment_groups_and_ir_datasets_qrels_are_judges(dl19, irds_home):
    import ir_pref_measures as ipm

    sources, qrels = dl19
    groups = ipm.load_groups({"a": sources["judge.00"], "b": sources["judge.01"]})
    by_id = judges.align({"llm": groups, "nist": "irds:msmarco-passage/trec-dl-2019/judged"})
    by_file = judges.align({"llm/a": sources["judge.00"], "llm/b": sources["judge.01"], "nist": qrels})
    assert by_id.judges == ["llm/a", "llm/b", "nist"]
    pd.testing.assert_frame_equal(by_id.frame(), by_file.frame())


def test_latex_and_html_tables_escape_the_judge_names(tmp_path, capsys):
    from ir_pref_measures.commands import main

    first, second = _judge_files(tmp_path)
    specs = [f"people_&_co=winner:{first}", f"<llm>={second}"]
    assert main(["judges", *specs, "--show", "agreement", "--format", "latex", "--samples", "20"]) == 0
    latex = capsys.readouterr().out
    assert "people\\_\\&\\_co & $<$llm$>$ & 1 & 3 & 1 & 1 & 1 & " in latex and "\\toprule" in latex
    assert main(["judges", *specs, "--show", "diagnostics", "--format", "html"]) == 0
    html = capsys.readouterr().out
    assert "<td>&lt;llm&gt;</td>" in html and "<caption>diagnostics</caption>" in html


def test_agreement_matrix_is_symmetric():
    lines = [("q", "a", "b", 1), ("q", "b", "c", 1), ("q", "a", "c", 0)]
    aligned = judges.align({"x": votes_of(lines), "y": votes_of(lines[:2]), "z": votes_of(lines[1:])})
    table = judges.agreement(aligned, samples=10)
    square = judges.matrix(table, "agree")
    assert square.loc["x", "y"] == square.loc["y", "x"] == 2 and np.isnan(square.loc["x", "x"])
    assert judges.matrix(table, "agree rate").loc["z", "z"] == 1
    with pytest.raises(InputError, match="unknown agreement statistic"):
        judges.matrix(table, "accuracy")
