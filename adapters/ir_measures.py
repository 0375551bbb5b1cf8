"""ir_measures glue: the preference measures as Measure objects, computed by one Provider.

Importing ``ir_pref_measures`` registers every measure below in ``ir_measures.measures.registry`` and
inserts :class:`PreferenceProvider` into ``ir_measures.DefaultPipeline.providers`` (guarded, so a second
import changes nothing). Then ``ir_measures.calc_aggregate``, ``iter_calc``, ``evaluator``,
``parse_measure`` and the ``ir-pref-measures eval`` command accept the new names, mixed with the
ordinary ones. Judgments may be graded qrels in any form ir_measures accepts (preferences are then
derived: a > b iff grade(a) > grade(b)), a preference table (``query_id, doc_id_a, doc_id_b,
preference``, values as in the ``carterette`` format) or a :class:`~ir_pref_measures.Judgments`.
"""

from __future__ import annotations

import warnings

import ir_measures
import numpy as np
from ir_measures import Metric, providers
from ir_measures.measures import base as measures_base
from ir_measures.providers.base import Any

from ir_pref_measures import sources, tables
from ir_pref_measures.errors import InputError
from ir_pref_measures.judgments import Judgments
from ir_pref_measures.measures import ppref as kernels
from ir_pref_measures.measures.compatibility import compatibility
from ir_pref_measures.measures.ideal import ideal_doc_rank
from ir_pref_measures.measures.image_grid import ORDERS, Grid, grid_pgc
from ir_pref_measures.measures.pair_counts import pair_counts
from ir_pref_measures.measures.pgc import pgc
from ir_pref_measures.rankings import Ranking

CITE_CB08 = (
    "B. Carterette, P. N. Bennett. Evaluation Measures for Preference Judgments. SIGIR 2008 (poster); "
    "B. Carterette, P. N. Bennett, O. Chapelle. A Test Collection of Preference Judgments. SIGIR 2008 "
    "Workshop on Beyond Binary Relevance."
)
CITE_TOOL = "J. Elsas. pairwise_pref_eval.py (2011), the reference implementation."

_TRANSITIVE = measures_base.ParamInfo(
    dtype=bool, default=True, desc="take the transitive closure of the preferences (the tool's default)"
)
_CUTOFF = measures_base.ParamInfo(dtype=int, required=False, desc="ranking cutoff k (default: the whole run)")

# name: (pretty name, definition, has a cutoff, extra params)
_TABLE = {
    "ppref": ("Preference precision", "correctly ordered pairs / pairs ordered at k", True, {}),
    "rpref": ("Preference recall", "correctly ordered pairs at k / all judged pairs", True, {}),
    "fpref": (
        "Preference F-measure",
        "(1 + beta^2) ppref rpref / (beta^2 ppref + rpref)",
        True,
        {"beta": measures_base.ParamInfo(dtype=(int, float), default=1.0, desc="weight of recall")},
    ),
    "wpref": (
        "Weighted preference precision (tool)",
        "sum of 1/(log2 f + 1) over correct pairs at k",
        True,
        {},
    ),
    "nwpref": ("Normalised wpref (tool)", "wpref@k / the same weights summed over ordered pairs", True, {}),
    "wppref": (
        "Weighted preference precision (paper)",
        "sum of (2^|pref| - 1)/log2(min rank + 1) over correct pairs at k (DCG analogue)",
        True,
        {},
    ),
    "nwppref": (
        "Normalised wppref (paper)",
        "wppref@k / wppref@k of the ideal ranking (NDCG analogue)",
        True,
        {},
    ),
    "rrpref": (
        "Reciprocal rank of the first correct pair",
        "1 / best rank of a correctly ordered pair",
        False,
        {},
    ),
    "pprefMax": (
        "Maximum preference precision",
        "max of ppref@r over ranks r of retrieved preferred docs",
        False,
        {},
    ),
    "rprefMax": (
        "Maximum preference recall",
        "correct pairs over the whole run / all judged pairs",
        False,
        {},
    ),
    "APpref": (
        "Average preference precision",
        "mean of ppref@r over retrieved preferred docs, rprefMax for each unretrieved one",
        False,
        {},
    ),
    "num_pref_ranked": ("Judged pairs touching the run", "pairs with at least one doc retrieved", False, {}),
    "num_pref_total": ("Judged pairs", "|P|, all judged pairs", False, {}),
    "num_preferred": ("Preferred docs", "docs that are preferred to some doc", False, {}),
    "num_preferred_unrk": (
        "Unretrieved preferred docs",
        "preferred docs the run does not retrieve",
        False,
        {},
    ),
    "num_bad": ("Bad docs", "docs judged bad", False, {}),
}


def _measure_class(name: str) -> type[measures_base.Measure]:
    pretty, definition, has_cutoff, extra = _TABLE[name]
    params = {**({"cutoff": _CUTOFF} if has_cutoff else {}), **extra, "transitive": _TRANSITIVE}
    cls = type(
        f"_{name}",
        (measures_base.Measure,),
        {
            "__name__": name,
            "__module__": __name__,
            "__qualname__": f"_{name}",
            "__doc__": f"{pretty}: {definition}.\n\n{CITE_CB08}\n{CITE_TOOL}",
            "NAME": name,
            "PRETTY_NAME": pretty,
            "SHORT_DESC": definition,
            "SUPPORTED_PARAMS": params,
        },
    )
    globals()[cls.__qualname__] = cls
    return cls


CITE_PGC = (
    "C. Luo, C. L. A. Clarke, M. D. Smucker. Evaluation measures based on preference graphs. SIGIR 2021; "
    "C. Luo. Information Retrieval Evaluation Measures Based on Preference Graphs. MMath thesis, "
    "University of Waterloo, 2021."
)
CITE_COMPAT = (
    "C. L. A. Clarke, A. Vtyurina, M. D. Smucker. Assessing top-k preferences. ACM TOIS 39(3), 2021; "
    "C. L. A. Clarke, M. D. Smucker, A. Vtyurina. Offline evaluation by maximum similarity to an ideal "
    "ranking. CIKM 2020."
)


def _rbo_params(normalize: bool) -> dict[str, measures_base.ParamInfo]:
    return {
        "p": measures_base.ParamInfo(dtype=(int, float), default=0.95, desc="RBO persistence, in (0, 1]"),
        "normalize": measures_base.ParamInfo(
            dtype=bool, default=normalize, desc="divide by the RBO of the ideal ranking with itself"
        ),
        "depth": measures_base.ParamInfo(dtype=int, default=1000, desc="RBO depth (the references use 1000)"),
    }


class _PGC(measures_base.Measure):
    __doc__ = (
        "Greedy Preference Graph Compatibility: RBO between the run and the Greedy FAS ordering of the "
        "preference multigraph that is closest to it (ties by (rank, doc id)). With ``cols``, the run is "
        "shown in a grid of that many columns and examined in ``order`` (thesis chapter 5).\n\n" + CITE_PGC
    )
    __name__ = "PGC"
    NAME = "PGC"
    PRETTY_NAME = "Preference Graph Compatibility"
    SHORT_DESC = "RBO between the run and the Greedy FAS ideal ranking of the preference graph closest to it"
    SUPPORTED_PARAMS = {
        **_rbo_params(normalize=False),
        "cols": measures_base.ParamInfo(dtype=int, required=False, desc="grid columns (image-grid variant)"),
        "order": measures_base.ParamInfo(
            dtype=str, default="middle", desc=f"grid examination order, one of {', '.join(ORDERS)}"
        ),
    }


class _Compatibility(measures_base.Measure):
    __doc__ = (
        "Compatibility (Clarke's compatibility.py): RBO at depth 1000 between the run and the ideal ranking "
        "of the docs with value > 0 closest to it, normalised by the ideal's own RBO. Unlike ir_measures' "
        "Compat, the depth is fixed and unretrieved docs always come last among equal values.\n\n" + CITE_COMPAT
    )
    __name__ = "Compatibility"
    NAME = "Compatibility"
    PRETTY_NAME = "Compatibility (compatibility.py, depth 1000)"  # not ir_measures' Compat's "Compatibility"
    SHORT_DESC = "RBO between the run and the closest ideal ranking of the relevant docs (compatibility.py)"
    SUPPORTED_PARAMS = _rbo_params(normalize=True)


MEASURE_CLASSES = {name: _measure_class(name) for name in _TABLE} | {"PGC": _PGC, "Compatibility": _Compatibility}
MEASURES = {name: cls() for name, cls in MEASURE_CLASSES.items()}


class _Evaluation:
    """One run against one judgment set: the shared inputs of every measure, and a cache for them."""

    def __init__(self, judgments: Judgments, ranking: Ranking, queries: np.ndarray):
        self.judgments, self.ranking, self.queries = judgments, ranking, queries
        self.doc_rank = ranking.rank_of(judgments.query_ids[judgments.doc_query], judgments.doc_ids)
        self.cache: dict = {}

    def cached(self, key, compute):
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]


def _ppref_values(measure, ev: _Evaluation) -> np.ndarray:
    transitive = bool(measure["transitive"])
    counts = ev.cached(("counts", transitive), lambda: pair_counts(ev.judgments, ev.doc_rank, ev.queries, transitive))
    name = measure.NAME
    if name in kernels.WHOLE_RANKING:
        return kernels.WHOLE_RANKING[name](counts)
    cutoff = measure.params.get("cutoff")
    if name == "nwppref":
        ideal = ev.cached(
            ("ideal", transitive),
            lambda: pair_counts(ev.judgments, ideal_doc_rank(ev.judgments, transitive), ev.queries, transitive),
        )
        return kernels.nwppref(counts, ideal, cutoff)
    if name == "fpref":
        return kernels.fpref(counts, cutoff, float(measure["beta"]))
    return kernels.AT_CUTOFF[name](counts, cutoff)


def _rbo_args(measure) -> dict:
    return {"p": float(measure["p"]), "depth": int(measure["depth"]), "normalize": bool(measure["normalize"])}


def _pgc_values(measure, ev: _Evaluation) -> np.ndarray:
    cols = measure.params.get("cols")
    if cols is None:
        return pgc(ev.judgments, ev.doc_rank, ev.queries, **_rbo_args(measure))
    grid = ev.cached(("grid", cols), lambda: Grid.from_ranking(ev.ranking, cols))
    return grid_pgc(ev.judgments, grid, ev.queries, measure["order"], **_rbo_args(measure))


def _compatibility_values(measure, ev: _Evaluation) -> np.ndarray:
    return compatibility(ev.judgments, ev.doc_rank, ev.queries, **_rbo_args(measure))


_FAMILY = {name: _ppref_values for name in _TABLE} | {"PGC": _pgc_values, "Compatibility": _compatibility_values}


class PreferenceEvaluator(providers.Evaluator):
    """Scores runs against one judgment set; judgments and pair sets are prepared once."""

    def __init__(self, measures, judgments: Judgments):
        super().__init__(measures, judgments.query_ids.tolist())
        self.judgments = judgments

    def _iter_calc(self, run):
        judgments = self.judgments
        ranking = sources.ranking(run)
        queries = np.flatnonzero(np.isin(judgments.query_ids, ranking.query_ids))
        if not len(queries):
            warnings.warn("the run has no query in common with the judgments", stacklevel=2)
            return
        evaluation = _Evaluation(judgments, ranking, queries)
        columns = [(measure, _FAMILY[measure.NAME](measure, evaluation)) for measure in self.measures]
        for i, query_id in enumerate(judgments.query_ids[queries].tolist()):
            for measure, values in columns:
                yield Metric(query_id=query_id, measure=measure, value=float(values[i]))


class PreferenceProvider(providers.Provider):
    """Preference-based measures of ir_pref_measures (ppref family, PGC, Compatibility)."""

    NAME = "ir_pref_measures"
    SUPPORTED_MEASURES = [cls(**{p: Any() for p in cls.SUPPORTED_PARAMS}) for cls in MEASURE_CLASSES.values()]

    def _evaluator(self, measures, qrels):
        measures = list(measures)
        for measure in measures:
            if measure.NAME not in MEASURE_CLASSES:
                raise InputError(f"unsupported measure {measure}: the ir_pref_measures provider computes {_OURS}")
            validate(measure)
        return PreferenceEvaluator(measures, sources.judgments(qrels))

    def qrel_inputs(self, measures):
        return ["query_id", "doc_id", "relevance"]


_OURS = ", ".join(MEASURE_CLASSES)


def _integer(value) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _number(value) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


# parameter -> (test, the allowed values in words)
PARAMETER_RANGES = {
    "cutoff": (lambda v: _integer(v) and v >= 1, "an integer >= 1"),
    "transitive": (lambda v: isinstance(v, bool), "True or False"),
    "normalize": (lambda v: isinstance(v, bool), "True or False"),
    "beta": (lambda v: _number(v) and 0 < v < np.inf, "a number > 0"),
    "p": (lambda v: _number(v) and 0 < v <= 1, "a number in (0, 1]"),
    "depth": (lambda v: _integer(v) and v >= 1, "an integer >= 1"),
    "cols": (lambda v: _integer(v) and v >= 1, "an integer >= 1"),
    "order": (lambda v: v in ORDERS, f"one of {', '.join(repr(o) for o in ORDERS)}"),
}


def validate(measure) -> None:
    """Raise :class:`InputError` naming ``measure`` when a parameter is unknown or outside its range (ours), or
    fails ir_measures' own check (theirs)."""
    if measure.NAME not in MEASURE_CLASSES:
        try:
            measure.validate_params()
        except (AssertionError, TypeError, ValueError) as error:
            raise InputError(f"invalid measure {measure}: {error}") from None
        return
    supported = measure.SUPPORTED_PARAMS
    unknown = [name for name in measure.params if name not in supported]
    if unknown:  # str(measure) itself fails on an unknown parameter
        written = f"{measure.NAME}({', '.join(f'{k}={v!r}' for k, v in measure.params.items())})"
        raise InputError(f"invalid measure {written}: unknown parameter {unknown[0]!r}", expected=", ".join(supported))
    for name, value in measure.params.items():
        test, allowed = PARAMETER_RANGES[name]
        if not test(value):
            meaning = supported[name].desc
            raise InputError(f"invalid measure {measure}: {name} ({meaning}) must be {allowed}, not {value!r}")
    if "order" in measure.params and "cols" not in measure.params:
        raise InputError(f"invalid measure {measure}: an examination order needs a grid (cols=...)")


def parse(text: str, others: str = ""):
    """The measure named ``text`` (ours or ir_measures'), validated; an unknown name lists the known ones (and
    ``others``, the caller's own measures)."""
    try:
        measure = ir_measures.parse_measure(text)
    except (NameError, ValueError, SyntaxError):
        known = ", ".join(sorted(measures_base.registry))
        raise InputError(
            f"unknown measure {text!r}", expected=f"one of {known} (with @k or (param=value)){others}"
        ) from None
    validate(measure)
    return measure


def register() -> PreferenceProvider:
    """Register the measures and the provider with ir_measures (idempotent)."""
    for name, measure in MEASURES.items():
        if name not in measures_base.registry:
            measures_base.register(measure)
    provider = providers.registry.get(PreferenceProvider.NAME)
    if provider is None:
        provider = PreferenceProvider()
        providers.register(provider)
    if provider not in ir_measures.DefaultPipeline.providers:
        ir_measures.DefaultPipeline.providers.insert(1, provider)
    return provider


def is_preference_measure(measure) -> bool:
    return measure.NAME in MEASURE_CLASSES


def evaluate(measures, run, *, qrels=None, judgments: Judgments | None = None) -> list[Metric]:
    """Per-query metrics of ``measures`` (ours and ir_measures'), sorted by query id, then in the order of
    ``measures``: the same list whatever the order of the input. Ours are computed on ``judgments`` (default:
    derived from ``qrels``), the others on ``qrels`` by ir_measures, which needs integer grades (pytrec_eval):
    fractional grades are an :class:`InputError` naming those measures, before anything is computed."""
    ours = [m for m in measures if is_preference_measure(m)]
    theirs = [m for m in measures if not is_preference_measure(m)]
    if theirs:
        qrels = _integer_qrels(theirs, qrels)
    metrics = []
    if ours:
        metrics += ir_measures.iter_calc(ours, judgments if judgments is not None else qrels, run)
    if theirs:
        frame = run.frame()[["query_id", "doc_id", "score"]] if isinstance(run, Ranking) else run
        metrics += ir_measures.iter_calc(theirs, qrels, frame)
    position = {measure: i for i, measure in enumerate(measures)}
    metrics.sort(key=lambda metric: (metric.query_id, position[metric.measure]))
    return metrics


def _integer_qrels(measures, qrels):
    """``qrels`` with integer grades, as pytrec_eval (ir_measures' provider of the usual measures) needs them."""
    names = ", ".join(str(m) for m in measures)
    if qrels is None:
        raise InputError(f"{names} need graded qrels, but only preference judgments were given")
    qrels = tables.qrels(qrels)
    grades = qrels["relevance"].to_numpy()
    if grades.dtype.kind == "f":
        fractional = grades != np.round(grades)
        if fractional.any():
            example = grades[np.flatnonzero(fractional)[0]]
            raise InputError(
                f"{names} need integer grades (ir_measures computes them with pytrec_eval), but a grade is {example:g}",
                expected="integer grades, or only preference measures (ppref@k, APpref, PGC, ...), which take any",
            )
        qrels = qrels.assign(relevance=grades.astype(np.int64))
    return qrels
