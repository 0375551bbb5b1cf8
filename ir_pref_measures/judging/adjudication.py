"""People where the LLM is unsure: the pairs of an LLM judge's effort that people should judge, and the export
that combines both.

The LLM's answers come from its effort's store or from that store's ``shown`` export (``judge export --format
shown``: every answer, the doc shown first listed first; :func:`llm_answers`). A store (made by ``judge plan`` and
``judge run``) holds every answer of its judge: a pair asked in
both orders has an answer per order, a judge sampled several times one per sample. A pair is **unsure**
(:func:`unsure`) when its usable answers, read relative to the pair asked
(:func:`~ir_pref_measures.judging.rules.vote`; a bad mark counted as a preference for the other doc), do not all
give the same outcome (its two orders disagree, or its samples split: first, second or tie), or when it has answers
and none is usable. A pair never answered (a
run stopped by its budget) is not unsure: it has no answer to doubt. A ``shown`` export holds no unusable answer
and states a bad mark as one doc (``q a NA -2``: the pair is not named); those lines are left out with a warning
that counts them, so from an export the unsure pairs are those whose answers disagree.

:func:`adjudicated_verdicts` is the LLM effort's verdicts (by its rule) with each pair that people judged replaced
by the people's verdict (by the people's effort's rule; the LLM's verdicts by its effort's rule, or from an
export by the people's rule); exported in any combined format it is the LLM's export
with those pairs replaced by the people's verdicts.
"""

from __future__ import annotations

import os
import warnings
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence

from ir_pref_measures.errors import user_stacklevel
from ir_pref_measures.judging import database
from ir_pref_measures.judging.exports import verdicts
from ir_pref_measures.judging.protocol import Answer, Pair
from ir_pref_measures.judging.rules import DEFAULT_RULE, SIDES, Verdict, combine_answers, vote
from ir_pref_measures.judging.selectors.adjudication import Adjudication
from ir_pref_measures.judging.store import Store

SHOWN = {-1: "first", 1: "second", 0: "tie"}  # a shown export's value -> the answer, the first doc shown first


def llm_answers(source: str | os.PathLike) -> list[tuple[Pair, list[Answer]]]:
    """Every answered pair of an LLM effort and its answers, in the order asked: from its store (a SQLite file or
    a PostgreSQL URL) or from its ``shown`` export (module docstring)."""
    if database.probe(source) in ("store", "url"):
        with Store(source) as store:
            answers = defaultdict(list)
            for row in store.answers():
                answers[row.request_id].append(row.answer)
            return [(r.pair, answers[r.id]) for r in store.requests() if answers.get(r.id)]
    return _shown_answers(source)


def _shown_answers(path: str | os.PathLike) -> list[tuple[Pair, list[Answer]]]:
    from ir_pref_measures.parsing.preferences import read_preferences

    frame = read_preferences(path, "carterette")
    pairs: dict[tuple[str, str, str], tuple[Pair, list[Answer]]] = {}
    bad = 0
    columns = (frame["query_id"], frame["doc_id_a"], frame["doc_id_b"], frame["preference"])
    for q, a, b, value in zip(*columns, strict=True):
        shown = Pair(str(q), str(a), str(b))
        if int(value) not in SHOWN:
            bad += 1
            continue
        pairs.setdefault(_key(shown), (shown, []))[1].append(Answer(shown, SHOWN[int(value)], "llm"))
    if bad:
        warnings.warn(
            f"{bad} bad marks of the LLM's export name one doc, not a pair: left out", stacklevel=user_stacklevel()
        )
    return list(pairs.values())


def unsure(answered: Iterable[tuple[Pair, Sequence[Answer]]]) -> dict[str, list[Pair]]:
    """The unsure pairs of an LLM effort's answered pairs (:func:`llm_answers`; module docstring), per query, in
    the order asked."""
    out: dict[str, list[Pair]] = {}
    seen: set[tuple[str, str, str]] = set()  # the pairs listed, either way round
    for pair, given in answered:
        outcomes = {SIDES[v] for v in (vote(a, pair) for a in given) if v is not None}
        if len(outcomes) != 1 and _key(pair) not in seen:
            seen.add(_key(pair))
            out.setdefault(pair.query_id, []).append(pair)
    return out


def adjudication_selector(llm: str | os.PathLike) -> Adjudication:
    """The :class:`~ir_pref_measures.judging.selectors.adjudication.Adjudication` selector of the LLM effort whose
    store or ``shown`` export is ``llm``."""
    return Adjudication(unsure(llm_answers(llm)))


def llm_verdicts(source: str | os.PathLike) -> list[Verdict] | None:
    """The verdicts of the LLM effort at ``source`` by its rule, from its store; ``None`` for an export (its
    verdicts are combined by the caller's rule)."""
    if database.probe(source) not in ("store", "url"):
        return None
    with Store(source) as store:
        return verdicts(store, store.settings().get("rule", DEFAULT_RULE))


def adjudicated_verdicts(
    llm: str | os.PathLike, people: Store, rule: str = DEFAULT_RULE, excluded: Collection[str] = ()
) -> list[Verdict]:
    """The verdicts of the LLM effort whose store or ``shown`` export is ``llm`` (by its effort's rule; an
    export's by ``rule``), each pair the people judged replaced by their verdict (by ``rule``; the answers of the
    ``excluded`` assessors left out), in the LLM effort's order; a pair the people judged that the LLM never
    answered comes after."""
    found = llm_verdicts(llm)
    if found is None:
        found = [combine_answers(pair, given, rule) for pair, given in llm_answers(llm)]
    people_verdicts = {_key(v.pair): v for v in verdicts(people, rule, excluded)}
    out = [people_verdicts.pop(_key(v.pair), v) for v in found]
    return out + list(people_verdicts.values())


def _key(pair: Pair) -> tuple[str, str, str]:
    """A pair's query and docs, the smaller id first."""
    return (pair.query_id, min(pair.first, pair.second), max(pair.first, pair.second))
