"""Compatibility: RBO between a run and the ideal ranking of the relevant docs closest to it.

Clarke's ``compatibility.py``: the ideal holds the docs with a value > 0, by value descending; docs of
equal value follow their order in the run, unretrieved ones last. This ideal is the member of the
"ideal result set" (every ranking consistent with the judgments) with maximal RBO against the run. The
score is the depth-1000 RBO of run and ideal, divided by the ideal's RBO with itself (``normalize``).

Where judgments hold explicit preferences, the ideal is the Greedy PGC order of the preference graph
(:mod:`.pgc`, the same ideal for graded-only judgments), keeping only the docs not known to be
non-relevant: a graded doc needs a grade > 0, and a doc judged bad is left out.

C. L. A. Clarke, A. Vtyurina, M. D. Smucker. Assessing top-k preferences. ACM TOIS 39(3), 2021.
C. L. A. Clarke, M. D. Smucker, A. Vtyurina. Offline evaluation by maximum similarity to an ideal
ranking. CIKM 2020.
"""

from __future__ import annotations

import numpy as np

from ir_pref_measures.measures.pgc import rbo_to_ideal
from ir_pref_measures.model.judgments import Judgments


def relevant(judgments: Judgments) -> np.ndarray:
    """The docs that may enter the compatibility ideal: grade > 0, or ungraded; never a bad doc."""
    return np.where(judgments.graded, judgments.grades > 0, True) & ~judgments.bad


def compatibility(
    judgments: Judgments,
    doc_rank: np.ndarray,
    queries: np.ndarray,
    p: float = 0.95,
    depth: int = 1000,
    normalize: bool = True,
) -> np.ndarray:
    """Compatibility of one run for each query index in ``queries``: RBO with the ideal of the relevant docs."""
    return rbo_to_ideal(judgments, doc_rank, queries, p, depth, normalize, keep=relevant(judgments))
