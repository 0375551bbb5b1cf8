"""Agreement and reliability of preference judges (people, LLMs, graded qrels): judges aligned on the pairs they
share, agreement, reliability, intransitive triads, position bias, and each judge's ordering of runs."""

from ir_pref_measures.agreement.panel import (
    Aligned,
    agreement,
    align,
    diagnostics,
    matrix,
    reliability,
    system_agreement,
    triads,
)
from ir_pref_measures.agreement.position import position_consistency, preference_fairness
from ir_pref_measures.agreement.ppi import (
    choose_queries,
    choose_stratified,
    judged_by_both,
    llm_pair_counts,
    llm_uncertainty,
    llm_values,
    ppi_plan,
    ppi_table,
    ppi_values,
    subsample_experiment,
)

__all__ = [
    "Aligned",
    "agreement",
    "align",
    "choose_queries",
    "choose_stratified",
    "diagnostics",
    "judged_by_both",
    "llm_uncertainty",
    "llm_pair_counts",
    "llm_values",
    "matrix",
    "position_consistency",
    "ppi_plan",
    "ppi_table",
    "ppi_values",
    "preference_fairness",
    "reliability",
    "subsample_experiment",
    "system_agreement",
    "triads",
]
