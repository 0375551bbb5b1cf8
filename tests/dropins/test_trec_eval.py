"""trec_eval's preference measures: byte-for-byte against trec_eval's outputs, and kernel vs direct definition."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import testdata_path
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from oracles.trec_prefs import DOCS, cyclic_lines, query_values

from ir_pref_measures.commands import main
from ir_pref_measures.dropins.trec_eval import ranks
from ir_pref_measures.errors import InputError
from ir_pref_measures.loading.groups import codes, read_judgments
from ir_pref_measures.measures.trec_groups import find_cycles, find_inconsistency
from ir_pref_measures.measures.trec_prefs import COUNT_MEASURES, MEASURES, trec_prefs_values

CASES = [f"case{i}" for i in range(6)]


def _run(capsys, *argv) -> str:
    assert main(["trec-eval", *map(str, argv)]) == 0
    return capsys.readouterr().out


def _summary_only(text: str) -> str:
    """What trec_eval prints without -q: the lines of the ``all`` query."""
    return "".join(line for line in text.splitlines(keepends=True) if line.split("\t")[1] == "all")


@pytest.mark.parametrize(
    ("fmt", "judgments", "run", "expected"),
    [
        ("prefs", "prefs.test", "prefs.results.test", "out.test.prefs"),
        ("qrels_prefs", "qrels.test", "results.test", "out.test.qrels_prefs"),
    ],
)
@pytest.mark.parametrize("per_query", [True, False])
def test_upstream_fixtures(capsys, fmt, judgments, run, expected, per_query):
    folder = ("trec_eval_prefs",)
    want = testdata_path(*folder, expected).read_text()
    args = ["-m", "all_prefs", "-R", fmt, testdata_path(*folder, judgments), testdata_path(*folder, run)]
    got = _run(capsys, *(["-q"] if per_query else []), *args)
    assert got == (want if per_query else _summary_only(want))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("per_query", [True, False])
def test_generated_cases(capsys, case, per_query, tier):
    folder = tier("trec_eval_prefs", "generated", case)
    judgments = next(p for p in (folder / "prefs.txt", folder / "qrels.txt") if p.exists())
    args = (folder / "args").read_text().split()
    got = _run(capsys, *args, *(["-q"] if per_query else []), judgments, folder / "run.txt")
    assert got == (folder / ("expected_q.txt" if per_query else "expected.txt")).read_text()


# -- quirks and errors, on small files -----------------------------------------------------------------------------


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def _values(capsys, tmp_path, prefs, run, *options, fmt="prefs"):
    out = _run(capsys, "-q", *options, "-R", fmt, _write(tmp_path, "j", prefs), _write(tmp_path, "r", run))
    return {(f[0].strip(), f[1]): f[2] for f in (line.split("\t") for line in out.splitlines())}


def test_ties_by_docno_ascending(capsys, tmp_path):
    values = _values(capsys, tmp_path, "x 0 d1 1\nx 0 d2 0\n", "x Q0 d2 1 2.0 r\nx Q0 d1 2 2.0 r\n", fmt="qrels_prefs")
    assert values[("prefs_simp", "x")] == "1.0000"


def test_rnonrel_depends_on_the_encoding(capsys, tmp_path):
    run = "x Q0 d1 1 3 r\nx Q0 d2 2 2 r\nx Q0 d3 3 1 r\n"
    one = _values(capsys, tmp_path, "x g s d1 1\nx g s d2 0\nx g s d3 0\n", run)
    two = _values(capsys, tmp_path, "x g s d1 1\nx g s d2 0\nx g s d3 0\nx g t d1 1\nx g t d2 0\n", run)
    assert (one[("prefs_avgjg_Rnonrel", "x")], two[("prefs_avgjg_Rnonrel", "x")]) == ("0.3333", "1.0000")


def test_rnonrel_ret_zero_over_zero_zeroes_the_topic(capsys, tmp_path):
    values = _values(capsys, tmp_path, "x g s d1 1\nx g s d2 0\nx h s d3 1\nx h s d4 0\n", "x Q0 d3 1 1 r\n")
    assert values[("prefs_avgjg_Rnonrel_ret", "x")] == "0.0000"


def test_comments_and_missing_query_with_c(capsys, tmp_path):
    values = _values(
        capsys, tmp_path, "# note\nx g s d1 1\nx g s d2 0\ny g s d1 1\ny g s d2 0\n", "y Q0 d1 1 1 r\n", "-c"
    )
    assert values[("num_q", "all")] == "2" and values[("prefs_num_prefs_poss", "all")] == "2"


@pytest.mark.parametrize(
    ("prefs", "message"),
    [
        ("x g s d1 1\nx g s d2 0\nx g t d2 1\nx g t d1 0\n", "Pref inconsistency"),
        ("x g s d1 1\nx g s d2 2\nx g t d1 0\n", "both 0 and non-0"),
        ("x g s d1 1\nx g s d1 2\n", "two levels"),
        ("x g s d1 1 extra\n", "6 fields instead of 5"),
        ("x g s d1 high\n", "not a number"),
    ],
)
def test_bad_judgments(tmp_path, prefs, message):
    with pytest.raises(InputError, match=message) as error:
        read_judgments(_write(tmp_path, "p", prefs), "prefs", allow_cycles=False)
    assert error.value.line_no is not None


CYCLE = "x g s d1 2\nx g s d2 1\nx g t d2 2\nx g t d3 1\nx g u d3 2\nx g u d1 1\n"  # d1 > d2 > d3 > d1


def test_the_drop_in_refuses_a_cycle_as_trec_eval(capsys, tmp_path):
    """trec_eval aborts on a cycle in a several-sub-group group; the drop-in exits 2 naming both lines."""
    prefs, run = _write(tmp_path, "p", CYCLE), _write(tmp_path, "r", "x Q0 d1 1 1 r\n")
    assert main(["trec-eval", "-q", "-R", "prefs", str(prefs), str(run)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert f"{prefs}:1: Pref inconsistency: two docs each preferred to the other: query x, jg g, docs d1 and d2" in (
        captured.err
    )
    assert "line 2: 'x g s d2 1'" in captured.err
    assert len(read_judgments(prefs, "prefs")) == 6  # the library's reader keeps the group, to condense it


def test_inconsistency_across_groups_is_allowed(tmp_path):
    assert len(read_judgments(_write(tmp_path, "p", "x g s d1 1\nx g s d2 0\nx h s d1 0\nx h s d2 1\n"), "prefs")) == 4


def test_blank_lines_are_skipped_as_everywhere(tmp_path):
    """trec_eval stops at a blank line ("Malformed line"); the library's one rule skips it."""
    with_blank = read_judgments(_write(tmp_path, "b", "x g s d1 1\n\nx g s d2 0\n"), "prefs")
    assert with_blank["doc_id"].tolist() == ["d1", "d2"] and with_blank["line"].tolist() == [1, 3]


def test_missing_query_without_c_and_duplicate_docs(capsys, tmp_path):
    prefs = _write(tmp_path, "p", "x g s d1 1\nx g s d2 0\ny g s d1 1\ny g s d2 0\n")
    run = _write(tmp_path, "r", "y Q0 d1 1 1 r\n")
    assert main(["trec-eval", "-R", "prefs", str(prefs), str(run)]) == 2
    assert "judged query x is not in the run" in capsys.readouterr().err
    run = _write(tmp_path, "r", "x Q0 d1 1 1 r\nx Q0 d1 2 0 r\ny Q0 d1 1 1 r\n")
    assert main(["trec-eval", "-R", "prefs", str(prefs), str(run)]) == 2
    assert "listed twice" in capsys.readouterr().err


# -- the kernel against the direct definition ----------------------------------------------------------------------

LEVELS = [-1.0, 0.0, 0.5, 1.0, 2.0, 3.5]
line = st.tuples(
    st.sampled_from(["q1", "q2", "q3"]),
    st.sampled_from(["g1", "g2", "g3"]),
    st.sampled_from(["s1", "s2", "s3"]),
    st.sampled_from(DOCS),
    st.sampled_from(LEVELS),
)
run_line = st.tuples(st.sampled_from(["q1", "q2", "q4"]), st.sampled_from(DOCS), st.sampled_from([0.5, 1.0, 2.0, 3.0]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.lists(line, min_size=1, max_size=24), st.lists(run_line, max_size=14))
def test_kernel_matches_direct_definition(lines, run_lines):
    """On the groups trec_eval accepts (and the few random ones with a cycle, condensed)."""
    _kernel_vs_direct(lines, run_lines)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(cyclic_lines(), st.lists(run_line, max_size=14))
def test_kernel_condenses_cycles_as_the_direct_definition(lines, run_lines):
    """Several-sub-group groups with cycles: each cycle's docs tied, the closure between them kept."""
    _kernel_vs_direct(lines, run_lines)


def _kernel_vs_direct(lines, run_lines) -> None:
    judged = pd.DataFrame(lines, columns=["query_id", "jg", "jsg", "doc_id", "level"])
    run = pd.DataFrame(run_lines, columns=["query_id", "doc_id", "score"]).drop_duplicates(["query_id", "doc_id"])
    run["line"] = np.arange(1, len(run) + 1)
    columns = [codes(judged[c]) for c in ("query_id", "jg", "jsg", "doc_id")]
    assume(find_inconsistency(*columns, judged["level"].to_numpy(), cycles=False) is None)
    event("cycle" if len(find_cycles(*columns, judged["level"].to_numpy()).blocks) else "consistent")
    query_ids = sorted(judged["query_id"].unique())
    got = trec_prefs_values(*columns, judged["level"].to_numpy(), ranks(judged, run, None), len(query_ids))
    for i, qid in enumerate(query_ids):
        mine = judged[judged["query_id"] == qid]
        scores = {d: s for q, d, s, _ in run.itertuples(index=False) if q == qid}
        want = query_values(list(mine[["jg", "jsg", "doc_id", "level"]].itertuples(index=False)), scores)
        for name in MEASURES:
            if name in COUNT_MEASURES:
                assert got[name][i] == want[name], (qid, name)
            else:
                assert math.isclose(got[name][i], want[name], abs_tol=1e-12), (qid, name, got[name][i], want[name])
