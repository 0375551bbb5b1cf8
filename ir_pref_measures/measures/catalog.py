"""The one table of the measures: name, parameters and defaults, kernel and family, definition, citation.

Everything else is generated from :data:`SPECS`: the ir_measures Measure classes and the provider's dispatch
(:mod:`ir_pref_measures.adapters.ir_measures`), the parameter checks, and the measure tables of ``docs/measures.md``
(:func:`markdown_table`; ``tests/measures/test_trec_prefs.py`` checks they are up to date, and
``python -m ir_pref_measures.measures.catalog docs/measures.md`` rewrites them).

A family names how the provider prepares a kernel's input: ``ppref`` (pair counts of the run;
:mod:`~ir_pref_measures.measures.ppref`), ``pgc`` (:mod:`~ir_pref_measures.measures.pgc`, the image grid),
``compatibility``, ``trec_prefs`` (trec_eval's judgment-group measures; one kernel computes all 14,
:mod:`~ir_pref_measures.measures.trec_prefs`), ``trec_eval`` (ir_measures' own nDCG, AP, P, ... on graded qrels,
:mod:`~ir_pref_measures.measures.graded`; declared in :data:`TREC_EVAL`, not registered as new measures; and our
``RBPResidual``, on the same kernels).
``args`` lists what a ``ppref`` kernel takes after the pair counts: ``ideal`` (the ideal ranking's counts),
``cutoff``, ``beta``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ir_pref_measures.measures import graded, ppref
from ir_pref_measures.measures.pairwise_specs import DEFAULT_PAIRWISE as DEFAULT_PAIRWISE
from ir_pref_measures.measures.pairwise_specs import PAIRWISE as PAIRWISE
from ir_pref_measures.measures.pairwise_specs import PAIRWISE_ALIASES as PAIRWISE_ALIASES
from ir_pref_measures.measures.pairwise_specs import PairwiseSpec as PairwiseSpec
from ir_pref_measures.measures.params import PARAMS as PARAMS
from ir_pref_measures.measures.params import RBO_SCORES as RBO_SCORES
from ir_pref_measures.measures.params import RBO_TIES as RBO_TIES
from ir_pref_measures.measures.params import Param as Param

CITE_CB08 = (
    "B. Carterette, P. N. Bennett. Evaluation Measures for Preference Judgments. SIGIR 2008 (poster); "
    "B. Carterette, P. N. Bennett, O. Chapelle. A Test Collection of Preference Judgments. SIGIR 2008 "
    "Workshop on Beyond Binary Relevance."
)
CITE_TOOL = "J. Elsas. pairwise_pref_eval.py (2011), the reference implementation."
CITE_SEED004 = (
    "Weighted preference precision: B. Carterette, P. N. Bennett. Evaluation Measures for Preference Judgments. "
    "SIGIR 2008 (poster), section 2 (our reading of wppref and nwppref: docs/measures.md)."
)
CITE_PGC = (
    "C. L. A. Clarke, C. Luo, M. D. Smucker. Evaluation measures based on preference graphs. SIGIR 2021; "
    "C. Luo. Information Retrieval Evaluation Measures Based on Preference Graphs. MMath thesis, "
    "University of Waterloo, 2021."
)
CITE_COMPAT = (
    "C. L. A. Clarke, A. Vtyurina, M. D. Smucker. Assessing top-k preferences. ACM TOIS 39(3), 2021; "
    "C. L. A. Clarke, M. D. Smucker, A. Vtyurina. Offline evaluation by maximum similarity to an ideal "
    "ranking. CIKM 2020."
)
CITE_TREC_EVAL = (
    "trec_eval 9.0+ (usnistgov/trec_eval), C. Buckley 2008: form_prefs_counts.c and m_prefs_*.c "
    "(-R prefs / -R qrels_prefs)."
)


@dataclass(frozen=True)
class MeasureSpec:
    """One measure. ``definition`` is Markdown (the docs' tables); ``aggregate`` is how a summary combines queries
    (``mean``, or ``sum`` for trec_eval's counts, whose summary is their sum)."""

    name: str
    pretty: str
    definition: str
    family: str
    params: tuple[str, ...]
    citation: str
    kernel: Callable | None = None
    args: tuple[str, ...] = ()
    defaults: dict = field(default_factory=dict)  # per-measure default overrides
    aggregate: str = "mean"
    doc: str = ""  # more than the definition, for the class docstring
    needs: tuple[str, ...] = ()  # parameters a measure must be given (a kernel computes it only then)
    missing: float = 0.0  # the value of a judged query the run lacks

    def param(self, name: str) -> Param:
        """The parameter ``name`` with this measure's default."""
        base = PARAMS[name]
        if name not in self.defaults:
            return base
        return Param(**{**base.__dict__, "default": self.defaults[name]})

    @property
    def has_cutoff(self) -> bool:
        return "cutoff" in self.params


def _ppref(name, pretty, definition, kernel, args=(), extra=()) -> MeasureSpec:
    cite = CITE_SEED004 if name in ("wppref", "nwppref") else f"{CITE_CB08} {CITE_TOOL}"
    params = (*(("cutoff",) if "cutoff" in args else ()), *extra, "transitive")
    return MeasureSpec(name, pretty, definition, "ppref", params, cite, kernel, args)


_PPREF = [
    _ppref("ppref", "Preference precision", "correct(k) / ordered(k): preference precision", ppref.ppref, ("cutoff",)),
    _ppref("rpref", "Preference recall", "correct(k) / N: preference recall", ppref.rpref, ("cutoff",)),
    _ppref(
        "fpref",
        "Preference F-measure",
        "(1+β²)·ppref·rpref / (β²·ppref + rpref)",
        ppref.fpref,
        ("cutoff", "beta"),
        ("beta",),
    ),
    _ppref(
        "wpref",
        "Weighted preference precision (tool)",
        "Σ over correct pairs of 1/(log₂ f + 1) (unnormalised; can exceed 1)",
        ppref.wpref,
        ("cutoff",),
    ),
    _ppref(
        "nwpref",
        "Normalised wpref (tool)",
        "wpref@k / Σ over ordered pairs of 1/(log₂ min(f,t) + 1)",
        ppref.nwpref,
        ("cutoff",),
    ),
    _ppref(
        "wppref",
        "Weighted preference precision (paper)",
        "Σ over correct pairs of (2^\\|pref\\| − 1)/log₂(f + 1): the DCG analogue",
        ppref.wppref,
        ("cutoff",),
    ),
    _ppref(
        "nwppref",
        "Normalised wppref (paper)",
        "wppref@k / wppref@k of the ideal ranking: the NDCG analogue",
        ppref.nwppref,
        ("ideal", "cutoff"),
    ),
    _ppref(
        "rrpref",
        "Reciprocal rank of the first correct pair",
        "1 / the best rank of a correct pair (0 if none)",
        ppref.rrpref,
    ),
    _ppref(
        "pprefMax", "Maximum preference precision", "max of ppref@r over r in PR (0 if PR is empty)", ppref.pprefmax
    ),
    _ppref("rprefMax", "Maximum preference recall", "correct(∞) / N", ppref.rprefmax),
    _ppref(
        "APpref",
        "Average preference precision",
        "[Σ_{r∈PR} ppref@r + PU · correct(∞)/N] / (\\|PR\\| + PU)",
        ppref.appref,
    ),
    _ppref(
        "num_pref_ranked",
        "Judged pairs touching the run",
        "pairs with at least one doc retrieved",
        ppref.num_pref_ranked,
    ),
    _ppref("num_pref_total", "Judged pairs", "N", ppref.num_pref_total),
    _ppref("num_preferred", "Preferred docs", "\\|PR\\| + PU", ppref.num_preferred),
    _ppref("num_preferred_unrk", "Unretrieved preferred docs", "PU", ppref.num_preferred_unrk),
    _ppref("num_bad", "Bad docs", "docs judged bad", ppref.num_bad),
]

_RBO = ("p", "normalize", "depth")
_GRAPH = [
    MeasureSpec(
        "PGC",
        "Preference Graph Compatibility",
        "RBO between the run and the Greedy FAS ordering of the preference multigraph closest to it; with "
        "`cols`, the run shown in a grid of that many columns, examined in `order`",
        "pgc",
        (*_RBO, "cols", "order"),
        CITE_PGC,
        doc="Greedy Preference Graph Compatibility: ties by (rank, doc id); the image-grid variant is thesis "
        "chapter 5.",
    ),
    MeasureSpec(
        "Compatibility",
        "Compatibility (compatibility.py, depth 1000)",  # not ir_measures' Compat's "Compatibility"
        "RBO between the run and the closest ideal ranking of the docs with value > 0, normalised "
        "(Clarke's compatibility.py; unlike ir_measures' `Compat`, unretrieved docs come last among equals)",
        "compatibility",
        _RBO,
        CITE_COMPAT,
        defaults={"normalize": True},
    ),
]


def _trec(name: str, definition: str, aggregate: str = "mean") -> MeasureSpec:
    pretty = "trec_eval " + name
    return MeasureSpec(name, pretty, definition, "trec_prefs", (), CITE_TREC_EVAL, aggregate=aggregate)


_RET = "counting only retrieved preferences (both docs retrieved)"
_IMP = "counting retrieved and implied preferences (ignoring those with neither doc retrieved)"
_TREC_PREFS = [
    _trec("prefs_num_prefs_poss", "preferences possible: retrieved + implied + not retrieved, over all jgs", "sum"),
    _trec(
        "prefs_num_prefs_ful",
        "preferences fulfilled: retrieved in order + implied with the preferred doc retrieved",
        "sum",
    ),
    _trec("prefs_num_prefs_ful_ret", "retrieved preferences fulfilled", "sum"),
    _trec("prefs_simp", "fulfilled / possible, all jgs pooled"),
    _trec("prefs_pair", "mean over doc pairs of the share of that pair's preferences (over jgs) fulfilled"),
    _trec("prefs_avgjg", "`prefs_simp` within each jg, averaged over the query's jgs"),
    _trec(
        "prefs_avgjg_Rnonrel",
        "`prefs_avgjg` with each jg's non-relevant docs (level 0) cut or padded to R, its number of relevant "
        "docs (akin to bpref)",
    ),
    _trec("prefs_simp_ret", f"`prefs_simp` {_RET}"),
    _trec("prefs_pair_ret", f"`prefs_pair` {_RET}"),
    _trec("prefs_avgjg_ret", f"`prefs_avgjg` {_RET}"),
    _trec("prefs_avgjg_Rnonrel_ret", f"`prefs_avgjg_Rnonrel` {_RET}"),
    _trec("prefs_simp_imp", f"`prefs_simp` {_IMP}"),
    _trec("prefs_pair_imp", f"`prefs_pair` {_IMP}"),
    _trec("prefs_avgjg_imp", f"`prefs_avgjg` {_IMP}"),
]

CITE_GRADED = (
    "trec_eval 9.0 (usnistgov/trec_eval), C. Buckley 2008, as pytrec_eval computes it (C. Van Gysel, M. de Rijke. "
    "Pytrec_eval: An Extremely Fast Python Interface to trec_eval. SIGIR 2018); Judged@k as ir_measures' judged "
    "provider, RR@k as its msmarco provider (S. MacAvaney, C. Macdonald, I. Ounis. Streamlining Evaluation with "
    "ir-measures. ECIR 2022)."
)


def _graded(
    name,
    definition,
    kernel,
    params,
    aggregate="mean",
    needs=(),
    defaults=None,
    citation=CITE_GRADED,
    pretty=None,
    missing=0.0,
) -> MeasureSpec:
    """ir_measures' measure ``name``, computed by ``kernel(ranked, cutoff, rel)`` (and ``p``, when the measure takes
    it) on the judged docs (:class:`~ir_pref_measures.measures.graded.Ranked`; cutoff ``inf`` when not given)."""
    return MeasureSpec(
        name,
        pretty or name,
        definition,
        "trec_eval",
        params,
        citation,
        kernel,
        (),
        defaults or {},
        aggregate,
        needs=needs,
        missing=missing,
    )


CITE_RBP = (
    "A. Moffat, J. Zobel. Rank-biased precision for measurement of retrieval effectiveness. ACM TOIS 27(1), 2008; "
    "as cwl_eval computes it, ir_measures' provider of RBP (L. Azzopardi, P. Thomas, A. Moffat. cwl_eval: An "
    "Evaluation Tool for Information Retrieval. SIGIR 2019)."
)
_RBP_WEIGHT = f"p^(rank − 1) · (1 − p) / (1 − p^{graded.CWL_DEPTH})"


_BINARY = ("cutoff", "rel", "judged_only")
_TREC_EVAL = [
    _graded(
        "nDCG",
        "DCG of the top k (gain: the grade, discount log2(rank + 1)) / DCG of the ideal top k of all judged docs",
        lambda r, k, rel: graded.ndcg(r, k),
        ("cutoff", "dcg", "gains", "judged_only"),
    ),
    _graded(
        "AP",
        "Σ over the relevant docs at rank <= k of the precision at their rank, / R (every relevant doc judged)",
        lambda r, k, rel: graded.average_precision(r, rel, k),
        _BINARY,
    ),
    _graded(
        "P", "relevant docs in the top k / k", lambda r, k, rel: graded.precision(r, k, rel), _BINARY, needs=("cutoff",)
    ),
    _graded(
        "R", "relevant docs in the top k / R", lambda r, k, rel: graded.recall(r, k, rel), _BINARY, needs=("cutoff",)
    ),
    _graded(
        "RR",
        "1 / the rank of the first relevant doc (at rank <= k), 0 if none",
        lambda r, k, rel: graded.reciprocal_rank(r, rel, k),
        _BINARY,
    ),
    _graded(
        "Rprec", "relevant docs in the top R / R", lambda r, k, rel: graded.r_precision(r, rel), ("rel", "judged_only")
    ),
    _graded(
        "Bpref",
        "Σ over the relevant retrieved docs of 1 − min(n, R) / min(N, R), n the judged non-relevant docs above it, "
        "N all judged non-relevant, / R",
        lambda r, k, rel: graded.bpref(r, rel),
        ("rel",),
    ),
    _graded(
        "Success",
        "1 if a relevant doc is in the top k, else 0",
        lambda r, k, rel: graded.success(r, k, rel),
        _BINARY,
        needs=("cutoff",),
    ),
    _graded(
        "Judged",
        "docs with a judgment in the top min(k, retrieved) / min(k, retrieved)",
        lambda r, k, rel: graded.judged_share(r, k),
        ("cutoff",),
    ),
    _graded(
        "NumRet",
        "docs retrieved; with `rel`: relevant docs retrieved",
        lambda r, k, rel: graded.num_ret(r) if rel is None else graded.num_rel_ret(r, rel),
        ("rel",),
        "sum",
        defaults={"rel": None},
    ),
    _graded("NumRel", "relevant docs judged (R)", lambda r, k, rel: graded.num_rel(r, 1), ("rel",), "sum"),
    _graded(
        "RBP",
        f"Σ over the relevant docs at rank <= min(k, {graded.CWL_DEPTH}) of {_RBP_WEIGHT} (cwl_eval's RBP)",
        lambda r, k, rel, p: graded.rank_biased_precision(r, p, rel, k, graded.CWL_DEPTH),
        ("cutoff", "p", "rel"),
        needs=("rel",),
        defaults={"p": 0.8},
        citation=CITE_RBP,
    ),
]

_RESIDUALS = [
    _graded(
        "RBPResidual",
        f"RBP's residual: 1 − Σ over the docs with a judgment (any grade) at rank <= min(k, {graded.CWL_DEPTH}) of "
        f"{_RBP_WEIGHT}, the most RBP(p)@k could gain from unjudged docs and the ranks past the run or k",
        lambda r, k, rel, p: graded.rbp_residual(r, p, k, graded.CWL_DEPTH),
        ("cutoff", "p"),
        defaults={"p": 0.8},
        citation=CITE_RBP,
        pretty="Residual of Rank-Biased Precision",
        missing=1.0,
    ),
]

SPECS: dict[str, MeasureSpec] = {spec.name: spec for spec in (*_PPREF, *_GRAPH, *_TREC_PREFS, *_RESIDUALS)}
"""The measures of this package (registered with ir_measures as new measures)."""
TREC_EVAL: dict[str, MeasureSpec] = {spec.name: spec for spec in _TREC_EVAL}
"""ir_measures' own measures that the engine computes with the kernels of
:mod:`~ir_pref_measures.measures.graded` (:func:`graded_spec` says for which parameters)."""
FAMILIES = ("ppref", "pgc", "compatibility", "trec_prefs", "trec_eval")


def family(name: str) -> list[MeasureSpec]:
    return [spec for spec in (*TREC_EVAL.values(), *SPECS.values()) if spec.family == name]


_ONLY = {"NumRel": {"rel": 1}}  # ir_measures computes NumRel only at rel=1


def graded_spec(measure) -> MeasureSpec | None:
    """The spec of ir_measures' ``measure`` when a kernel of :mod:`~ir_pref_measures.measures.graded` computes it
    with its parameters, else ``None`` (ir_measures computes it). RR@k is MS MARCO's, which has no ``judged_only``."""
    spec = TREC_EVAL.get(measure.NAME)
    params = measure.params
    if spec is None or any(name not in params for name in spec.needs):
        return None
    for name, value in params.items():
        only = _ONLY.get(spec.name, {})
        if name not in spec.params or not PARAMS[name].test(value) or only.get(name, value) != value:
            return None
    if spec.name == "RR" and "cutoff" in params and params.get("judged_only"):
        return None
    return spec


def graded_kernel(spec: MeasureSpec, ranked: graded.Ranked, params: dict) -> np.ndarray:
    """The values of the measure of ``spec`` (of the ``trec_eval`` family) with ``params`` (for ir_measures' own,
    those :func:`graded_spec` accepts)."""
    extra = {"p": float(params.get("p", spec.param("p").default))} if "p" in spec.params else {}
    assert spec.kernel is not None, "the trec_eval family's measures have their kernel"
    return spec.kernel(ranked, params.get("cutoff", np.inf), params.get("rel", spec.param("rel").default), **extra)


def ppref_kernel(name: str, counts, cutoff=None, **kwargs) -> np.ndarray:
    """The ppref-family measure ``name`` from pair counts: ``cutoff`` and ``beta`` / ``ideal`` as it takes them."""
    spec = SPECS[name]
    given = {"cutoff": cutoff, **kwargs}
    assert spec.kernel is not None, "the ppref family's measures have their kernel"
    return spec.kernel(counts, *(given[a] for a in spec.args if a in given))


# -- the docs' tables ------------------------------------------------------------------------------------------------


def _shown(name: str, spec: MeasureSpec) -> str:
    param = spec.param(name)
    default = param.shown_default if param.default is None else repr(param.default)
    return f"`{name}` ({'required' if name in spec.needs else default or 'not given'})"


def markdown_table(family_name: str) -> str:
    """The docs' table of a family: name, definition, parameters (default); then its citations."""
    rows = ["| name | definition | parameters (default) |", "|---|---|---|"]
    citations: list[str] = []
    for spec in family(family_name):
        shown = f"{spec.name}@k" if spec.has_cutoff else spec.name
        params = ", ".join(_shown(p, spec) for p in spec.params) or "none"
        total = " (summary: the sum over queries)" if spec.aggregate == "sum" else ""
        rows.append(f"| `{shown}` | {spec.definition}{total} | {params} |")
        if spec.citation not in citations:
            citations.append(spec.citation)
    return "\n".join(rows) + "\n\nCitations: " + " ".join(citations) + "\n"


BLOCK = re.compile(r"(<!-- measures:(\w+) -->\n)(.*?)(<!-- /measures -->)", re.S)


def update_tables(text: str) -> str:
    """``text`` (a docs page, ``docs/measures.md``) with every ``<!-- measures:FAMILY -->`` block replaced by the
    generated table."""
    return BLOCK.sub(lambda m: m.group(1) + markdown_table(m.group(2)) + m.group(4), text)


if __name__ == "__main__":  # python -m ir_pref_measures.measures.catalog docs/measures.md: rewrite the tables
    import sys

    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            old = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(update_tables(old))
