"""Agreement and reliability of preference judges (people, LLMs, graded qrels): judges aligned on the pairs they
share, agreement, reliability, intransitive triads, position bias, and each judge's ordering of runs."""

from ir_pref_measures.judges.panel import (
    Aligned,
    agreement,
    align,
    diagnostics,
    matrix,
    reliability,
    system_agreement,
    triads,
)
from ir_pref_measures.judges.ppi import (
    choose_queries,
    judged_by_both,
    llm_uncertainty,
    llm_values,
    ppi_plan,
    ppi_table,
    ppi_values,
    subsample_experiment,
)

__all__ = [
    "choose_queries",
    "llm_uncertainty",
    "llm_values",
    "Aligned",
    "agreement",
    "align",
    "diagnostics",
    "judged_by_both",
    "matrix",
    "ppi_plan",
    "ppi_table",
    "ppi_values",
    "reliability",
    "subsample_experiment",
    "system_agreement",
    "triads",
]
