"""The judging store: idempotent writes, several writers at once, settings kept, exports the package reads back;
in a SQLite file and on a PostgreSQL server."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import Answer, Pair, export_lines
from ir_pref_measures.judging.exports import verdicts
from ir_pref_measures.judging.store import Store
from ir_pref_measures.parsing.preferences import read_judging_log, read_preferences

PAIRS = [Pair("q1", "d1", "d2"), Pair("q1", "d3", "d1"), Pair("q2", "x", "y"), Pair("q2", "y", "z")]


def test_asking_twice_keeps_one_request(store_location):
    with Store(store_location) as store:
        first = store.ask(PAIRS, 0, "sim")
        again = store.ask(PAIRS[::-1], 0, "sim")
        later = store.ask(PAIRS[:1], 1, "sim")
        assert [r.id for r in again] == [r.id for r in first][::-1]
        assert later[0].id not in {r.id for r in first}
        assert store.counts() == {"requests": 5, "answers": 0, "unanswered": 5}


def test_a_double_submit_never_doubles_an_answer(store_location):
    with Store(store_location) as store:
        (request,) = store.ask(PAIRS[:1], 0, "sim")
        answer = Answer(request.pair, "first", "sim")
        other_order = Answer(request.pair.swapped(), "second", "sim")
        store.record([(request.id, answer), (request.id, other_order)])
        store.record([(request.id, answer)])
        store.record([(request.id, Answer(request.pair, "first", "sim", sample=1))])
        store.record([(request.id, Answer(request.pair, "first", "people", assessor="ann"))])
        assert store.counts() == {"requests": 1, "answers": 4, "unanswered": 0}
        assert [(a.answer.pair.first, a.answer.sample) for a in store.answers()] == [
            ("d1", 0),
            ("d2", 0),
            ("d1", 1),
            ("d1", 0),
        ]


def test_answers_come_back_as_stored(store_location):
    answer = Answer(PAIRS[0], "tie", "llm", 3, "m", "h", "raw text\nwith a line", "why", 10, 2, 0.5, "ann")
    with Store(store_location) as store:
        (request,) = store.ask(PAIRS[:1], 0, "llm", asked_by="runner")
        store.record([(request.id, answer)])
    with Store(store_location) as store:
        (row,) = store.answers()
        assert row.answer == answer and row.request_id == request.id
        (stored,) = store.requests()
        assert (stored.pair, stored.round, stored.judge, stored.asked_by) == (PAIRS[0], 0, "llm", "runner")


def test_unanswered_requests_are_the_ones_in_flight(store_location):
    with Store(store_location) as store:
        requests = store.ask(PAIRS, 0, "sim")
        store.record([(requests[1].id, Answer(PAIRS[1], "first", "sim"))])
        assert [r.pair for r in store.unanswered()] == [PAIRS[0], PAIRS[2], PAIRS[3]]


def test_an_effort_keeps_its_settings(store_location):
    with Store(store_location) as store:
        store.settle({"seed": 1, "selector": "topk"})
        assert store.settle({"seed": 1, "rule": "majority"}) == {"seed": "1", "selector": "topk", "rule": "majority"}
        with pytest.raises(InputError, match="seed: stored '1', given '2'"):
            store.settle({"seed": 2})


def test_a_file_that_is_not_a_store_is_an_input_error(tmp_path):
    path = tmp_path / "s.sqlite"
    path.write_text("not a database " * 100)
    with pytest.raises(InputError, match="cannot open the judging store"):
        Store(path)


WRITER = """
import sys
from ir_pref_measures.judging.protocol import Answer, Pair
from ir_pref_measures.judging.store import Store
with Store(sys.argv[1]) as store:
    for k in range(40):
        pairs = [Pair("q", f"d{k}", f"e{j}") for j in range(5)]
        requests = store.ask(pairs, 0, "sim", asked_by=sys.argv[2])
        store.record([(r.id, Answer(r.pair, "first", "sim")) for r in requests])
"""


def test_several_writer_processes_at_once(tmp_path, store_location):
    path = store_location
    Store(path).close()
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"w{w}"], cwd=tmp_path, stderr=subprocess.PIPE)
        for w in range(3)
    ]
    assert [w.wait(120) for w in writers] == [0, 0, 0], [w.stderr.read() for w in writers]
    with Store(path) as store:  # the same 200 questions from three writers: each stored and answered once
        assert store.counts() == {"requests": 200, "answers": 200, "unanswered": 0}


def _store_with_every_outcome(path):
    store = Store(path)
    outcomes = [("q1", "a", "b", "first"), ("q1", "c", "a", "second"), ("q1", "b", "c", "tie")]
    outcomes += [("q2", "x", "y", "bad-second"), ("q2", "z", "x", "bad-first"), ("q2", "y", "z", "unusable")]
    requests = store.ask([Pair(q, a, b) for q, a, b, _ in outcomes], 0, "sim")
    store.record([(r.id, Answer(r.pair, o[3], "sim")) for r, o in zip(requests, outcomes, strict=True)])
    return store


def test_exports_read_back_by_the_package(tmp_path, store_location):
    with _store_with_every_outcome(store_location) as store:
        written = {}
        for format in ("carterette", "winner", "pairs", "log", "shown"):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                lines = export_lines(store, format)
            path = tmp_path / f"{format}.txt"
            path.write_text("".join(lines))
            written[format] = (lines, [str(w.message) for w in caught])
        assert written["log"][0] == [
            "@ q1 a b !\n",
            "@ q1 a c !\n",
            "@ q1 b c =\n",
            "@ q2 x y !\n",
            "@ q2 x z !\n",
            "@ q2 y z ?\n",
        ]
        assert written["log"][1] == []
        assert written["pairs"][1] == [
            "the pairs format cannot state 2 ties or questions without a usable answer: left out"
        ]
        log = read_judging_log(tmp_path / "log.txt")
        assert log["verdict"].tolist() == [1, 1, 0, 1, 1, -1]
        pairs = read_preferences(tmp_path / "pairs.txt", "pairs")
        winners = list(zip(pairs["doc_id_a"], pairs["doc_id_b"], strict=True))
        assert winners == [("a", "b"), ("a", "c"), ("x", "y"), ("x", "z")]
        winner = read_preferences(tmp_path / "winner.txt", "winner")
        assert winner["preference"].tolist() == [-1, 1, -1, 1]
        carterette = read_preferences(tmp_path / "carterette.txt", "carterette")
        assert carterette["preference"].tolist() == [-1, 1, 0, -2, -2]
        assert carterette["doc_id_a"].tolist() == ["a", "c", "b", "y", "z"]
        shown = read_preferences(tmp_path / "shown.txt", "carterette")
        assert shown["preference"].tolist() == [-1, 1, 0, -2, -2]
        assert written["shown"][1] == ["the shown format cannot state 1 unusable answers: left out"]
        assert [v.outcome for v in verdicts(store)] == ["first", "second", "tie", "bad-second", "bad-first", None]


def test_attempts_cost_and_the_cache_mark_come_back_as_stored(store_location):
    paid = Answer(PAIRS[0], "first", "llm", model="m", tokens_in=40, tokens_out=1, attempts=3, cost=0.0125)
    reused = Answer(PAIRS[0].swapped(), "second", "llm", model="m", attempts=0, cached=True)
    with Store(store_location) as store:
        (request,) = store.ask(PAIRS[:1], 0, "llm")
        store.record([(request.id, paid), (request.id, reused)])
    with Store(store_location) as store:
        assert [row.answer for row in store.answers()] == [paid, reused]


def test_a_store_made_before_attempts_cost_and_cached_gets_them(tmp_path):
    """A store whose answers have no ``attempts``, ``cost`` or ``cached`` column gets them when opened, its rows
    read as 0 (unknown attempts, no cost recorded, not from a cache); its answers are kept."""
    import sqlite3

    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(
            """CREATE TABLE effort (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE requests (id INTEGER PRIMARY KEY, query_id TEXT NOT NULL, first TEXT NOT NULL,
                second TEXT NOT NULL, round INTEGER NOT NULL, judge TEXT NOT NULL, asked_by TEXT NOT NULL,
                asked_at REAL NOT NULL, UNIQUE (query_id, round, first, second));
            CREATE TABLE answers (id INTEGER PRIMARY KEY, request_id INTEGER NOT NULL REFERENCES requests (id),
                query_id TEXT NOT NULL, first TEXT NOT NULL, second TEXT NOT NULL, judge TEXT NOT NULL,
                model TEXT NOT NULL, prompt_hash TEXT NOT NULL, sample INTEGER NOT NULL, answer TEXT NOT NULL,
                raw TEXT NOT NULL, reason TEXT NOT NULL, tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL,
                latency REAL NOT NULL, answered_at REAL NOT NULL, assessor TEXT NOT NULL,
                failure TEXT NOT NULL DEFAULT '', UNIQUE (request_id, judge, assessor, sample, first, failure));
            INSERT INTO requests VALUES (1, 'q1', 'd1', 'd2', 0, 'llm', '', 0);
            INSERT INTO answers VALUES (1, 1, 'q1', 'd1', 'd2', 'llm', 'm', 'h', 0, 'first', '1', '', 7, 1, 0.1, 0,
                '', '');"""
        )
    with Store(path) as store:
        (row,) = store.answers()
        assert (row.answer.answer, row.answer.tokens_in, row.answer.attempts, row.answer.cost) == ("first", 7, 0, 0)
        assert row.answer.cached is False
        store.record([(1, Answer(PAIRS[0].swapped(), "second", "llm", attempts=2, cost=0.5, cached=True))])
        assert [(r.answer.attempts, r.answer.cost, r.answer.cached) for r in store.answers()][1] == (2, 0.5, True)
