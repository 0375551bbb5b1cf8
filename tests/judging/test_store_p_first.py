"""The store keeps each answer's p(first) (``NULL`` when the judge gives none); a store made before the column
existed gets it when opened, its answers kept without a probability."""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import given, settings

from ir_pref_measures.judging import Answer, Pair, Store
from ir_pref_measures.judging.database import Database
from ir_pref_measures.judging.store import SCHEMA


def test_a_store_made_before_p_first_gets_the_column_and_keeps_its_answers(store_location):
    old = Database(store_location)
    with old.transaction():
        for statement in SCHEMA:
            old.execute(statement.replace("p_first REAL, ", ""))
        old.execute("INSERT INTO requests (query_id, first, second, round, judge, asked_by, asked_at) "
                    "VALUES ('q', 'a', 'b', 0, 'llm', '', 0)")  # fmt: skip
        old.execute(
            "INSERT INTO answers (request_id, query_id, first, second, judge, model, prompt_hash, sample, answer, "
            "raw, reason, tokens_in, tokens_out, latency, answered_at, assessor, failure) "
            "VALUES (1, 'q', 'a', 'b', 'llm', 'm', 'h', 0, 'first', '1', '', 0, 0, 0, 0, '', '')"
        )
    assert "p_first" not in old.columns("answers")
    old.close()
    with Store(store_location) as store:
        assert [(a.answer.answer, a.answer.p_first) for a in store.answers()] == [("first", None)]
        store.record([(1, Answer(Pair("q", "b", "a"), "second", "llm", model="m", prompt_hash="h", p_first=0.25))])
        assert [a.answer.p_first for a in store.answers()] == [None, 0.25]
    with Store(store_location) as store:  # opened again: nothing more to do
        assert [a.answer.p_first for a in store.answers()] == [None, 0.25]


@settings(max_examples=25, deadline=None)
@given(st.one_of(st.none(), st.floats(0.0, 1.0)))
def test_p_first_is_stored_as_given(tmp_path_factory, p):
    with Store(tmp_path_factory.mktemp("p") / "effort.sqlite") as store:
        (request,) = store.ask([Pair("q", "a", "b")], [0], "llm")
        store.record([(request.id, Answer(Pair("q", "a", "b"), "first", "llm", p_first=p))])
        assert store.answers()[0].answer.p_first == p
