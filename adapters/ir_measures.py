"""ir_measures glue: the preference measures as Measure objects, computed by one Provider.

Importing this module registers every measure below in ``ir_measures.measures.registry`` and inserts
:class:`PreferenceProvider` into ``ir_measures.DefaultPipeline.providers`` (guarded, so a second registration
changes nothing); ``import ir_pref_measures`` has it imported as soon as ir_measures is
(:mod:`~ir_pref_measures.adapters.registration`). Then ``ir_measures.calc_aggregate``, ``iter_calc``, ``evaluator``,
``parse_measure`` and the ``ir-pref-measures eval`` command accept the new names, mixed with the
ordinary ones. Judgments may be graded qrels in any form ir_measures accepts (preferences are then
derived: a > b iff grade(a) > grade(b)), a preference table (``query_id, doc_id_a, doc_id_b,
preference``, values as in the ``carterette`` format) or a :class:`~ir_pref_measures.Judgments`.
"""

from __future__ import annotations

import warnings

import ir_measures
from ir_measures import Metric, providers
from ir_measures.measures import base as measures_base
from ir_measures.providers.base import Any

from ir_pref_measures import engine
from ir_pref_measures.errors import InputError
from ir_pref_measures.loading import sources
from ir_pref_measures.measures.catalog import SPECS, MeasureSpec
from ir_pref_measures.measures.names import check_declared, validate
from ir_pref_measures.model.coverage import judged_ranks, warn_unjudged
from ir_pref_measures.model.judgments import Judgments


def _param_info(spec: MeasureSpec, name: str) -> measures_base.ParamInfo:
    param = spec.param(name)
    default = {} if param.default is None else {"default": param.default}
    return measures_base.ParamInfo(dtype=param.dtype, desc=param.desc, **default)


def _cached_repr(measure: measures_base.Measure) -> str:
    """ir_measures' repr of a measure, made once per measure object: ir_measures hashes and compares measures
    through their repr, once per metric of a result."""
    text = measure.__dict__.get("_repr")
    if text is None:
        text = measure.__dict__["_repr"] = measures_base.Measure.__repr__(measure)
    return text


def _measure_class(spec: MeasureSpec) -> type[measures_base.Measure]:
    """The ir_measures Measure class of ``spec`` (the catalog is the one place that defines a measure)."""
    namespace = {
        "__name__": spec.name,
        "__module__": __name__,
        "__qualname__": f"_{spec.name}",
        "__doc__": f"{spec.pretty}: {spec.definition}. {spec.doc}".rstrip() + f"\n\n{spec.citation}",
        "NAME": spec.name,
        "PRETTY_NAME": spec.pretty,
        "SHORT_DESC": spec.definition,
        "SUPPORTED_PARAMS": {name: _param_info(spec, name) for name in spec.params},
        "DEFAULT": spec.missing,  # the value of a judged query the run lacks
    }
    namespace["__repr__"] = _cached_repr
    if spec.aggregate == "sum":  # trec_eval sums its counts over queries
        namespace["aggregator"] = lambda self: ir_measures.SumAgg()
    cls = type(f"_{spec.name}", (measures_base.Measure,), namespace)
    globals()[cls.__qualname__] = cls
    return cls


MEASURE_CLASSES = {name: _measure_class(spec) for name, spec in SPECS.items()}
MEASURES = {name: cls() for name, cls in MEASURE_CLASSES.items()}


class PreferenceEvaluator(providers.Evaluator):
    """Scores runs against one judgment set; judgments and pair sets are prepared once."""

    def __init__(self, measures, judgments: Judgments):
        super().__init__(measures, judgments.query_ids.tolist())
        self.judgments = judgments

    def _iter_calc(self, run):
        judgments = self.judgments
        ranking = sources.ranking(run)
        ranks = judged_ranks(ranking, judgments)
        queries, values = engine.run_query_values(self.measures, judgments, ranking, ranks)
        if not len(queries):
            warnings.warn("the run has no query in common with the judgments", stacklevel=2)
            return
        # a warning, not the refusal of the other interfaces: ir_measures' own measures in the same call score such
        # a run (0 where nothing is judged), and one call must not fail for our measures where it works for theirs
        warn_unjudged("given to ir_measures", ranking, judgments, ranks)
        for i, query_id in enumerate(judgments.query_ids[queries].tolist()):
            for measure, column in zip(self.measures, values, strict=True):
                yield Metric(query_id=query_id, measure=measure, value=float(column[i]))


class PreferenceProvider(providers.Provider):
    """Preference-based measures of ir_pref_measures (ppref family, PGC, Compatibility, trec_eval's prefs_*)."""

    NAME = "ir_pref_measures"
    SUPPORTED_MEASURES = [cls(**{p: Any() for p in cls.SUPPORTED_PARAMS}) for cls in MEASURE_CLASSES.values()]

    def _evaluator(self, measures, qrels):
        """The evaluator of ``measures`` (ours alone) on ``qrels`` (any judgment source)."""
        measures = list(measures)
        for measure in measures:
            if measure.NAME not in MEASURE_CLASSES:
                ours = ", ".join(MEASURE_CLASSES)
                raise InputError(f"unsupported measure {measure}: the ir_pref_measures provider computes {ours}")
            validate(measure)
        return PreferenceEvaluator(measures, sources.judgments(_not_a_split_string(qrels)))

    def qrel_inputs(self, measures):
        """The qrels columns the provider reads (preference tables and Judgments are taken as they are too)."""
        return ["query_id", "doc_id", "relevance"]


class ParameterCheck(providers.Provider):
    """No measure's provider: first in ``ir_measures.DefaultPipeline``, it checks the parameters of every measure
    asked for against the catalog's declaration (:func:`~ir_pref_measures.measures.names.check_declared`: cutoffs
    >= 1, ``rel``, ``p``, gains, ...) before any provider sees them, so that ``P@0`` is an :class:`InputError`
    rather than an abort inside pytrec_eval, as it is for ``eval``, ``experiment`` and the API."""

    NAME = "ir_pref_measures_parameters"

    def supports(self, measure) -> bool:
        check_declared(measure)
        return False

    def is_available(self) -> bool:
        return True


PARAMETER_CHECK = ParameterCheck()


def register() -> PreferenceProvider:
    """Register the measures and the provider with ir_measures (idempotent)."""
    for name, measure in MEASURES.items():
        if name not in measures_base.registry:
            measures_base.register(measure)
    provider = providers.registry.get(PreferenceProvider.NAME)
    if provider is None:
        provider = PreferenceProvider()
        providers.register(provider)
    pipeline = ir_measures.DefaultPipeline.providers
    if provider not in pipeline:
        pipeline.insert(1, provider)
    if not any(isinstance(p, ParameterCheck) for p in pipeline):
        pipeline.insert(0, PARAMETER_CHECK)
    return provider


def _not_a_split_string(qrels):
    """``qrels``, unless ir_measures took a string (a path?) apart into its characters, which it does to any
    iterable it cannot tell: then an :class:`InputError` saying what ir_measures reads."""
    import itertools

    if not isinstance(qrels, type(itertools.tee(())[0])):  # ir_measures' peek at an iterable it cannot tell
        return qrels
    qrels, peek = itertools.tee(qrels)
    first = next(peek, None)
    if isinstance(first, str) and len(first) == 1:
        raise InputError(
            "ir_measures takes qrels as a DataFrame, a dict of dicts or Qrel namedtuples, not as a string (a path?)",
            expected="ir_pref_measures.read_qrels(path), ir_pref_measures.load_judgments(path) or "
            "ir_measures.read_trec_qrels(path)",
        )
    return qrels


register()  # last: the module is complete (the post-import hook may have brought us here)
