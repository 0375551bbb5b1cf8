"""Prompt presets of the LLM judge: the prompt, how an answer is read, the orders asked and the declared rule that
combines the answers of one pair into a verdict; and the formatter of Clarke's judging log.

A template is a user message with ``{query}``, ``{first}`` and ``{second}`` (the query's text and the documents in
the order shown) and optionally ``{description}`` and ``{narrative}`` (TREC topics); a literal brace is written
twice. The default preset, ``arabzadeh-clarke``, is the prompt, system message, answer reading and combination rule
of ``Pref/judge.py`` (N. Arabzadeh and C. L. A. Clarke, SIGIR 2025), with which GPT-4o judged the TREC DL passage
tracks. A **combination rule** is a named function from the answers of one pair (every order and sample) to the
pair's verdict: ``first`` or ``second`` (that document of the pair as requested is preferred), ``tie``,
``unusable`` (no answer could be read) or ``missing`` (a text was missing, nothing was asked).
"""

from __future__ import annotations

import hashlib
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ir_pref_measures.judging.protocol import Answer, Pair
from ir_pref_measures.judging.texts import MISSING, QueryText, Texts

VERDICTS = ("first", "second", "tie", "unusable", "missing")
FIELDS = ("query", "first", "second", "description", "narrative")
REQUIRED = ("query", "first", "second")

ARABZADEH_CLARKE_SYSTEM = "\nYou are a highly experienced and accurate assessor for TREC.\n"
ARABZADEH_CLARKE_TEMPLATE = (
    "\nSelect the passage that answers the question better. Just answer 1 or 2, without any explanation or extra "
    "verbiage.  If both passages are similar, select the simplest and clearest.\nQuestion:\n{query}\nPassage 1:\n"
    "{first}\nPassage 2:\n{second}\n"
)
NARRATIVE_TEMPLATE = (
    "Select the passage that answers the question better. Just answer 1 or 2, without any explanation or extra "
    "verbiage. If both passages are similar, select the simplest and clearest.\nQuestion:\n{query}\nDescription:\n"
    "{description}\nNarrative:\n{narrative}\nPassage 1:\n{first}\nPassage 2:\n{second}\n"
)


def read_one_or_two(raw: str) -> str:
    """``judge.py``'s reading of a response (line breaks read as spaces): it says ``Passage 1`` -> ``first``;
    else ``Passage 2`` -> ``second``; else it has a ``1`` and no ``2`` -> ``first``; a ``2`` and no ``1`` ->
    ``second``; else ``unusable``."""
    text = raw.replace("\n", " ")
    if "Passage 1" in text:
        return "first"
    if "Passage 2" in text:
        return "second"
    if "1" in text and "2" not in text:
        return "first"
    if "2" in text and "1" not in text:
        return "second"
    return "unusable"


def _votes(pair: Pair, answers: Sequence[Answer]) -> tuple[np.ndarray, np.ndarray]:
    """Each answer as a vote for the pair's first document as requested (+1, -1 for the second, 0 for neither),
    and whether it was asked in the requested order (``True``) or swapped."""
    shown_as_requested = np.array([a.pair.first == pair.first for a in answers], dtype=bool)
    said = np.array([{"first": 1, "second": -1}.get(a.answer, 0) for a in answers], dtype=np.int64)
    return np.where(shown_as_requested, said, -said), shown_as_requested


def arabzadeh_clarke(pair: Pair, answers: Sequence[Answer]) -> str:
    """``judge.py``'s rule: x, the reading of the requested order, and y, that of the swapped order (each the sign
    of its samples' votes when asked more than once); both agree -> that document; one unusable -> the other
    decides; they disagree, or both are unusable -> ``tie``. A missing text -> ``missing``."""
    if any(a.reason.startswith(MISSING) for a in answers):
        return "missing"
    votes, requested = _votes(pair, answers)
    x, y = int(np.sign(votes[requested].sum())), int(np.sign(votes[~requested].sum()))
    decided = y if x == 0 else x if y == 0 else x if x == y else 0
    return {1: "first", -1: "second", 0: "tie"}[decided]


def majority(pair: Pair, answers: Sequence[Answer]) -> str:
    """The document with more votes over every order and sample (a ``tie`` answer votes for neither); equal
    votes -> ``tie``; no answer read -> ``unusable``; a missing text -> ``missing``."""
    if any(a.reason.startswith(MISSING) for a in answers):
        return "missing"
    if not any(a.answer in ("first", "second", "tie") for a in answers):
        return "unusable"
    decided = int(np.sign(_votes(pair, answers)[0].sum()))
    return {1: "first", -1: "second", 0: "tie"}[decided]


RULES: dict[str, Callable[[Pair, Sequence[Answer]], str]] = {
    "arabzadeh-clarke": arabzadeh_clarke,
    "majority": majority,
}


@dataclass(frozen=True)
class Preset:
    """A prompt (``template`` as the user message, ``system`` as the system message unless empty), the reading
    of a response (``read``: raw text -> ``first``, ``second``, ``tie`` or ``unusable``), whether each pair is asked
    in both orders, the combination ``rule`` (a name of :data:`RULES`), and the answer tokens ``labels`` naming the
    doc shown first and second (read for p(first): :mod:`ir_pref_measures.judging.judges.confidence`)."""

    name: str
    template: str
    system: str = ""
    rule: str = "majority"
    both_orders: bool = True
    read: Callable[[str], str] = field(default=read_one_or_two, compare=False)
    labels: tuple[str, str] = ("1", "2")  # the answer tokens naming the first and the second doc (p(first))

    def __post_init__(self) -> None:
        names = {name for _, name, _, _ in string.Formatter().parse(self.template) if name is not None}
        unknown = sorted(names - set(FIELDS))
        absent = [name for name in REQUIRED if name not in names]
        if unknown or absent:
            raise ValueError(
                f"prompt template of preset {self.name!r}: "
                + "; ".join(
                    ([f"unknown field(s) {', '.join('{' + n + '}' for n in unknown)}"] if unknown else [])
                    + ([f"missing {', '.join('{' + n + '}' for n in absent)}"] if absent else [])
                )
                + f" (fields: {', '.join('{' + n + '}' for n in FIELDS)}; write a literal brace twice)"
            )
        if self.rule not in RULES:
            raise ValueError(f"unknown combination rule {self.rule!r}; known: {', '.join(RULES)}")

    @property
    def prompt_hash(self) -> str:
        """The first 16 hex digits of the SHA-256 of the system message and the template (the stored prompt id)."""
        return hashlib.sha256(f"{self.system}\0{self.template}".encode()).hexdigest()[:16]

    def messages(self, query: QueryText, first: str, second: str) -> list[dict[str, str]]:
        """The chat messages asking about ``first`` and ``second`` in that order."""
        user = self.template.format(
            query=query.title, first=first, second=second, description=query.description, narrative=query.narrative
        )
        return ([{"role": "system", "content": self.system}] if self.system else []) + [
            {"role": "user", "content": user}
        ]

    def orders(self, pair: Pair) -> tuple[Pair, ...]:
        """The pair as asked: as requested, then swapped when the preset asks both orders."""
        return (pair, pair.swapped()) if self.both_orders else (pair,)

    def verdict(self, pair: Pair, answers: Sequence[Answer]) -> str:
        """The combination rule applied to the answers of ``pair`` (one of :data:`VERDICTS`)."""
        return RULES[self.rule](pair, answers)


PRESETS = {
    "arabzadeh-clarke": Preset(
        "arabzadeh-clarke", ARABZADEH_CLARKE_TEMPLATE, ARABZADEH_CLARKE_SYSTEM, rule="arabzadeh-clarke"
    ),
    "narrative": Preset("narrative", NARRATIVE_TEMPLATE, ARABZADEH_CLARKE_SYSTEM, rule="majority"),
}


def preset(name_or_template: str | Preset, *, system: str = "", rule: str = "majority") -> Preset:
    """A preset by name (:data:`PRESETS`), or a user template (any text with ``{query}``, ``{first}`` and
    ``{second}``) with a ``system`` message and a combination ``rule``."""
    if isinstance(name_or_template, Preset):
        return name_or_template
    if name_or_template in PRESETS:
        return PRESETS[name_or_template]
    if "{" not in name_or_template:
        raise ValueError(f"unknown preset {name_or_template!r}; known: {', '.join(PRESETS)} (or a template)")
    return Preset("custom", name_or_template, system, rule=rule)


def verdicts(pairs: Sequence[Pair], answers: Sequence[Answer], preset: Preset) -> list[str]:
    """The verdict of every pair of ``pairs`` (in that order) from the ``answers`` given to it in any order shown;
    a pair without an answer is an error (``ValueError``)."""
    by_pair: dict[tuple[str, str, str], list[Answer]] = {}
    for answer in answers:
        by_pair.setdefault(_key(answer.pair), []).append(answer)
    missing = [pair for pair in pairs if _key(pair) not in by_pair]
    if missing:
        raise ValueError(f"{len(missing)} pair(s) have no answer, the first {missing[0]}")
    return [preset.verdict(pair, by_pair[_key(pair)]) for pair in pairs]


def _key(pair: Pair) -> tuple[str, str, str]:
    a, b = sorted((pair.first, pair.second))
    return (pair.query_id, a, b)


def clarke_line(pair: Pair, verdict: str, texts: Texts) -> str:
    """Clarke's judging-log line of a verdict, as ``judge.py`` writes it: ``@ topic winner loser !``; a tie as
    ``@ topic a b =`` with the shorter text first (``b`` first when the lengths are equal); a missing or
    unusable answer as ``@ topic a b ?`` (the document whose text is present first)."""
    q, a, b = pair.query_id, pair.first, pair.second
    if verdict == "first":
        return f"@ {q} {a} {b} !"
    if verdict == "second":
        return f"@ {q} {b} {a} !"
    if verdict == "tie":
        shorter = len(texts.document(a) or "") < len(texts.document(b) or "")  # a tie was judged on both texts
        return f"@ {q} {a} {b} =" if shorter else f"@ {q} {b} {a} ="
    if verdict in ("missing", "unusable"):
        return f"@ {q} {b} {a} ?" if texts.document(a) is None and texts.document(b) is not None else f"@ {q} {a} {b} ?"
    raise ValueError(f"verdict {verdict!r} is not one of {', '.join(VERDICTS)}")


def clarke_lines(pairs: Sequence[Pair], answers: Sequence[Answer], preset: Preset, texts: Texts) -> list[str]:
    """Clarke's judging-log lines of ``pairs``, in request order, from the answers a judge gave them."""
    judged = verdicts(pairs, answers, preset)
    return [clarke_line(pair, verdict, texts) for pair, verdict in zip(pairs, judged, strict=True)]
