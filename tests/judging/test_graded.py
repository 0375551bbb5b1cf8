"""The ``umbrela`` graded preset against UMBRELA's own code (castorini/umbrela, recorded by
tests/data/umbrela/make_umbrela_data.py): byte-identical requests for 100 generated query-passage pairs and, by
hash, for 100 TREC DL 2019 query-passage pairs of the reference test data; the same grade and validity for every
raw answer recorded (well-formed and malformed); and the labels of a loopback endpoint written as TREC qrels that
the measures read."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re

import hypothesis.strategies as st
import ir_measures
import pytest
from conftest import fixture_path, run_cli, testdata_path
from hypothesis import given
from judging.chat_server import ChatServer

from ir_pref_measures.errors import InputError, Stopped
from ir_pref_measures.judging import (
    GRADED_PRESETS,
    Label,
    LLMGrader,
    LLMJudge,
    QueryText,
    Texts,
    qrels_lines,
    read_umbrela,
)

UMBRELA = GRADED_PRESETS["umbrela"]


def recorded() -> list[dict]:
    with open(fixture_path("umbrela", "synthetic.jsonl"), encoding="utf-8") as rows:
        return [json.loads(row) for row in rows]


def test_100_generated_pairs_are_asked_as_umbrela_asks_them():
    rows = recorded()
    assert len(rows) == 100
    for row in rows:
        request = {"model": "gpt-4o", "messages": UMBRELA.messages(row["query"], row["passage"]), **UMBRELA.sampling}
        assert request == row["request"]
        assert json.dumps(request["messages"]) == json.dumps(row["request"]["messages"])  # byte for byte


def test_every_recorded_answer_is_read_as_umbrela_reads_it():
    rows = recorded()
    assert {row["valid"] for row in rows} == {True, False}
    for row in rows:
        assert read_umbrela(row["answer"]) == (row["grade"], row["valid"]), row["answer"]


def test_100_dl_2019_pairs_by_hash():
    """The messages of 100 DL 2019 query-passage pairs (round 05's transcript, as the script pairs them) hash as
    UMBRELA's."""
    script = fixture_path("umbrela", "make_umbrela_data.py")
    spec = importlib.util.spec_from_file_location("make_umbrela_data", script)
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    testdata_path("dl_llm_prefs_arabzadeh", "llm_pref_judgments", "DL2019", "log.05")
    pairs = maker.dl19_pairs(testdata_path())
    expected = fixture_path("umbrela", "dl19_sha256.txt").read_text().splitlines()
    found = [
        f"{t} {d} {hashlib.sha256(json.dumps(UMBRELA.messages(q, p)).encode()).hexdigest()}" for t, d, q, p in pairs
    ]
    assert len(found) == 100 and found == expected


@given(st.text(alphabet=st.sampled_from(list("0123456789 oO:=-;<>\n\"'finalscoreFINALSCOREcategory#")), max_size=40))
def test_an_answer_is_valid_exactly_when_it_holds_a_digit_0_to_3(raw):
    grade, valid = read_umbrela(raw)
    assert grade in (0, 1, 2, 3) and valid == bool(re.search("[0-3]", raw))


def test_labels_of_a_loopback_endpoint_are_qrels_the_measures_read(tmp_path):
    queries = {"q1": QueryText("what is a cat?"), "q2": QueryText("who wrote it?")}
    docs = {f"d{k}": f"passage {k}" for k in range(6)}
    said = {"passage 0": "##final score: 3", "passage 1": "2", "passage 2": "o: 1", "passage 3": "none"}
    asked = []

    def answer(messages):
        asked.append(messages)
        return said.get(messages[-1]["content"].split("Passage: ")[1].split("\n")[0], "##final score: 0")

    pairs = [("q1", "d0"), ("q1", "d1"), ("q1", "d2"), ("q2", "d3"), ("q2", "d4"), ("q2", "missing")]
    with ChatServer(answer) as server:
        grader = LLMGrader(Texts(queries, docs), model="m", base_url=server.url, api_key="none", concurrency=3)
        labels = grader.grade(pairs)
    assert len(asked) == 5 and asked[0][0] == {"role": "system", "content": "You are a helpful assistant."}
    assert labels[:5] == [
        Label("q1", "d0", 3, True, "##final score: 3"),
        Label("q1", "d1", 2, True, "2"),
        Label("q1", "d2", 1, True, "o: 1"),
        Label("q2", "d3", 0, False, "none"),
        Label("q2", "d4", 0, True, "##final score: 0"),
    ]
    assert labels[5] is None and grader.usage.prompts == 5
    with pytest.warns(UserWarning, match="1 of 6 pairs have no label"):
        lines = qrels_lines(labels)
    (tmp_path / "qrels.txt").write_text("".join(lines))
    assert lines == ["q1 0 d0 3\n", "q1 0 d1 2\n", "q1 0 d2 1\n", "q2 0 d3 0\n", "q2 0 d4 0\n"]
    (tmp_path / "run.txt").write_text("q1 Q0 d2 1 3.0 r\nq1 Q0 d0 2 2.0 r\nq1 Q0 d1 3 1.0 r\nq2 Q0 d4 1 1.0 r\n")
    qrels, run = str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")
    ndcg = ir_measures.nDCG @ 10
    expected = ir_measures.calc_aggregate([ndcg], ir_measures.read_trec_qrels(qrels), ir_measures.read_trec_run(run))
    out, err, status = run_cli(["eval", qrels, run, "nDCG@10", "ppref@10"])
    assert status == 0, err
    assert out.splitlines()[0] == f"nDCG@10\t{expected[ndcg]:.4f}" and out.splitlines()[1].startswith("ppref@10\t")


def test_a_dead_endpoint_or_a_refused_key_stops_the_grader(free_port):
    texts = Texts({"q": QueryText("q")}, {"d": "d"})
    grader = LLMGrader(texts, model="m", base_url=f"http://127.0.0.1:{free_port}/v1", backoff=0.01, max_backoff=0.02)
    with pytest.raises(Stopped, match="cannot be reached"):
        grader.grade([("q", "d")])
    with ChatServer(lambda messages: "3", key="right") as server:
        grader = LLMGrader(texts, model="m", base_url=server.url, api_key="wrong")
        with pytest.raises(Stopped, match="HTTP 401"):
            grader.grade([("q", "d")])


def test_judge_grade_writes_the_qrels_of_a_loopback_endpoint(tmp_path):
    (tmp_path / "pairs.qrels").write_text("q1 0 d0 0\nq1 0 d1 1\nq2 0 d2 2\n")
    (tmp_path / "queries.tsv").write_text("q1\twhat is a cat?\nq2\twho wrote it?\n")
    (tmp_path / "docs.tsv").write_text("d0\tpassage 0\nd1\tpassage 1\nd2\tpassage 2\n")
    said = {"passage 0": "##final score: 3", "passage 1": "none", "passage 2": "score of 1"}

    def answer(messages):
        return said[messages[-1]["content"].split("Passage: ")[1].split("\n")[0]]

    with ChatServer(answer) as server:
        options = ["model=m", f"base_url={server.url}", "api_key=none", "preset=umbrela"]
        options += [f"queries={tmp_path / 'queries.tsv'}", f"documents={tmp_path / 'docs.tsv'}"]
        argv = ["judge", "grade", "--qrels", str(tmp_path / "pairs.qrels"), "-o", str(tmp_path / "llm.qrels")]
        _, err, status = run_cli(argv + [x for o in options for x in ("--option", o)])
    assert status == 0, err
    assert (tmp_path / "llm.qrels").read_text() == "q1 0 d0 3\nq1 0 d1 0\nq2 0 d2 1\n"
    assert err.startswith("labelled 3 of 3 pairs (1 answers without a grade, written as 0)")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["model=m", "preset=nope"], "unknown graded preset 'nope'"),
        (["model=m", "preset"], "--option 'preset': write KEY=VALUE"),
        (["model=m", "documents=OUT"], "--output"),
    ],
)
def test_judge_grade_refuses_bad_options_in_one_line(tmp_path, options, message):
    (tmp_path / "pairs.qrels").write_text("q1 0 d0 0\n")
    (tmp_path / "OUT").write_text("d0\tpassage\n")
    options = [o.replace("OUT", str(tmp_path / "OUT")) for o in options]
    argv = ["judge", "grade", "--qrels", str(tmp_path / "pairs.qrels"), "-o", str(tmp_path / "OUT")]
    _, err, status = run_cli(argv + [x for o in options for x in ("--option", o)])
    assert status == 2 and message in err and "Traceback" not in err
    assert (tmp_path / "OUT").read_text() == "d0\tpassage\n"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"attempts": 0}, "option attempts of the LLM judge: 0 is not an integer >= 1"),
        ({"timeout": -1.0}, "option timeout of the LLM judge: -1.0 is not a number of seconds >= 0"),
        ({"price_per_1k": "x"}, "option price_per_1k of the LLM judge: 'x' is not a price"),
        ({"base_url": None}, "the LLM judge has no endpoint"),
    ],
)
def test_the_grader_checks_the_endpoint_options_as_the_llm_judge_does(monkeypatch, options, message):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    texts = Texts({"q": QueryText("q")}, {"d": "d"})
    given = {"model": "m", "base_url": "http://127.0.0.1:1/v1", **options}
    for make in (LLMGrader, LLMJudge):
        with pytest.raises(InputError, match=re.escape(message)):
            make(texts, **given)


def test_judge_grade_refuses_an_option_of_pairwise_prompts_in_one_line(tmp_path):
    (tmp_path / "pairs.qrels").write_text("q1 0 d0 0\n")
    (tmp_path / "docs.tsv").write_text("d0\tpassage\n")
    (tmp_path / "queries.tsv").write_text("q1\tquery\n")
    options = ["model=m", "base_url=http://127.0.0.1:1/v1", "samples=2"]
    options += [f"queries={tmp_path / 'queries.tsv'}", f"documents={tmp_path / 'docs.tsv'}"]
    argv = ["judge", "grade", "--qrels", str(tmp_path / "pairs.qrels"), "-o", str(tmp_path / "llm.qrels")]
    _, err, status = run_cli(argv + [x for o in options for x in ("--option", o)])
    assert status == 2 and "unknown option(s) of the LLM judge: samples" in err and "Traceback" not in err
    assert not (tmp_path / "llm.qrels").exists()
