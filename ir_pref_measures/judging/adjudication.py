"""People where the LLM is unsure: the pairs of an LLM judge's effort that people should judge, and the export
that combines both.

An LLM effort's store (made by ``judge plan`` and ``judge run``) holds every answer of its judge: a pair asked in
both orders has an answer per order, a judge sampled several times one per sample. A pair is **unsure**
(:func:`unsure`) when its usable answers, read relative to the pair asked
(:func:`~ir_pref_measures.judging.combine.vote`; a bad mark counted as a preference for the other doc), do not all
give the same outcome (its two orders disagree, or its samples split: first, second or tie), or when it has answers
and none is usable. A pair never answered (a
run stopped by its budget) is not unsure: it has no answer to doubt.

:func:`adjudicated_verdicts` is the LLM effort's verdicts (by its rule) with each pair that people judged replaced
by the people's verdict (by the people's effort's rule); exported in any combined format it is the LLM's export
with those pairs replaced by the people's verdicts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection

from ir_pref_measures.judging.combine import DEFAULT_RULE, SIDES, Verdict, vote
from ir_pref_measures.judging.export import verdicts
from ir_pref_measures.judging.protocol import Pair
from ir_pref_measures.judging.selectors.adjudication import Adjudication
from ir_pref_measures.judging.store import Store


def unsure(store: Store) -> dict[str, list[Pair]]:
    """The unsure pairs of the LLM effort in ``store`` (module docstring), per query, in the order asked."""
    answers = defaultdict(list)
    for row in store.answers():
        answers[row.request_id].append(row.answer)
    out: dict[str, list[Pair]] = {}
    seen: set[tuple[str, str, str]] = set()  # the pairs listed, either way round
    for request in store.requests():
        given = answers.get(request.id)
        if not given:
            continue
        outcomes = {SIDES[v] for v in (vote(a, request.pair) for a in given) if v is not None}
        key = _key(request.pair)
        if len(outcomes) != 1 and key not in seen:
            seen.add(key)
            out.setdefault(request.pair.query_id, []).append(request.pair)
    return out


def adjudication_selector(llm_store: str) -> Adjudication:
    """The :class:`~ir_pref_measures.judging.selectors.adjudication.Adjudication` selector of the LLM effort at
    ``llm_store``."""
    with Store(llm_store) as store:
        return Adjudication(unsure(store))


def adjudicated_verdicts(
    llm: Store, people: Store, llm_rule: str = DEFAULT_RULE, rule: str = DEFAULT_RULE, excluded: Collection[str] = ()
) -> list[Verdict]:
    """The LLM effort's verdicts (by ``llm_rule``), each pair the people judged replaced by their verdict (by
    ``rule``; the answers of the ``excluded`` assessors left out), in the LLM effort's order; a pair the people
    judged that the LLM never answered comes after."""
    people_verdicts = {_key(v.pair): v for v in verdicts(people, rule, excluded)}
    out = []
    for verdict in verdicts(llm, llm_rule):
        out.append(people_verdicts.pop(_key(verdict.pair), verdict))
    return out + list(people_verdicts.values())


def _key(pair: Pair) -> tuple[str, str, str]:
    """A pair's query and docs, the smaller id first."""
    return (pair.query_id, min(pair.first, pair.second), max(pair.first, pair.second))
