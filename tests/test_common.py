"""The invariants every measure of the catalog keeps, run over every entry (as scikit-learn's ``test_common``): a
measure added to the catalog is checked here without a line changed.

* per run (:data:`~ir_pref_measures.measures.catalog.SPECS`, and trec_eval's measures of
  :data:`~ir_pref_measures.measures.catalog.TREC_EVAL`): the same values, bit for bit, on a second call
  (determinism) and whatever the order of the rows of the run and of the judgments (input-order invariance); every
  value finite and within the measure's range: [0, 1] unless listed in :data:`UNBOUNDED`;
* between two runs (the catalog's ``PAIRWISE`` entries, where the catalog declares them): "run i vs run j" is
  minus "run j vs run i" for the preferences and metric differences (antisymmetry), the same for a similarity,
  per query and for the mean ("all").
"""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest

import ir_pref_measures as ipm
from ir_pref_measures.measures import catalog

GIVEN = {"cutoff": 5, "rel": 1, "p": 0.8}  # a value for each parameter a measure must be given
UNBOUNDED = {  # name -> why values above 1 are right
    **{name: "a sum of pair weights, not normalised" for name in ("wpref", "wppref")},
    **{
        spec.name: "a count summed over queries"
        for spec in (*catalog.SPECS.values(), *catalog.TREC_EVAL.values())
        if spec.aggregate == "sum"
    },
    **{name: "a count" for name in ("num_pref_ranked", "num_pref_total", "num_preferred", "num_preferred_unrk")},
    "num_bad": "a count",
}


def _measure(spec: catalog.MeasureSpec) -> ir_measures.Measure:
    """The measure of ``spec`` with the parameters it must be given (and a cutoff where it takes one)."""
    base = ir_measures.measures.registry[spec.name]
    needed = {name: GIVEN[name] for name in spec.needs}
    return base(**needed) if needed else base


def _specs() -> list[catalog.MeasureSpec]:
    return [*catalog.SPECS.values(), *catalog.TREC_EVAL.values()]


def _inputs(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Graded qrels (grades -1..3, some docs unjudged) and a run with tied scores, on 6 queries of up to 12 docs; one
    judged query is missing from the run."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(6):
        docs = [f"d{d}" for d in range(12)]
        judged = rng.choice(docs, size=int(rng.integers(3, 10)), replace=False)
        qrels += [(f"q{q}", doc, int(rng.integers(-1, 4))) for doc in judged]
        if q == 5:
            continue  # judged, not in the run
        ranked = rng.choice(docs, size=int(rng.integers(1, 12)), replace=False)
        run += [(f"q{q}", doc, float(rng.integers(0, 4))) for doc in ranked]  # few scores: ties
    return (
        pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
        pd.DataFrame(run, columns=["query_id", "doc_id", "score"]),
    )


def _values(measure, run: pd.DataFrame, qrels: pd.DataFrame) -> dict[str, float]:
    return {m.query_id: m.value for m in ipm.evaluate([measure], run, qrels=qrels)}


@pytest.fixture(scope="module")
def inputs():
    return [_inputs(seed) for seed in range(3)]


@pytest.mark.parametrize("spec", _specs(), ids=lambda spec: spec.name)
def test_a_measure_is_deterministic_and_independent_of_the_input_order(spec, inputs):
    measure = _measure(spec)
    for qrels, run in inputs:
        first = _values(measure, run, qrels)
        assert first and first == _values(measure, run, qrels)
        rng = np.random.default_rng(7)
        shuffled = _values(measure, run.sample(frac=1, random_state=rng), qrels.sample(frac=1, random_state=rng))
        assert shuffled == first


@pytest.mark.parametrize("spec", _specs(), ids=lambda spec: spec.name)
def test_a_measure_stays_in_its_range(spec, inputs):
    measure = _measure(spec)
    high = np.inf if spec.name in UNBOUNDED else 1.0
    for qrels, run in inputs:
        values = np.array(list(_values(measure, run, qrels).values()))
        assert np.isfinite(values).all() and (values >= 0).all() and (values <= high + 1e-12).all(), values


def _pairwise_specs() -> list:
    return list(getattr(catalog, "PAIRWISE", {}).values())


def _pairwise_name(spec) -> str:
    """The measure's name as ``compare`` takes it, with a cutoff where one must be given."""
    return f"{spec.name}@{GIVEN['cutoff']}" if "cutoff" in spec.needs else spec.name


@pytest.mark.parametrize("spec", _pairwise_specs(), ids=lambda spec: spec.name)
def test_a_measure_between_runs_is_antisymmetric_or_symmetric_as_declared(spec, inputs):
    qrels, run = inputs[0]
    other = run.assign(score=np.random.default_rng(3).permutation(run["score"].to_numpy()))
    name = _pairwise_name(spec)
    forward, backward = (
        ipm.compare(runs, qrels, measures=[name], perquery=True).set_index("query_id").iloc[:, -1]
        for runs in ({"x": run, "y": other}, {"y": other, "x": run})
    )
    sign = 1 if spec.kind == "similarity" else -1
    assert len(forward) > 1 and forward.index.equals(backward.index)
    np.testing.assert_array_equal(forward.to_numpy(), sign * backward.to_numpy())
    assert np.isfinite(forward.to_numpy()).all()


def test_the_catalog_is_covered():
    """Every per-run entry is checked above (the parametrisation reads the catalog)."""
    assert {spec.name for spec in _specs()} >= set(catalog.SPECS)
