"""Export a judging store to the judgment formats the package reads.

The combined formats hold one line per answered question, its answers combined by the effort's rule
(:mod:`~ir_pref_measures.judging.rules`), in query, round and asking order:

==========  ===========================================================================================
carterette  ``qid a b -1`` (a preferred; a and b as shown), ``qid a b 0`` (a tie), ``qid a NA -2`` (a bad)
winner      ``qid a b winner``; a bad mark is a win of the other doc; a tie cannot be written
pairs       ``qid winner loser``; likewise
log         Clarke's judging log: ``@ qid winner loser !``, ``@ qid a b =`` (a tie), ``@ qid a b ?`` (no usable
            answer); a bad mark is a win of the other doc
shown       every answer, not combined, in the order shown (``carterette`` lines, the doc shown first listed
            first), for position bias (``ir-pref-measures judges``); an ``unusable`` answer cannot be written
soft        ``qid a b P``: the soft preference P(a > b) of a question asked both ways whose answers carry p(first)
            (:mod:`~ir_pref_measures.judging.judges.confidence`), six decimals; a question without it cannot be written
==========  ===========================================================================================

What a format cannot state is left out with a warning that counts it; nothing is dropped silently. ``log`` and
``carterette`` keep every verdict (ties included), so they are the formats to evaluate; ``winner`` and ``pairs``
drop the ties, which the closure of the measures would use. With ``consistent``, the verdicts that contradict an
order fitted to each query's verdicts are left out (:func:`consistent_verdicts`), with a warning that counts them.

Given the documents' texts, ``log`` writes as Arabzadeh and Clarke's ``judge.py`` does
(:func:`~ir_pref_measures.judging.judges.presets.clarke_line`): a tie with the shorter text first (the second doc first
when the lengths are equal), a question without a usable answer with the doc whose text is present first. An
``order`` (a key of each question) replaces the query, round and asking order: the ``list`` selector's list order.
With a tie ``band``, a question whose answers carry p(first) in both orders has the verdict of its soft preference
(:func:`~ir_pref_measures.judging.judges.confidence.soft_outcome`) rather than of the rule.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Callable, Collection

from ir_pref_measures.errors import InputError, user_stacklevel
from ir_pref_measures.judging.judges.confidence import orders_p_first, soft_outcome, soft_preference
from ir_pref_measures.judging.judges.presets import clarke_line
from ir_pref_measures.judging.protocol import Pair
from ir_pref_measures.judging.rules import DEFAULT_RULE, Verdict, combine_answers
from ir_pref_measures.judging.store import Store
from ir_pref_measures.judging.texts import Texts

FORMATS = ("carterette", "winner", "pairs", "log", "shown", "soft")


def verdicts(
    store: Store, rule: str = DEFAULT_RULE, excluded: Collection[str] = (), band: float | None = None
) -> list[Verdict]:
    """The verdict of every answered request of ``store`` under ``rule``, by query, round and asking order; the
    answers of the ``excluded`` assessors left out; with a tie ``band``, a question with p(first) in both orders has
    the verdict of its P(a > b) (:func:`~ir_pref_measures.judging.judges.confidence.soft_outcome`)."""
    answers = defaultdict(list)
    for row in store.answers():
        if row.answer.assessor not in excluded:
            answers[row.request_id].append(row.answer)
    found = []
    for r in store.requests():
        if r.id not in answers:
            continue
        soft = orders_p_first(r.pair, answers[r.id]) if band is not None else None
        if soft is not None and band is not None:
            found.append(Verdict(r.pair, soft_outcome(*soft, band), r.round))
        else:
            found.append(combine_answers(r.pair, answers[r.id], rule, r.round))
    return found


def soft_lines(store: Store, order: Callable[[Pair], int] | None = None) -> list[str | None]:
    """The ``soft`` lines ``qid a b P`` (P(a > b), six decimals) of every answered request (``None`` for those
    without p(first) in both orders), by query, round and asking order, or by ``order`` of the pair."""
    answers = defaultdict(list)
    for row in store.answers():
        answers[row.request_id].append(row.answer)
    requests = [r for r in store.requests() if r.id in answers]
    if order is not None:
        requests.sort(key=lambda r: order(r.pair))
    lines: list[str | None] = []
    for r in requests:
        soft = orders_p_first(r.pair, answers[r.id])
        q, a, b = r.pair.query_id, r.pair.first, r.pair.second
        lines.append(None if soft is None else f"{q} {a} {b} {soft_preference(*soft):.6f}")
    return lines


def _combined_line(verdict: Verdict, format: str) -> str | None:
    q, a, b, outcome = verdict.pair.query_id, verdict.pair.first, verdict.pair.second, verdict.outcome
    winner = verdict.winner()
    loser = b if winner == a else a
    if format == "log":
        if winner is not None:
            return f"@ {q} {winner} {loser} !"
        return f"@ {q} {a} {b} {'=' if outcome == 'tie' else '?'}"
    if outcome is None:
        return None
    if format == "carterette":
        if outcome in ("bad-first", "bad-second"):
            return f"{q} {loser} NA -2"
        return f"{q} {a} {b} {0 if outcome == 'tie' else -1 if winner == a else 1}"
    if winner is None:
        return None
    return f"{q} {a} {b} {winner}" if format == "winner" else f"{q} {winner} {loser}"


# a verdict's outcome as presets.clarke_line's verdict: a bad mark is a win of the other doc
CLARKE_VERDICTS = {"first": "first", "second": "second", "bad-second": "first", "bad-first": "second", "tie": "tie"}


def _clarke_line(verdict: Verdict, texts: Texts) -> str:
    """``judge.py``'s ``@`` line of ``verdict``, ties and unusable questions ordered by the ``texts``."""
    return clarke_line(verdict.pair, CLARKE_VERDICTS.get(verdict.outcome or "", "unusable"), texts)


def _shown_line(answer) -> str | None:
    q, a, b = answer.pair.query_id, answer.pair.first, answer.pair.second
    code = {"first": -1, "second": 1, "tie": 0}.get(answer.answer)
    if code is not None:
        return f"{q} {a} {b} {code}"
    if answer.answer == "bad-first":
        return f"{q} {a} NA -2"
    return f"{q} {b} NA -2" if answer.answer == "bad-second" else None


def consistent_verdicts(rows: list[Verdict], format: str) -> list[Verdict]:
    """The verdicts of ``rows`` that agree with an order fitted to each query's verdicts (majority per pair, tied
    docs in one class, Greedy FAS order of the classes: :mod:`ir_pref_measures.measures.consistent`), read as
    ``format`` states them (a bad mark: a bad doc in ``carterette``, a win of the other doc elsewhere), with a
    warning that counts the others; a verdict without outcome is kept."""
    import pandas as pd

    from ir_pref_measures.loading.consistent import consistent_mask

    stated = [(i, _preference_row(v, bad=format == "carterette")) for i, v in enumerate(rows)]
    stated = [(i, row) for i, row in stated if row is not None]
    table = pd.DataFrame([row for _, row in stated], columns=["query_id", "doc_id_a", "doc_id_b", "preference"])
    keep = [True] * len(rows)
    if len(table):
        for (i, _), kept in zip(stated, consistent_mask(table).tolist(), strict=True):
            keep[i] = kept
    left_out = keep.count(False)
    if left_out:
        warnings.warn(
            f"{left_out} of {len(stated)} verdicts contradict the order fitted to their query's verdicts "
            f"(outvoted, or against the Greedy FAS order): left out",
            stacklevel=3,
        )
    return [v for v, kept in zip(rows, keep, strict=True) if kept]


def _preference_row(verdict: Verdict, bad: bool) -> tuple | None:
    """A verdict as a ``carterette`` row (a bad mark as a bad doc with ``bad``, else as a win of the other doc)."""
    q, a, b, outcome = verdict.pair.query_id, verdict.pair.first, verdict.pair.second, verdict.outcome
    if outcome == "tie":
        return (q, a, b, 0)
    winner = verdict.winner()
    if winner is None:
        return None
    loser = b if winner == a else a
    if bad and outcome in ("bad-first", "bad-second"):
        return (q, loser, "NA", -2)
    return (q, winner, loser, -1)


def export_lines(
    store: Store,
    format: str,
    rule: str = DEFAULT_RULE,
    consistent: bool = False,
    excluded: Collection[str] = (),
    *,
    order: Callable[[Pair], int] | None = None,
    texts: Texts | None = None,
    band: float | None = None,
) -> list[str]:
    """The lines (with newlines) of ``store`` in ``format`` (module docstring), combining by ``rule``; with
    ``consistent``, only the verdicts that agree with an order fitted to them (:func:`consistent_verdicts`), whose
    transitive closure prefers no pair both ways; the answers of the ``excluded`` assessors left out; the questions
    sorted by ``order``; ``log`` lines with ``texts`` as ``judge.py`` writes them; soft verdicts by the tie ``band``
    where the answers carry p(first)."""
    if format not in FORMATS:
        raise InputError(f"unknown export format {format!r}", expected=f"one of {', '.join(FORMATS)}")
    if format in ("shown", "soft") and consistent:
        raise InputError(
            "the shown format holds every answer, not combined: it cannot be made consistent"
            if format == "shown"
            else "the soft format holds probabilities, not verdicts: it cannot be made consistent",
            expected="a combined format (log, carterette, winner, pairs) with --consistent",
        )
    if format == "shown":
        rows = [row.answer for row in store.answers() if row.answer.assessor not in excluded]
        lines = [_shown_line(a) for a in rows]
        what = "unusable answers"
    elif format == "soft":
        lines = soft_lines(store, order)
        what = "questions without p(first) in both orders"
    else:
        combined = verdicts(store, rule, excluded, band)
        if order is not None:
            combined.sort(key=lambda verdict: order(verdict.pair))
        if consistent:
            combined = consistent_verdicts(combined, format)
        if format == "log" and texts is not None:
            lines = [_clarke_line(v, texts) for v in combined]
        else:
            lines = [_combined_line(v, format) for v in combined]
        what = "ties or questions without a usable answer"
    return _written(lines, format, what)


def verdict_lines(rows: list[Verdict], format: str, consistent: bool = False) -> list[str]:
    """The lines (with newlines) of the verdicts ``rows`` in the combined ``format`` (module docstring); with
    ``consistent``, only those that agree with an order fitted to them (:func:`consistent_verdicts`)."""
    if format not in FORMATS or format in ("shown", "soft"):
        raise InputError(f"not a combined export format: {format!r}", expected="log, carterette, winner or pairs")
    if consistent:
        rows = consistent_verdicts(rows, format)
    return _written([_combined_line(v, format) for v in rows], format, "ties or questions without a usable answer")


def _written(lines: list[str | None], format: str, what: str) -> list[str]:
    """``lines`` with newlines, those a format cannot state (``None``) left out with a warning that counts them."""
    left_out = sum(line is None for line in lines)
    if left_out:
        warnings.warn(f"the {format} format cannot state {left_out} {what}: left out", stacklevel=user_stacklevel())
    return [f"{line}\n" for line in lines if line is not None]
