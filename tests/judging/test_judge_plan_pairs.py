"""``judge plan --pairs FILE`` (the ``list`` selector): exactly the listed questions, in the list's order, judged by
the LLM judge through a loopback OpenAI-compatible server, exported as Clarke's judging log equal to the lines
``judge.py`` writes (tests/oracles/judge_py.py) for the same answers: on a generated list that always runs, on
round 05 of GPT-4o's DL 2019 judgments (its transcript replayed, ties included), and on the 1,639 pairs of round 03
(the tier keeps that round's ``@`` lines without their marks and no passages: the passages are made up and the
server answers each order as the round's line says)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import run_cli, testdata_path
from judging.chat_server import ChatServer
from oracles.judge_py import at_line, read_transcript, reading

from ir_pref_measures.judging import ListedPairs, Pair, preset, read_pairs

pytest.importorskip("openai")

AC = preset("arabzadeh-clarke")
ROUNDS = ("dl_llm_prefs_arabzadeh", "llm_pref_judgments", "DL2019")


def prompt(question: str, first: str, second: str) -> str:
    return AC.template.format(query=question, first=first, second=second)


def judged_log(tmp_path, listed: list[str], questions: dict, passages: dict, answer) -> list[str]:
    """Plan a list effort of the lines ``listed``, judge it with the LLM judge against a server answering
    ``answer(user_message)``, and export its log with the passages (``judge.py``'s order of ties)."""
    (tmp_path / "pairs.txt").write_text("".join(f"{line}\n" for line in listed), encoding="utf-8")
    (tmp_path / "queries.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in questions.items()), encoding="utf-8")
    (tmp_path / "docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in passages.items()), encoding="utf-8")
    store = str(tmp_path / "effort.sqlite")
    _, err, status = run_cli(
        [
            "judge",
            "plan",
            store,
            "--selector",
            "list",
            "--pairs",
            str(tmp_path / "pairs.txt"),
            "--rule",
            "arabzadeh-clarke",
        ]
    )
    assert status == 0, err

    def server_answer(messages):
        assert messages[0] == {"role": "system", "content": AC.system}
        return answer(messages[1]["content"])

    with ChatServer(server_answer) as server:
        options = ["model=gpt-4o", f"base_url={server.url}", "api_key=none", "concurrency=16"]
        options += [f"queries={tmp_path / 'queries.tsv'}", f"documents={tmp_path / 'docs.tsv'}"]
        _, err, status = run_cli(
            ["judge", "run", store, "--judge", "llm", *itertools.chain(*(("--option", o) for o in options))]
        )
    assert status == 0, err
    out, err, status = run_cli(["judge", "export", store, "--format", "log", "--documents", str(tmp_path / "docs.tsv")])
    assert status == 0, err
    return out.splitlines()


def test_a_generated_list_is_judged_in_its_order_as_judge_py_writes_it(tmp_path):
    """Topics interleaved and out of sorted order, responses LLMs write (unusable ones too), equal and unequal
    lengths, a passage missing: the log is judge.py's, line for line."""
    rng = np.random.default_rng(7)
    words = ["alpha", "beta", "Passage", "one", "x1", "y2"]
    responses = ["1", "2", "Passage 1", "Passage 2", "None", "", "1 or 2", "Passage 2 is better than 1"]
    topics = ("30", "4", "112")
    passages = {
        f"D{t}-{k}": " ".join(rng.choice(words, size=int(rng.integers(1, 3)) * 2)) for t in topics for k in range(8)
    }
    questions = {t: f"question {t}?" for t in topics}
    listed, expected, said = [], [], {}
    for t, i, j in [(str(rng.choice(topics)), *rng.choice(8, size=2, replace=False)) for _ in range(60)]:
        a, b = f"D{t}-{i}", f"D{t}-{j}"
        if any(line.split()[0] == t and {a, b} == set(line.split()[1:]) for line in listed):
            continue
        listed.append(f"{t} {a} {b}")
        x, y = (str(rng.choice(responses)) for _ in range(2))
        said[prompt(questions[t], passages[a], passages[b])] = x
        said[prompt(questions[t], passages[b], passages[a])] = y
        expected.append(at_line(t, a, b, passages, reading(x), reading(y)))
    listed.append("4 D4-0 GONE")  # a passage missing: `?`, the present one first, nothing asked
    expected.append("@ 4 D4-0 GONE ?")
    assert judged_log(tmp_path, listed, questions, passages, said.__getitem__) == expected
    assert any(line.endswith("=") for line in expected) and len({line.split()[1] for line in expected}) == 3


def test_round_05_line_for_line():
    """Round 05's 176 pairs, in the transcript's order, answered as GPT-4o answered them: its `@` lines."""
    exchanges = read_transcript(testdata_path(*ROUNDS, "log.05").read_text(encoding="utf-8"))
    recorded = {p: r for e in exchanges for p, r in zip(e.prompts, e.responses, strict=True)}
    questions = {e.topic: e.question for e in exchanges}
    passages = {doc: text for e in exchanges for doc, text in ((e.a, e.passage_a), (e.b, e.passage_b))}
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        lines = judged_log(
            Path(folder), [f"{e.topic} {e.a} {e.b}" for e in exchanges], questions, passages, recorded.__getitem__
        )
    assert lines == [e.line for e in exchanges]
    assert sum(line.endswith("=") for line in lines) == 62


def test_round_03_its_1639_pairs_in_order(tmp_path):
    """Round 03's 1,639 pairs as judge.py's request file; each order answered for the doc the round preferred."""
    rows = testdata_path(*ROUNDS, "judge.03").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 1639
    docs = sorted({d for row in rows for d in row.split()[1:]})
    passages = {d: f"passage {d}" + " word" * (k % 7) for k, d in enumerate(docs)}
    questions = {row.split()[0]: f"question {row.split()[0]}" for row in rows}
    winner = {}
    for row in rows:
        q, a, b = row.split()
        winner[prompt(questions[q], passages[a], passages[b])] = "1"
        winner[prompt(questions[q], passages[b], passages[a])] = "Passage 2"
    assert judged_log(tmp_path, rows, questions, passages, winner.__getitem__) == [f"@ {row} !" for row in rows]


def test_the_list_formats_a_lab_has(tmp_path):
    """judge.py's and prefj.py's requests, a judging log, a winner and a carterette export: the questions as
    written, in order; comments and blank lines skipped."""
    path = tmp_path / "pairs.txt"
    path.write_text("# requests\n1 a b\n\n@ 1 c a =\n2 x y y\n2 y z -1\n@ 3 p q ?\n")
    pairs = read_pairs(path)
    assert pairs == [
        Pair("1", "a", "b"),
        Pair("1", "c", "a"),
        Pair("2", "x", "y"),
        Pair("2", "y", "z"),
        Pair("3", "p", "q"),
    ]
    selector = ListedPairs(pairs)
    assert selector.next_round("1", []) == pairs[:2] and selector.next_round("1", [[]]) == []
    assert selector.pools == {"1": ["a", "b", "c"], "2": ["x", "y", "z"], "3": ["p", "q"]}
    assert [selector.position(p.swapped()) for p in pairs] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 a b\n1 b a\n", "pairs.txt:2: the question b a of topic 1 is listed twice (first on line 1)"),
        ("1 a\n", "pairs.txt:1: 2 fields"),
        ("1 a a\n", "pairs.txt:1: a question of a document against itself (a)"),
        ("1 a NA -2\n", "pairs.txt:1: a bad mark names one document, not a question"),
        ("1 a b c\n", "pairs.txt:1: the fourth field is the winner (a or b) or a preference -2..2"),
        ("@ 1 a b +\n", "pairs.txt:1: a judging log line ends with one of ! = ?, not '+'"),
        ("\n# nothing\n", "pairs.txt: the list of pairs holds no question"),
    ],
)
def test_a_bad_list_is_refused_in_one_line_before_a_store_is_made(tmp_path, text, message):
    (tmp_path / "pairs.txt").write_text(text)
    store = tmp_path / "effort.sqlite"
    _, err, status = run_cli(
        ["judge", "plan", str(store), "--selector", "list", "--pairs", str(tmp_path / "pairs.txt")]
    )
    assert status == 2 and message in err and "Traceback" not in err
    assert not store.exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--selector", "list"], "--selector list asks the questions of a list: give --pairs FILE"),
        (["--selector", "all", "--pairs", "P"], "--pairs is an option of the list selector, not of --selector all"),
        (["--selector", "list", "--pairs", "P", "--qrels", "Q"], "give no --qrels and no --runs"),
        (["--selector", "list", "--pairs", "S"], "not a judging store; refusing to make it one"),
    ],
)
def test_list_options_are_checked(tmp_path, argv, message):
    (tmp_path / "P").write_text("1 a b\n")
    (tmp_path / "S").write_text("1 a b\n")
    argv = [str(tmp_path / a) if a in ("P", "Q", "S") else a for a in argv]
    _, err, status = run_cli(["judge", "plan", str(tmp_path / "S"), *argv])
    assert status == 2 and message in err


def test_documents_order_the_log_only(tmp_path):
    (tmp_path / "pairs.txt").write_text("1 a b\n")
    store = str(tmp_path / "effort.sqlite")
    assert run_cli(["judge", "plan", store, "--selector", "list", "--pairs", str(tmp_path / "pairs.txt")])[2] == 0
    _, err, status = run_cli(
        ["judge", "export", store, "--format", "pairs", "--documents", str(tmp_path / "pairs.txt")]
    )
    assert status == 2 and "--documents orders the lines of the log format, not of --format pairs" in err
