"""Position bias of a pairwise judge asked each pair in both orders: position consistency and preference fairness
(L. Shi, C. Ma, W. Liang, X. Diao, W. Ma, S. Vosoughi, "Judging the judges: a systematic investigation of
position bias in pairwise comparative assessments by LLMs", 2024).

An **instance** is a pair asked both ways: its k-th answer with one doc shown first and its k-th answer with the
other shown first (k-th in the order given: one instance per sample), both usable (``first``, ``second`` or
``tie``). It is **consistent** when both answers prefer the same doc (or both say tie); **primacy-preferred** when
both chose the doc shown first (so each doc won where it was first), **recency-preferred** when both chose the doc
shown second.

* **position consistency** ``PC`` = consistent instances / instances (1: the order never changes the verdict);
* **preference fairness** ``PF`` = (recency-preferred - primacy-preferred) / instances, in ``[-1, 1]``: 0 when the
  inconsistent instances lean neither way, -1 when every instance chose the doc shown first, +1 when every one
  chose the doc shown second. Shi et al. rescale the two counts to ``[-1, 1]`` in the same sense (negative for
  primacy, positive for recency); this is the linear form of that score.

A judge that answers the truth except that, with probability ``b``, it says ``first`` whatever the docs, has
``PC = 1 - b`` on pairs of unequal docs (the order that shows the worse doc first is answered wrongly with
probability ``b``) and ``PF = -b``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

USABLE = ("first", "second", "tie")


def instances(answers: Iterable[tuple[str, str, str, str]]) -> list[tuple[str, str]]:
    """The instances of ``answers`` (``(query_id, first, second, answer)`` with the docs in the order shown), as
    ``(answer with a first, answer with b first)`` for each pair ``a < b`` (module docstring)."""
    shown: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for query_id, first, second, answer in answers:
        if answer in USABLE:
            shown[(query_id, first, second)].append(answer)
    found = []
    for (query_id, first, second), said in shown.items():
        if first < second:
            other = shown.get((query_id, second, first), [])
            found += list(zip(said, other, strict=False))
    return found


def _counts(answers) -> tuple[int, int, int, int]:
    """Instances, consistent, primacy-preferred and recency-preferred instances."""
    found = instances(answers)
    consistent = sum({"first": "second", "second": "first", "tie": "tie"}[x] == y for x, y in found)
    primacy = sum(x == y == "first" for x, y in found)
    recency = sum(x == y == "second" for x, y in found)
    return len(found), consistent, primacy, recency


def position_consistency(answers: Iterable[tuple[str, str, str, str]]) -> float:
    """``PC`` of ``answers`` (module docstring); NaN without an instance."""
    n, consistent, _, _ = _counts(answers)
    return consistent / n if n else float("nan")


def preference_fairness(answers: Iterable[tuple[str, str, str, str]]) -> float:
    """``PF`` of ``answers`` (module docstring); NaN without an instance."""
    n, _, primacy, recency = _counts(answers)
    return (recency - primacy) / n if n else float("nan")
