"""The judging protocol: the question a judge is asked and the answer it gives.

A question is a :class:`Pair`: one query and two documents *in the order shown* (``first`` on the left, or first in
the prompt). A judge answers each question with one or more :class:`Answer` rows (an LLM judge asked in both orders
and ``k`` times per order gives ``2k``; each row keeps the order it was shown in, so position bias is measurable).
An answer is one of :data:`ANSWERS`: ``first`` / ``second`` (that document is preferred), ``tie``, ``bad-first`` /
``bad-second`` (that document is not relevant at all: every relevant document is preferred to it; Carterette et
al., SIGIR 2008), or ``unusable`` (no answer could be read, or a text was missing: ``reason`` says why, and
``failure`` names the kind: ``transport`` when no reply was received, which is no answer and is asked again).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

ANSWERS = ("first", "second", "tie", "bad-first", "bad-second", "unusable")
# kinds of failure of an unusable answer: no reply received (not an answer: asked again), a reply read as no
# answer, the prompt refused by the endpoint (a 4xx other than 401/403/404), a text missing (never asked)
FAILURES = ("transport", "content", "request", "text")


@dataclass(frozen=True)
class Pair:
    """A question: ``query_id`` and two document ids in the order shown."""

    query_id: str
    first: str
    second: str

    def swapped(self) -> Pair:
        """The same question with the other document shown first."""
        return Pair(self.query_id, self.second, self.first)


@dataclass(frozen=True)
class Answer:
    """One answer to one question as it was asked (``pair`` in the order shown), with what it cost.

    ``sample`` numbers repeated asks of the same prompt (LLMs answer the same prompt differently when asked
    again); ``prompt_hash`` identifies the prompt template; ``raw`` is the judge's text as received; ``latency`` is
    in seconds; ``assessor`` names the person for human judges; ``failure`` is the kind of failure of an
    ``unusable`` answer (``transport``: no reply received, asked again by a resumed run; ``content``: a reply that
    reads as no answer; ``request``: the prompt refused; ``text``: a text missing), empty otherwise; ``p_first`` is
    the judge's probability that the doc shown first is preferred, where it gives one (an LLM's log-probabilities:
    :mod:`ir_pref_measures.judging.judges.confidence`), else ``None``; ``attempts`` counts the HTTP requests an LLM
    judge made for it, ``cost`` is its price, and ``cached`` marks an answer taken from an answer cache (paid for
    before: cost 0)."""

    pair: Pair
    answer: str
    judge: str
    sample: int = 0
    model: str = ""
    prompt_hash: str = ""
    raw: str = ""
    reason: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    latency: float = 0.0
    assessor: str = ""
    failure: str = ""
    p_first: float | None = None
    attempts: int = 0
    cost: float = 0.0
    cached: bool = False

    def __post_init__(self) -> None:
        if self.answer not in ANSWERS:
            raise ValueError(f"answer {self.answer!r} is not one of {', '.join(ANSWERS)}")
        if self.failure and (self.failure not in FAILURES or self.answer != "unusable"):
            raise ValueError(f"failure {self.failure!r}: an unusable answer's failure is one of {', '.join(FAILURES)}")


@runtime_checkable
class Judge(Protocol):
    """Anything that answers questions: ``judge(pairs)`` returns the answers to every pair (one or more each, in
    the order of ``pairs``); ``name`` is the judge id stored with each answer."""

    name: str

    def judge(self, pairs: Sequence[Pair]) -> list[Answer]: ...
