"""Checks of inputs against what is asked of them, before anything is computed: a run and judgments with queries
in common, and a judged document retrieved on some of them (no scores from nothing); integer grades for the
measures that pytrec_eval (ir_measures' provider) defines."""

from __future__ import annotations

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.model.coverage import covered, judged_ranks, warn_unjudged
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.model.rankings import Ranking

# the largest |grade| for pytrec_eval: it allocates per grade level (8 bytes each) up to the largest
GRADE_LIMIT = 1_000_000


def examples(ids, n: int = 3) -> str:
    """The first ``n`` of ``ids`` in string order, for a message."""
    return ", ".join(sorted(set(map(str, ids)))[:n]) or "none"


def check_overlap(ranking: Ranking, judgments: Judgments, name: str = "the run") -> None:
    """:class:`InputError` when ``ranking`` has no query in common with ``judgments`` (a wrong year or collection),
    naming a few ids of each."""
    if not len(judgments.query_ids) or (ranking.query_index(judgments.query_ids) < 0).all():
        run, judged = ranking.query_ids.astype(str), judgments.query_ids.astype(str)
        raise InputError(
            f"{name} has no query in common with the judgments (run: {len(run)} queries, e.g. {examples(run)}; "
            f"judged: {len(judged)}, e.g. {examples(judged)})"
        )


def check_judged(
    ranking: Ranking, judgments: Judgments, name: str = "the run", ranks: np.ndarray | None = None
) -> np.ndarray:
    """The rule against scores from nothing: :func:`check_overlap`, then an :class:`InputError` when ``ranking``
    retrieves no judged document on any judged query it holds (every value would be that of an empty ranking).
    ``ranks``: the :func:`~ir_pref_measures.model.coverage.judged_ranks`, when the caller has them; else they are
    looked up here. Returns them."""
    check_overlap(ranking, judgments, name)
    ranks = judged_ranks(ranking, judgments) if ranks is None else ranks
    held = ranking.query_index(judgments.query_ids) >= 0
    shared, unjudged = int(held.sum()), int((held & ~covered(ranking, judgments, ranks)).sum())
    if unjudged == shared:
        raise InputError(
            f"{name}: none of its retrieved documents is judged on 100% of queries (the {shared} judged queries it "
            f"holds): its scores would come from nothing",
            expected="the judgments of the run's collection and year (or a run of the judged documents)",
        )
    return ranks


def check_coverage(
    ranking: Ranking, judgments: Judgments, name: str, ranks: np.ndarray | None = None, label: str | None = None
) -> np.ndarray:
    """The one rule for a run of another collection, query set or year, in every interface (``eval``,
    ``experiment``, ``compare``, ``leaderboard``, ``Experiment``, ``compare()``, ``ir_measures`` calls): no scores
    from nothing (:func:`check_judged`: an :class:`InputError` when the run holds no judged query, or retrieves no
    judged document on any it holds), and a warning naming the run when it retrieves none on half of the judged
    queries or more (:func:`~ir_pref_measures.model.coverage.warn_unjudged`). ``label``: how the error names the
    run (default ``the run``); ``ranks``: as :func:`check_judged` takes them. Returns the ranks."""
    ranks = check_judged(ranking, judgments, label or "the run", ranks)
    warn_unjudged(name, ranking, judgments, ranks)
    return ranks


def check_run(ranking: Ranking, judgments: Judgments, name: str, graded=()) -> np.ndarray:
    """Every check of one run and its judgments before they are evaluated, once: integer grades for ``graded``
    (ir_measures' own measures that the engine computes, :func:`check_integer_grades`) and the rule for a run of
    another collection (:func:`check_coverage`, naming the run ``name``). Returns the rank of every judged doc
    (:func:`~ir_pref_measures.model.coverage.judged_ranks`), looked up once, for the engine."""
    check_integer_grades(graded, judgments)
    return check_coverage(ranking, judgments, name)


def need(names: list[str]) -> str:
    """``NAME needs`` or ``NAME, NAME need``: the subject and verb of a message about what measures need."""
    return f"{', '.join(names)} {'needs' if len(names) == 1 else 'need'}"


def _grade_error(names: str, doc_id, query_id, grade) -> InputError:
    return InputError(
        f"{names} integer grades between -{GRADE_LIMIT:,} and {GRADE_LIMIT:,} (ir_measures computes them "
        f"with pytrec_eval), but doc {doc_id!r} of query {query_id!r} has grade {grade!r}",
        expected="such grades, or only preference measures (ppref@k, APpref, PGC, ...), which take any",
    )


def _bad_grades(grades: np.ndarray) -> np.ndarray:
    return np.flatnonzero((grades != np.round(grades)) | (np.abs(grades) > GRADE_LIMIT))


def check_integer_grades(measures, judgments: Judgments) -> None:
    """:class:`InputError` naming ``measures`` (ir_measures' own) unless ``judgments`` hold graded docs, each with an
    integer grade within +-:data:`GRADE_LIMIT`, as pytrec_eval computes them exactly."""
    if not measures:
        return
    names = need([str(m) for m in measures])
    graded = np.flatnonzero(judgments.graded)
    if not len(graded):
        raise InputError(f"{names} graded qrels, but only preference judgments were given")
    bad = _bad_grades(judgments.grades[graded])
    if len(bad):
        doc = graded[bad[0]]
        grade = judgments.grades[doc].item()
        shown = int(grade) if grade == round(grade) else grade  # as the qrels line has it
        raise _grade_error(names, judgments.doc_ids[doc], judgments.query_ids[judgments.doc_query[doc]], shown)


def integer_qrels(measures, qrels):
    """A qrels table (any form ir_measures takes) with integer grades within +-:data:`GRADE_LIMIT`, as pytrec_eval
    (ir_measures' provider of the usual measures) computes them exactly; else :class:`InputError` naming
    ``measures``."""
    from ir_pref_measures.model import tables

    names = need([str(m) for m in measures])
    if qrels is None:
        raise InputError(f"{names} graded qrels, but only preference judgments were given")
    qrels = tables.qrels(qrels)
    grades = qrels["relevance"].to_numpy()
    if grades.dtype.kind in "fiu" and len(grades):
        bad = _bad_grades(grades)
        if len(bad):
            row = qrels.iloc[bad[0]]
            raise _grade_error(names, row["doc_id"], row["query_id"], grades[bad[0]].item())
        qrels = qrels.assign(relevance=grades.astype(np.int64))
    return qrels
