"""Confidence of an LLM's answer from its log-probabilities, and the soft preference of a pair asked both ways.

**p(first)** of one answer: the endpoint returns, with ``logprobs`` requested (OpenAI's chat completions, vLLM and
other OpenAI-compatible servers), each generated token with its log-probability and the ``top_logprobs`` most
likely tokens at that place. The answer token is the first generated token that reads (white space stripped) as
one of the preset's two labels (``"1"`` and ``"2"``); at that place, ``p1`` and ``p2`` are the summed probabilities
(``exp`` of the log-probabilities) of the candidate tokens reading as each label, and ``p(first) = p1 / (p1 + p2)``:
the probability that the doc shown first is preferred, given that the answer is one of the two. Without such a
token (an answer in words), p(first) is unknown (``None``).

**P(a > b)** of a pair asked both ways (each order's p(first) the mean over its samples that have one):
``(p_ab + 1 - p_ba) / 2``, where ``p_ab`` is p(first) with ``a`` shown first and ``p_ba`` with ``b`` shown first
(so ``1 - p_ba`` is again the probability that ``a`` is preferred); the average cancels a constant position bias.
With a **tie band** ``band`` in ``[0, 1]``, the pair is a tie when ``|P(a > b) - 1/2| <= band / 2`` (that is
``|p_ab - p_ba| <= band``, compared within ``1e-9`` so that a value on the edge of the band in exact arithmetic is
in it), else ``a`` is preferred when ``P(a > b) > 1/2`` and ``b`` when it is below. Example: ``p_ab = 0.7``,
``p_ba = 0.6`` give ``P = 0.55``: a tie with ``band = 0.1``, ``a`` with ``band = 0.05``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ir_pref_measures.judging.protocol import Answer, Pair

EDGE = 1e-9  # the tolerance of the band's edge


def p_first(logprobs: object, labels: tuple[str, str] = ("1", "2")) -> float | None:
    """p(first) of one answer from a choice's ``logprobs`` object (``{"content": [{"token", "logprob",
    "top_logprobs": [...]}, ...]}``), the preset's ``labels`` (first, second); ``None`` without an answer token."""
    content = logprobs.get("content") if isinstance(logprobs, Mapping) else None
    if not isinstance(content, Sequence):
        return None
    for place in content:
        if not isinstance(place, Mapping) or str(place.get("token", "")).strip() not in labels:
            continue
        candidates = place.get("top_logprobs") or [place]
        mass = dict.fromkeys(labels, 0.0)
        for candidate in candidates:
            token = str(candidate.get("token", "")).strip() if isinstance(candidate, Mapping) else ""
            logprob = candidate.get("logprob") if isinstance(candidate, Mapping) else None
            if token in mass and isinstance(logprob, int | float) and math.isfinite(logprob):
                mass[token] += math.exp(logprob)
        total = mass[labels[0]] + mass[labels[1]]
        return mass[labels[0]] / total if total > 0 else None
    return None


def soft_preference(p_ab: float, p_ba: float) -> float:
    """P(a > b) from p(first) with ``a`` shown first (``p_ab``) and with ``b`` shown first (``p_ba``)."""
    return (p_ab + 1.0 - p_ba) / 2.0


def soft_outcome(p_ab: float, p_ba: float, band: float) -> str:
    """``first`` (``a`` preferred), ``second`` or ``tie`` for the pair ``a b`` by the tie ``band`` (module
    docstring)."""
    if not 0.0 <= band <= 1.0:
        raise ValueError(f"the tie band must be in [0, 1], not {band}")
    difference = p_ab - p_ba  # 2 P(a > b) - 1
    if abs(difference) <= band + EDGE:
        return "tie"
    return "first" if difference > 0 else "second"


def orders_p_first(pair: Pair, answers: Sequence[Answer]) -> tuple[float, float] | None:
    """``(p_ab, p_ba)`` of the question ``pair`` (``a b`` as requested) from its ``answers``: the mean p(first) of
    the answers shown ``a`` first, and of those shown ``b`` first; ``None`` when an order has none."""
    found: tuple[list[float], list[float]] = ([], [])
    for answer in answers:
        if answer.p_first is not None:
            found[answer.pair.first != pair.first].append(answer.p_first)
    if not (found[0] and found[1]):
        return None
    return sum(found[0]) / len(found[0]), sum(found[1]) / len(found[1])
