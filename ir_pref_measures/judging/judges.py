"""Judges that need no model: simulated from graded qrels, replayed from recorded judgments, and people through
files. Each answers a question with one :class:`~ir_pref_measures.judging.protocol.Answer`; the simulated and
replay judges draw from ``numpy.random.default_rng`` seeded by the judge's seed and the question itself (query and
both docs in the order shown, by a stable hash), so an answer does not depend on which other questions are asked
with it or on a restart, and a question asked again gets the same answer.

:data:`JUDGES` is the registry of judges by name that ``judge run`` takes (``simulated``, ``replay``, ``files``;
other modules register theirs with :func:`register_judge`): a factory ``(**options) -> Judge``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.protocol import Answer, Judge, Pair
from ir_pref_measures.judging.rules import FLIPPED
from ir_pref_measures.judging.selectors.base import stable_hash


def question_rng(seed: int, pair: Pair) -> np.random.Generator:
    """The generator of one question: seeded by ``seed`` and the stable hashes of the query and both docs."""
    return np.random.default_rng([int(seed), *(stable_hash(x) for x in (pair.query_id, pair.first, pair.second))])


def grade_order(grades: Mapping[str, Mapping[str, float]], pair: Pair) -> str:
    """The answer of graded qrels ``grades`` to ``pair``: the doc of the higher grade (``"first"`` or
    ``"second"``; an ungraded doc has grade 0), ``"tie"`` for equal grades."""
    graded = grades.get(pair.query_id, {})
    first, second = graded.get(pair.first, 0.0), graded.get(pair.second, 0.0)
    return "tie" if first == second else ("first" if first > second else "second")


class SimulatedJudge:
    """A judge that knows graded qrels ``grades`` (``{query: {doc: grade}}``; an ungraded doc has grade 0).

    Each question, with the question's generator: with probability ``tie_rate`` a tie; else with probability
    ``position_bias`` the doc shown first; else the doc of the higher grade (equal grades: a tie), replaced by
    the other doc with probability ``noise``. With ``bad_marks``, a doc graded 0 or less against a doc graded
    above 0 is marked bad instead of losing."""

    def __init__(
        self,
        grades: Mapping[str, Mapping[str, float]],
        seed: int = 0,
        noise: float = 0.0,
        tie_rate: float = 0.0,
        position_bias: float = 0.0,
        bad_marks: bool = False,
        name: str = "simulated",
    ) -> None:
        for label, rate in (("noise", noise), ("tie_rate", tie_rate), ("position_bias", position_bias)):
            if not 0.0 <= rate <= 1.0:
                raise InputError(f"{label} must be a probability in [0, 1], not {rate}")
        self.grades, self.seed, self.name = grades, seed, name
        self.noise, self.tie_rate, self.position_bias, self.bad_marks = noise, tie_rate, position_bias, bad_marks

    blind = "a tie"  # the answer where it knows no grade

    def knows(self, query_id: str, docs: Sequence[str]) -> bool:
        """Whether its qrels grade any of ``docs`` on ``query_id``."""
        grades = self.grades.get(query_id, {})
        return any(d in grades for d in docs)

    def answer(self, pair: Pair) -> str:
        """The answer to ``pair`` (class docstring)."""
        draws = question_rng(self.seed, pair).random(3)
        if draws[0] < self.tie_rate:
            return "tie"
        if draws[1] < self.position_bias:
            return "first"
        grades = self.grades.get(pair.query_id, {})
        first, second = grades.get(pair.first, 0.0), grades.get(pair.second, 0.0)
        answer = grade_order(self.grades, pair)
        if answer == "tie":
            return answer
        if draws[2] < self.noise:
            answer = "second" if answer == "first" else "first"
        if self.bad_marks and min(first, second) <= 0 < max(first, second):
            loser = "second" if answer == "first" else "first"
            if (grades.get(getattr(pair, loser), 0.0)) <= 0:
                return f"bad-{loser}"
        return answer

    def judge(self, pairs: Sequence[Pair]) -> list[Answer]:
        return [Answer(p, self.answer(p), self.name) for p in pairs]


class ReplayJudge:
    """A judge that replays recorded judgments ``recorded`` (``{query: {(a, b): [outcomes]}}`` with ``a < b``
    and outcomes ``"a"``, ``"b"`` or ``"tie"``), ``sim.py``'s rule (Luo, Clarke and Smucker, SIGIR 2021): one
    recorded judgment of the pair drawn at random, a fair coin where the pair was never judged.

    With ``fallback`` graded qrels (``{query: {doc: grade}}``), a pair never judged gets the qrels' answer
    instead of the coin: the doc of the higher grade, a tie for equal grades (:func:`grade_order`). Recorded
    judgments of a selection process cover only the pairs that process asked; the coin makes every other pair
    noise, the qrels an answer consistent with the assessors'."""

    def __init__(
        self,
        recorded: Mapping[str, Mapping[tuple[str, str], Sequence[str]]],
        seed: int = 0,
        name: str = "replay",
        fallback: Mapping[str, Mapping[str, float]] | None = None,
    ):
        self.recorded, self.seed, self.name, self.fallback = recorded, seed, name, fallback

    blind = "a coin flip"  # the answer to a pair never recorded (without fallback qrels)

    def knows(self, query_id: str, docs: Sequence[str]) -> bool:
        """Whether it holds a recorded judgment of ``query_id``, or fallback qrels grading one of ``docs``."""
        if self.fallback is not None and any(d in self.fallback.get(query_id, {}) for d in docs):
            return True
        return bool(self.recorded.get(query_id))

    def answer(self, pair: Pair) -> str:
        a, b = sorted((pair.first, pair.second))
        outcomes = self.recorded.get(pair.query_id, {}).get((a, b))
        if not outcomes and self.fallback is not None:
            return grade_order(self.fallback, pair)
        outcomes = outcomes or ("a", "b")
        drawn = outcomes[int(question_rng(self.seed, pair).integers(len(outcomes)))]
        if drawn == "tie":
            return "tie"
        return "first" if (a if drawn == "a" else b) == pair.first else "second"

    def judge(self, pairs: Sequence[Pair]) -> list[Answer]:
        return [Answer(p, self.answer(p), self.name) for p in pairs]


def read_recorded(source, format: str | None = None) -> dict[str, dict[tuple[str, str], list[str]]]:
    """Recorded preference judgments (a file named as every judgment source, ``FORMAT:PATH``, a judging log, or a
    table, in any preference format the package reads) as
    :class:`ReplayJudge` wants them: per query and unordered pair ``(a, b)``, ``a < b``, the outcomes in file
    order. Bad marks (carterette ``-2`` / ``2``) name one doc only: they are no pair judgment and are left out."""
    from ir_pref_measures.loading.sources import preference_rows
    from ir_pref_measures.parsing.preferences import read_preferences

    if isinstance(source, str | os.PathLike):
        frame = preference_rows(source, format)
    else:
        frame = read_preferences(source, format)
    recorded: dict[str, dict[tuple[str, str], list[str]]] = {}
    columns = (frame[c] for c in ("query_id", "doc_id_a", "doc_id_b", "preference"))
    for q, x, y, preference in zip(*columns, strict=True):
        if abs(int(preference)) == 2:
            continue
        winner = None if preference == 0 else (x if preference == -1 else y)
        a, b = sorted((str(x), str(y)))
        outcome = "tie" if winner is None else ("a" if winner == a else "b")
        recorded.setdefault(str(q), {}).setdefault((a, b), []).append(outcome)
    return recorded


class FilesJudge:
    """People through files, as ``prefj.py`` works: each call writes the questions still unanswered to
    ``requests`` (``topic first second`` lines, in the order shown) and answers those that ``judgments`` answers.

    A judgment line is ``topic a b`` (``a`` preferred, ``prefj.py``'s form) or ``topic a b X`` with ``X`` the
    preferred doc, ``=`` (a tie), ``?`` (no judgment possible) or ``bad:DOC`` (that doc is not relevant at all).
    A question not answered yet gets no answer: the run waits for it. ``assessor`` is stored with each answer."""

    def __init__(self, requests: str | os.PathLike, judgments: str | os.PathLike, assessor: str = "", name="files"):
        self.requests, self.judgments, self.assessor, self.name = requests, judgments, assessor, name

    def read(self) -> dict[tuple[str, frozenset[str]], tuple[Pair, str]]:
        """The judgments file as ``{(topic, {a, b}): (pair as written, answer)}`` (a later line wins)."""
        from ir_pref_measures.parsing.formats import fields, text_lines

        if not os.path.exists(self.judgments):
            return {}
        read = {}
        for line_no, line in text_lines(self.judgments):
            parts = fields(line)
            if len(parts) not in (3, 4) or parts[1] == parts[2]:
                raise InputError(
                    "not a judgment",
                    path=self.judgments,
                    line_no=line_no,
                    line=line,
                    expected="'topic a b' (a preferred) or 'topic a b X', X = a, b, '=', '?' or 'bad:DOC'",
                )
            topic, a, b = parts[:3]
            mark = parts[3] if len(parts) == 4 else a
            marks = {
                a: "first",
                b: "second",
                "=": "tie",
                "?": "unusable",
                f"bad:{a}": "bad-first",
                f"bad:{b}": "bad-second",
            }
            if mark not in marks:
                raise InputError(
                    f"{mark!r} is neither doc of the pair, '=', '?' nor 'bad:DOC'",
                    path=self.judgments,
                    line_no=line_no,
                    line=line,
                )
            answer = marks[mark]
            read[(topic, frozenset((a, b)))] = (Pair(topic, a, b), answer)
        return read

    def judge(self, pairs: Sequence[Pair]) -> list[Answer]:
        read = self.read()
        answers, waiting = [], []
        for pair in pairs:
            found = read.get((pair.query_id, frozenset((pair.first, pair.second))))
            if found is None:
                waiting.append(pair)
            else:
                written, answer = found
                if written != pair:  # written the other way round: the answer as the question was shown
                    answer = FLIPPED.get(answer, answer)
                answers.append(Answer(pair, answer, self.name, assessor=self.assessor))
        _replace(self.requests, "".join(f"{p.query_id} {p.first} {p.second}\n" for p in waiting))
        return answers


def _replace(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it onto ``path``: never half a file."""
    folder = os.path.dirname(os.path.abspath(path))
    with tempfile.NamedTemporaryFile("w", dir=folder, prefix=".requests.", delete=False, encoding="utf-8") as out:
        out.write(text)
    os.replace(out.name, path)


JUDGES: dict[str, Callable[..., Judge]] = {}


def register_judge(name: str, factory: Callable[..., Judge]) -> None:
    """Make ``factory(**options)`` the judge ``name`` of ``judge run``."""
    JUDGES[name] = factory


def _simulated(qrels, seed: int = 0, **rates) -> SimulatedJudge:
    from ir_pref_measures.judging.selectors.base import read_grades

    return SimulatedJudge(read_grades(qrels), seed, **rates)


def _replay(judgments, seed: int = 0, format: str | None = None, qrels=None) -> ReplayJudge:
    from ir_pref_measures.judging.selectors.base import read_grades

    return ReplayJudge(read_recorded(judgments, format), seed, fallback=None if qrels is None else read_grades(qrels))


def _llm(**options) -> Judge:
    """The LLM judge (:func:`ir_pref_measures.judging.llm.llm_judge_from_options`: ``model``, ``queries``,
    ``documents``, ...; the ``llm`` extra), imported only when asked for."""
    from ir_pref_measures.judging.llm import llm_judge_from_options

    return llm_judge_from_options(options)


register_judge("simulated", _simulated)
register_judge("replay", _replay)
register_judge("files", FilesJudge)
register_judge("llm", _llm)
