"""Checks of runs that catch silently wrong numbers: a run of another collection or query set (none of its retrieved
documents judged), runs of different depths (recall-oriented measures favour the deeper ones). One rule for every
command and the API: each is a warning naming the runs; the depth warning advises ``topk`` (``--topk``)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np

from ir_pref_measures.errors import user_stacklevel
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.rankings import Ranking

UNJUDGED_SHARE = 0.5  # warn when at least this share of the judged queries has no judged doc retrieved


def judged_ranks(ranking: Ranking, judgments: Judgments) -> np.ndarray:
    """The rank (float) in ``ranking`` of every judged document of ``judgments``, in its order; ``inf`` where the run
    does not retrieve it. The queries are looked up once each, not once per document."""
    return ranking.rank_in(ranking.query_index(judgments.query_ids)[judgments.doc_query], judgments.doc_text)


def covered(ranking: Ranking, judgments: Judgments, ranks: np.ndarray | None = None) -> np.ndarray:
    """Per judged query (of ``judgments``), whether ``ranking`` retrieves a judged document there (``ranks``: the
    :func:`judged_ranks`, when the caller has them)."""
    rank = judged_ranks(ranking, judgments) if ranks is None else ranks
    found = np.zeros(len(judgments.query_ids), dtype=bool)
    found[judgments.doc_query[np.isfinite(rank)]] = True
    return found


def unjudged_queries(ranking: Ranking, judgments: Judgments, ranks: np.ndarray | None = None) -> int:
    """The number of judged queries (of ``judgments``) on which ``ranking`` retrieves no judged document: a query
    the run lacks, or one whose retrieved documents are all unjudged."""
    return int((~covered(ranking, judgments, ranks)).sum()) if len(judgments) else 0


def warn_unjudged(name: str, ranking: Ranking, judgments: Judgments, ranks: np.ndarray | None = None) -> None:
    """A warning naming the run when at least :data:`UNJUDGED_SHARE` of the judged queries have none of its
    retrieved documents judged: its scores there are those of an empty ranking (a run of another collection,
    query set or year, or doc ids written another way). ``ranks``: the :func:`judged_ranks`, when the caller has
    them."""
    missed = unjudged_queries(ranking, judgments, ranks)
    if missed and missed >= UNJUDGED_SHARE * len(judgments):
        warnings.warn(
            f"run {name}: none of its retrieved documents is judged on {missed} of the {len(judgments)} judged "
            f"queries ({missed / len(judgments):.0%}); its scores there are those of an empty ranking "
            f"(a run of another collection or query set?)",
            stacklevel=user_stacklevel(),
        )


class DepthWarning(UserWarning):
    """The runs retrieve different numbers of documents per query."""


def depths(rankings: Mapping[str, Ranking]) -> dict[str, int]:
    """Each run's depth: the largest number of documents it retrieves for a query."""
    return {name: int(np.diff(r.offsets).max()) for name, r in rankings.items()}


def warn_depths(found: Mapping[str, int]) -> None:
    """A :class:`DepthWarning` when the runs' depths (``{name: depth}``, :func:`depths`) differ, naming them."""
    if len(set(found.values())) < 2:
        return
    listed = ", ".join(f"{name} {depth}" for name, depth in sorted(found.items(), key=lambda item: (-item[1], item[0])))
    shallow, deep = min(found.values()), max(found.values())
    warnings.warn(
        f"the runs retrieve different numbers of documents per query (at most: {listed}; {deep - shallow} more "
        f"in the deepest); recall-oriented measures (APpref, rpref, RPP, ...) favour the deeper runs: give "
        f"topk={shallow} (--topk {shallow}) to compare them at the same depth",
        DepthWarning,
        stacklevel=user_stacklevel(),
    )
