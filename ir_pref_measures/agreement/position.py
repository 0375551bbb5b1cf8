"""Position bias of a pairwise judge asked each pair in both orders: position consistency and preference fairness,
as Shi et al. define and compute them.

L. Shi, C. Ma, W. Liang, X. Diao, W. Ma, S. Vosoughi, "Judging the judges: a systematic investigation of position
bias in pairwise comparative assessments by LLMs", 2024; their code:
``calculate_positional_consistency_and_preference_score`` of github.com/Slimshilin/Position-Bias-Analyzer.

An **instance** is a pair asked both ways: its k-th answer with one doc shown first and its k-th answer with the
other shown first (k-th in the order given: one instance per sample). An answer ``first``, ``second`` or ``tie`` is
a verdict (Shi et al.'s ``A``, ``B``, ``C``); any other answer (``unusable``, ``bad-first``, ``bad-second``) none
(their ``N``, no choice extracted). An instance with a verdict in both orders is

* **consistent** when both prefer the same doc or both say tie (``AB``, ``BA``, ``CC``);
* **primacy-preferred** when the doc shown first wins at least once and the other answer does not contradict it:
  both chose the doc shown first, or one did and the other said tie (``AA``, ``AC``, ``CA``);
* **recency-preferred** likewise for the doc shown second (``BB``, ``BC``, ``CB``).

Then, with ``n`` instances (those without a verdict in an order included) and ``v`` of them with a verdict in both:

* **position consistency** ``PC`` = consistent / ``v`` (1: the order never changes the verdict);
* **preference fairness** ``PF`` = (recency-preferred - primacy-preferred) / ``n``, in ``[-1, 1]``: 0 when the
  inconsistent instances lean neither way, -1 when every instance is primacy-preferred, +1 when every one is
  recency-preferred. Shi et al. rescale the raw score ``recency * r_share - primacy * p_share`` (``r_share``,
  ``p_share``: the recency- and primacy-preferred shares of the inconsistent instances), which equals
  ``recency - primacy``, from its range ``[-n, n]`` (every instance primacy-, or recency-preferred: ``PC = 0``)
  to ``[-1, 1]``: ``PF`` above. Their code takes the range per judge and task; here it is that of the instances
  given (group the answers to score a part).

A judge that answers the truth except that, with probability ``b``, it says ``first`` whatever the docs, has
``PC = 1 - b`` on pairs of unequal docs (the order that shows the worse doc first is answered wrongly with
probability ``b``) and ``PF = -b``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

VERDICTS = ("first", "second", "tie")
CONSISTENT = {("first", "second"), ("second", "first"), ("tie", "tie")}
PRIMACY = {("first", "first"), ("first", "tie"), ("tie", "first")}
RECENCY = {("second", "second"), ("second", "tie"), ("tie", "second")}


def instances(answers: Iterable[tuple[str, str, str, str]]) -> list[tuple[str, str]]:
    """The instances of ``answers`` (``(query_id, first, second, answer)`` with the docs in the order shown), as
    ``(answer with a first, answer with b first)`` for each pair ``a < b`` (module docstring)."""
    shown: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for query_id, first, second, answer in answers:
        shown[(query_id, first, second)].append(answer)
    found = []
    for (query_id, first, second), said in shown.items():
        if first < second:
            other = shown.get((query_id, second, first), [])
            found += list(zip(said, other, strict=False))
    return found


def _counts(answers) -> tuple[int, int, int, int, int]:
    """Instances, instances with a verdict in both orders, consistent, primacy- and recency-preferred ones."""
    found = instances(answers)
    verdicts = sum(x in VERDICTS and y in VERDICTS for x, y in found)
    consistent = sum(pair in CONSISTENT for pair in found)
    primacy = sum(pair in PRIMACY for pair in found)
    recency = sum(pair in RECENCY for pair in found)
    return len(found), verdicts, consistent, primacy, recency


def position_consistency(answers: Iterable[tuple[str, str, str, str]]) -> float:
    """``PC`` of ``answers`` (module docstring); NaN without an instance that has a verdict in both orders."""
    _, verdicts, consistent, _, _ = _counts(answers)
    return consistent / verdicts if verdicts else float("nan")


def preference_fairness(answers: Iterable[tuple[str, str, str, str]]) -> float:
    """``PF`` of ``answers`` (module docstring); NaN without an instance."""
    n, _, _, primacy, recency = _counts(answers)
    return (recency - primacy) / n if n else float("nan")
