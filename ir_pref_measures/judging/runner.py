"""The judging loop: selector -> questions (stored first) -> judge -> answers (stored) -> verdicts -> selector.

Queries advance together, one round each per sweep (in query id order), so that one call of the judge gets the
questions of every query at once. A judge that streams (its ``streams`` is true, as the LLM judge's in sync mode:
:class:`~ir_pref_measures.judging.judges.stream.Stream`) is pipelined instead, unless a total budget is shared among the
queries: each query has its round in flight and asks its next round as soon as its own answers are in, so the
judge's requests in flight are those of every query and round at once and no query waits for the slowest (a total
budget keeps the sweeps, which share it in query order whatever the answers' timing). Before a question goes to the
judge it is a request row of the store; its answers are stored as they come: a judge that hands its answers back as
they arrive (it has ``prompts_of``, as the LLM judge) has each stored at once, in a transaction of its own; another
judge's answers are stored as soon as its call returns. A run is resumable: it replays the selector from the first
round, taking the verdict of every question the store has answered, and asks only the rest, so a run stopped at any
moment (Ctrl-C, ``kill -9``) and started again asks no stored question again and ends with the same store as a run
that was never stopped. A question is answered when it has an answer to each of its prompts (``prompts_of``; any
answer for a judge without it); a transport failure (no reply) is no answer: the query waits, and a resumed run asks
that prompt again.

**Budget**: an ``int`` is the total number of questions of the effort; a ``float`` in ``(0, 1]`` is a share of
each query's all-pairs cost ``n (n - 1) / 2`` (rounded up); a mapping gives each query its number. The last round
may be cut to fit.

**Asked again or reused** (``reask``): a selector may ask a pair again in a later round (``prefj.py``'s does).
By default (``reask=False``) the verdict the pair already has is reused and nothing is asked or stored; with
``reask=True`` the pair is asked again and its new answers are stored beside the earlier ones (an LLM may answer
differently).
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.protocol import Answer, Judge, Pair
from ir_pref_measures.judging.rules import DEFAULT_RULE, FLIPPED, Verdict, combine_answers
from ir_pref_measures.judging.selectors.base import Selector, all_pairs_cost
from ir_pref_measures.judging.store import TRANSPORT, Request, Store
from ir_pref_measures.progress import progress


@dataclass
class RunReport:
    """What a run did: ``asked`` (questions sent to the judge), ``answered`` (of them, answered), ``stored``
    (questions the store had answered before), ``reused`` (verdicts of a pair taken from an earlier round), the
    queries ``done`` (selector finished), cut by the
    ``budget``, or ``waiting`` for answers (people, or prompts without a reply), each query's ``history`` of
    verdicts by round, the answers ``received`` (and stored) by this run, and the prompts ``unanswered`` for a
    transport reason (asked again by a resumed run)."""

    asked: int = 0
    answered: int = 0
    stored: int = 0
    reused: int = 0
    done: list[str] = field(default_factory=list)
    budget: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    history: dict[str, list[list[Verdict]]] = field(default_factory=dict)
    received: int = 0
    unanswered: int = 0


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run; every answer received is stored, and ``report`` says what the run had done."""

    def __init__(self, report: RunReport) -> None:
        super().__init__()
        self.report = report


def budgets(selector: Selector, budget: int | float | Mapping[str, int] | None) -> tuple[dict[str, float], float]:
    """Per query and total question budgets (``inf`` where unbounded)."""
    queries = sorted(selector.pools)
    if budget is None:
        return dict.fromkeys(queries, math.inf), math.inf
    if isinstance(budget, Mapping):
        return {q: budget.get(q, 0) for q in queries}, math.inf
    if isinstance(budget, float):
        if not 0 < budget <= 1:
            raise InputError(f"a budget share must be in (0, 1], not {budget}")
        costs = all_pairs_cost(selector.pools)
        return {q: math.ceil(budget * costs[q]) for q in queries}, math.inf
    if budget < 0:
        raise InputError(f"the budget must be a number of questions >= 0, not {budget}")
    return dict.fromkeys(queries, math.inf), budget


def run(
    store: Store,
    selector: Selector,
    judge: Judge,
    *,
    budget: int | float | Mapping[str, int] | None = None,
    rule: str = DEFAULT_RULE,
    reask: bool = False,
    asked_by: str = "",
    verbose: bool = False,
) -> RunReport:
    """Judge with ``judge`` the questions ``selector`` chooses, to the ``budget``, storing everything in ``store``
    (module docstring); the answers of one question combine by ``rule``. Ctrl-C raises :class:`Interrupted`."""
    check_knowledge(judge, selector.pools)
    report = RunReport()
    try:
        return _run(store, selector, judge, budget, rule, reask, asked_by, verbose, report)
    except KeyboardInterrupt:
        raise Interrupted(report) from None


def check_knowledge(judge: Judge, pools: Mapping[str, Sequence[str]]) -> None:
    """The rule against answers from nothing, for a judge that answers from what it was given (graded qrels,
    recorded judgments: its ``knows(query_id, docs)``): an :class:`InputError` when it knows none of the queries
    with a pair to ask (every answer would be its ``blind`` answer: judgments of another collection or year), a
    warning naming how many when it knows fewer than half of them."""
    knows = getattr(judge, "knows", None)
    if knows is None:
        return
    asked = sorted(q for q, docs in pools.items() if len(set(docs)) > 1)
    unknown = [q for q in asked if not knows(q, pools[q])]
    if not unknown:
        return
    name, blind = getattr(judge, "name", "the"), judge.blind  # type: ignore[attr-defined]
    said = f"the {name} judge knows nothing of {len(unknown)} of the {len(asked)} queries to judge"
    if len(unknown) == len(asked):
        raise InputError(
            f"{said} (e.g. {', '.join(unknown[:3])}): every answer would be {blind}",
            expected="the judgments or qrels of the effort's collection and year",
        )
    if 2 * len(unknown) >= len(asked):
        warnings.warn(f"{said} (e.g. {', '.join(unknown[:3])}): its answers there are {blind}", stacklevel=2)


def _run(store, selector, judge, budget, rule, reask, asked_by, verbose, report: RunReport) -> RunReport:
    answers: dict[int, list[Answer]] = defaultdict(list)
    for row in store.answers():
        answers[row.request_id].append(row.answer)
    per_query, total = budgets(selector, budget)
    spent = dict.fromkeys(per_query, 0)
    report.history = {q: [] for q in per_query}
    active = list(per_query)
    expected = min(total, sum(per_query.values()), sum(all_pairs_cost(selector.pools).values()))
    with progress(int(expected), "judging", verbose) as bar:
        if hasattr(judge, "keep_batches_in"):
            judge.keep_batches_in(store)
        if getattr(judge, "streams", False) and math.isinf(total):
            with judge.stream() as stream:
                pipeline = _Pipeline(store, selector, judge, stream, rule, reask, asked_by, report, answers, bar)
                return pipeline.run(per_query)
        while active:
            sweep: list[tuple[str, list[Pair]]] = []
            cut: list[str] = []
            for q in active:
                left = min(per_query[q] - spent[q], total - sum(spent.values()) - sum(len(p) for _, p in sweep))
                pairs = selector.next_round(q, report.history[q]) if left > 0 else []
                if not pairs:
                    (report.done if left > 0 else report.budget).append(q)
                    continue
                if left < len(pairs):  # the budget cuts this round: the query's last
                    cut.append(q)
                sweep.append((q, pairs[: int(min(left, len(pairs)))]))
            active = [q for q, _ in sweep if q not in cut]
            if not sweep:
                break
            rounds = {q: len(report.history[q]) for q, _ in sweep}
            verdicts: dict[tuple[str, int], Verdict] = {}
            new: list[tuple[Pair, int]] = []
            for q, pairs in sweep:
                earlier = _earlier(report.history[q]) if not reask else {}
                for k, pair in enumerate(pairs):
                    key = frozenset((pair.first, pair.second))
                    if key in earlier:
                        verdicts[(q, k)] = _as_asked(earlier[key], pair, rounds[q])
                        report.reused += 1
                    else:
                        new.append((pair, rounds[q]))
            requests = store.ask([p for p, _ in new], [r for _, r in new], getattr(judge, "name", ""), asked_by)
            requested = {(r.pair, r.round): r for r in requests}
            needed = [r for r in requests if not _answered(judge, r, answers)]
            report.stored += len(requests) - len(needed)
            if needed:
                if hasattr(judge, "prompts_of"):
                    _stream(judge, needed, answers, store, report)
                else:
                    _match(needed, judge.judge([r.pair for r in needed]), answers, store)
                    report.received += sum(len(answers[r.id]) for r in needed)
                report.asked += len(needed)
                report.answered += sum(1 for r in needed if _answered(judge, r, answers))
            for q, pairs in sweep:
                spent[q] += sum(1 for p in pairs if (p, rounds[q]) in requested)
                if any(
                    not _answered(judge, requested[(p, rounds[q])], answers)
                    for p in pairs
                    if (p, rounds[q]) in requested
                ):
                    report.waiting.append(q)
                    continue
                report.history[q].append(
                    [
                        verdicts.get((q, k))
                        or combine_answers(p, answers[requested[(p, rounds[q])].id], rule, rounds[q])
                        for k, p in enumerate(pairs)
                    ]
                )
            active = [q for q in active if q not in report.waiting]
            report.budget += [q for q in cut if q not in report.waiting]
            bar.update(len(new))
    return report


def _earlier(history: Sequence[Sequence[Verdict]]) -> dict[frozenset, Verdict]:
    """The latest verdict with an outcome of each unordered pair of ``history``."""
    return {frozenset((v.pair.first, v.pair.second)): v for r in history for v in r if v.outcome is not None}


def _as_asked(verdict: Verdict, pair: Pair, round: int) -> Verdict:
    """``verdict`` restated for ``pair`` (perhaps shown the other way round) in ``round``."""
    outcome = verdict.outcome
    if outcome is not None and verdict.pair.first != pair.first:
        outcome = FLIPPED.get(outcome, outcome)
    return Verdict(pair, outcome, round)


def _answered(judge: Judge, request: Request, answers: Mapping[int, list[Answer]]) -> bool:
    """Whether ``request`` has an answer to each of its prompts (``judge.prompts_of``), or any answer."""
    got = answers.get(request.id)
    if not got or not hasattr(judge, "prompts_of"):
        return bool(got)
    have = {(a.pair, a.sample) for a in got}
    return all(prompt in have for prompt in judge.prompts_of(request.pair))


def _stream(judge, needed: Sequence[Request], answers: dict[int, list[Answer]], store: Store, report) -> None:
    """Ask ``judge`` the prompts of ``needed`` that have no answer yet, storing each answer as it arrives (one
    transaction each) and counting it in ``report`` (a prompt without a reply as ``unanswered``)."""
    by_pair = {(r.pair.query_id, frozenset((r.pair.first, r.pair.second))): r for r in needed}
    done = {(a.pair, a.sample) for r in needed for a in answers.get(r.id, ())}

    def keep(answer: Answer) -> None:
        request = by_pair.get((answer.pair.query_id, frozenset((answer.pair.first, answer.pair.second))))
        if request is None:
            raise ValueError(f"the judge answered a question it was not asked: {answer.pair}")
        store.record([(request.id, answer)])
        if answer.failure == TRANSPORT:
            report.unanswered += 1
        else:
            answers[request.id].append(answer)
            report.received += 1

    judge.judge([r.pair for r in needed], on_answer=keep, done=done)


def _match(needed: Sequence[Request], got: Sequence[Answer], answers: Mapping[int, list[Answer]], store: Store):
    """Give each answer of ``got`` to its request of ``needed`` (by query and unordered pair) and store them."""
    by_pair = {(r.pair.query_id, frozenset((r.pair.first, r.pair.second))): r for r in needed}
    rows = []
    for answer in got:
        request = by_pair.get((answer.pair.query_id, frozenset((answer.pair.first, answer.pair.second))))
        if request is None:
            raise ValueError(f"the judge answered a question it was not asked: {answer.pair}")
        rows.append((request.id, answer))
    store.record(rows)
    for request_id, answer in rows:
        if answer.failure != TRANSPORT:
            answers[request_id].append(answer)


@dataclass
class _Round:
    """A query's round being judged: ``number``, its ``pairs``, the verdicts ``reused`` (by position), the
    ``requests`` stored (by pair), those ``needed`` from the judge and the answers still ``expected``; ``last``
    when the budget cut it."""

    number: int
    pairs: list[Pair]
    last: bool
    reused: dict[int, Verdict] = field(default_factory=dict)
    requests: dict[Pair, Request] = field(default_factory=dict)
    needed: list[Request] = field(default_factory=list)
    expected: int = 0


class _Pipeline:
    """The judging loop of a judge that streams (``streams``, as the LLM judge in sync mode) under per-query budgets:
    every query has its own round in flight, and a query's next round is asked as soon as its own answers are in,
    so the judge has the questions of every query at once and none waits for the slowest. What is asked, stored
    and reported is what the sweeps of :func:`_run` ask, store and report; only the order of the rows differs."""

    def __init__(self, store, selector, judge, stream, rule, reask, asked_by, report, answers, bar) -> None:
        self.store, self.selector, self.judge, self.stream = store, selector, judge, stream
        self.rule, self.reask, self.asked_by, self.report, self.answers, self.bar = (
            rule, reask, asked_by, report, answers, bar,
        )  # fmt: skip
        self.open: dict[str, _Round] = {}
        self.asking: dict[tuple[str, frozenset], Request] = {}  # the requests in flight by query and unordered pair
        self.left: dict[str, float] = {}

    def run(self, per_query: dict[str, float]) -> RunReport:
        self.left = dict(per_query)
        for q in per_query:
            self.advance(q)
        try:
            while self.open:
                self.receive(self.stream.answers(timeout=0.5))
        except KeyboardInterrupt:  # what has arrived is stored before the run stops
            with contextlib.suppress(Exception):
                self.receive(self.stream.answers(timeout=0))
            raise
        return self.report

    def advance(self, q: str) -> None:
        """Ask ``q``'s next rounds until one needs the judge, or ``q`` is done, at its budget or waiting."""
        report = self.report
        while True:
            history = report.history[q]
            left = self.left[q]
            pairs = self.selector.next_round(q, history) if left > 0 else []
            if not pairs:
                (report.done if left > 0 else report.budget).append(q)
                return
            round = _Round(len(history), pairs[: int(min(left, len(pairs)))], left < len(pairs))
            earlier = _earlier(history) if not self.reask else {}
            new = []
            for k, pair in enumerate(round.pairs):
                verdict = earlier.get(frozenset((pair.first, pair.second)))
                if verdict is not None:
                    round.reused[k] = _as_asked(verdict, pair, round.number)
                    report.reused += 1
                else:
                    new.append(pair)
            requests = self.store.ask(new, round.number, getattr(self.judge, "name", ""), self.asked_by)
            round.requests = {r.pair: r for r in requests}
            self.left[q] -= len(requests)
            round.needed = [r for r in requests if not _answered(self.judge, r, self.answers)]
            report.stored += len(requests) - len(round.needed)
            report.asked += len(round.needed)
            self.bar.update(len(new))
            if round.needed:
                done = {(a.pair, a.sample) for r in round.needed for a in self.answers.get(r.id, ())}
                self.asking.update((_unordered(r.pair), r) for r in round.needed)
                round.expected = self.stream.submit([r.pair for r in round.needed], done)
                self.open[q] = round
                return
            if not self.settle(q, round):
                return

    def receive(self, got: Sequence[Answer]) -> None:
        """Store the answers ``got`` (one transaction) and move on each query whose round they complete."""
        rows = []
        for answer in got:
            request = self.asking.get(_unordered(answer.pair))
            if request is None:
                raise ValueError(f"the judge answered a question it was not asked: {answer.pair}")
            rows.append((request.id, answer))
        if not rows:
            return
        self.store.record(rows)
        for request_id, answer in rows:
            if answer.failure == TRANSPORT:
                self.report.unanswered += 1
            else:
                self.answers[request_id].append(answer)
                self.report.received += 1
            self.open[answer.pair.query_id].expected -= 1
        for q in sorted({answer.pair.query_id for answer in got}):
            round = self.open[q]
            if round.expected == 0:
                del self.open[q]
                for request in round.needed:
                    del self.asking[_unordered(request.pair)]
                self.report.answered += sum(1 for r in round.needed if _answered(self.judge, r, self.answers))
                if self.settle(q, round):
                    self.advance(q)

    def settle(self, q: str, round: _Round) -> bool:
        """Add ``round``'s verdicts to ``q``'s history; whether ``q`` goes on (not waiting, not at its budget)."""
        if any(not _answered(self.judge, r, self.answers) for r in round.requests.values()):
            self.report.waiting.append(q)
            return False
        self.report.history[q].append(
            [
                round.reused.get(k) or combine_answers(p, self.answers[round.requests[p].id], self.rule, round.number)
                for k, p in enumerate(round.pairs)
            ]
        )
        if round.last:
            self.report.budget.append(q)
        return not round.last


def _unordered(pair: Pair) -> tuple[str, frozenset]:
    return pair.query_id, frozenset((pair.first, pair.second))
