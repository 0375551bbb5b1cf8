"""The catalog's measures between two runs (the compare API; ``pref_eval``'s names): the RPP family, the
lexicographic measures, differences of a metric, and RBO (:data:`PAIRWISE`, read through
:mod:`~ir_pref_measures.measures.catalog`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ir_pref_measures.measures import pairwise as between

CITE_RPP = "F. Diaz, A. Ferraro. Offline Retrieval Evaluation Without Evaluation Metrics. SIGIR 2022."
CITE_LP = (
    "F. Diaz. Best-Case Retrieval Evaluation: Improving the Sensitivity of Reciprocal Rank with Lexicographic "
    "Precision. EVIA 2023."
)
CITE_LR = "F. Diaz, M. D. Ekstrand, B. Mitra. Recall, Robustness, and Lexicographic Evaluation. ACM TORS 2025."
CITE_RBO = "M. Corsi, J. Urbano. The treatment of ties in rank-biased overlap. SIGIR 2024."


@dataclass(frozen=True, eq=False)  # one object per measure: equal when the same
class PairwiseSpec:
    """A measure of two runs on one query, named as ``pref_eval`` names it: ``NAME[_VARIANT...][@A[,B]]``.
    ``kind``: ``preference`` (run i vs run j, antisymmetric), ``difference`` (M(run i) − M(run j), M computed by
    ``kernel(positions, grades, starts, measure)``, ``grades`` those of the docs at the positions) or ``similarity``
    (symmetric). ``at``: the parameters written after ``@``, in order; ``variants``: those written as ``_suffixes``;
    ``needs``: those that must be given; ``zero_is_none``: a cutoff of 0 means none (pref_eval's ``rbp@g,0``)."""

    name: str
    kind: str
    definition: str
    citation: str
    aliases: tuple[str, ...] = ()
    at: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    defaults: dict = field(default_factory=dict)
    kernel: Callable | None = None
    zero_is_none: bool = False


def _preference(name, definition, citation, aliases=()) -> PairwiseSpec:
    return PairwiseSpec(name, "preference", definition, citation, aliases)


def _difference(name, definition, kernel, at=("cutoff",), **more) -> PairwiseSpec:
    return PairwiseSpec(name, "difference", definition, "pref_eval (F. Diaz)", at=at, kernel=kernel, **more)


_PAIRWISE = [
    _preference("rpp", "Σ_k sgn(p_k, q_k) / m: recall-paired preference", CITE_RPP),
    _preference("invrpp", "RPP with weights ∝ 1/k", CITE_RPP),
    _preference("dcgrpp", "RPP with weights ∝ 1/log2(k+1)", CITE_RPP),
    _preference("lexirecall", "sgn at the last k where p and q differ", CITE_LR, ("LR", "sgnLR")),
    _preference("lexiprecision", "sgn at the first k where p and q differ", CITE_LP, ("sgnLP",)),
    _preference("rrlexiprecision", "1/p_k − 1/q_k at the first k where p and q differ", CITE_LP, ("rrLP",)),
    _difference("ap", "average precision", lambda p, g, s, m: between.average_precision(p, s, m.cutoff)),
    _difference(
        "rbp",
        "rank-biased precision, binary gain, no residual (persistence 0.5 by default)",
        lambda p, g, s, m: between.rank_biased_precision(p, s, m.persistence, m.cutoff),
        at=("persistence", "cutoff"),
        defaults={"persistence": 0.5},
        zero_is_none=True,
    ),
    _difference("rr", "reciprocal rank", lambda p, g, s, m: between.reciprocal_rank(p, s, m.cutoff)),
    _difference("ndcg", "nDCG, the grade as gain", lambda p, g, s, m: between.ndcg(p, g, s, m.cutoff)),
    _difference("rp", "R-precision", lambda p, g, s, m: between.r_precision(p, s), at=()),
    _difference("p", "precision at k", lambda p, g, s, m: between.precision(p, s, m.cutoff), needs=("cutoff",)),
    _difference("r", "recall at k", lambda p, g, s, m: between.recall(p, s, m.cutoff), needs=("cutoff",)),
    PairwiseSpec(
        "rbo",
        "similarity",
        "tie-aware rank-biased overlap of the two runs",
        CITE_RBO,
        at=("persistence", "depth"),
        variants=("ties", "score"),
        defaults={"persistence": 0.9, "ties": "a", "score": "ext"},
    ),
]
PAIRWISE: dict[str, PairwiseSpec] = {spec.name: spec for spec in _PAIRWISE}
"""The measures between two runs (:func:`ir_pref_measures.comparison.pairwise.compare`), by name."""
PAIRWISE_ALIASES: dict[str, str] = {alias: spec.name for spec in _PAIRWISE for alias in spec.aliases}
DEFAULT_PAIRWISE = (*(s.name for s in _PAIRWISE if s.kind == "preference"), "ap", "rbp", "rr", "ndcg", "rp")
DEFAULT_PAIRWISE += ("p@1", "p@10", "r@1", "r@10")
"""pref_eval's default measures, in its output order."""
