"""Agreement and reliability of preference judges (people, LLMs, graded qrels): judges aligned on the pairs they
share, agreement, reliability, intransitive triads, position bias, and each judge's ordering of runs. Each name is
imported on first use, so that a judging run that reads only the position-bias measures does not load pandas."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # type checkers see the imports; at run time, __getattr__ below imports each on first use
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

_MODULES = {  # name -> its module
    **dict.fromkeys(
        ("Aligned", "agreement", "align", "diagnostics", "matrix", "reliability", "system_agreement", "triads"),
        "panel",
    ),
    **dict.fromkeys(("position_consistency", "preference_fairness"), "position"),
    **dict.fromkeys(
        (
            "choose_queries",
            "choose_stratified",
            "judged_by_both",
            "llm_pair_counts",
            "llm_uncertainty",
            "llm_values",
            "ppi_plan",
            "ppi_table",
            "ppi_values",
            "subsample_experiment",
        ),
        "ppi",
    ),
}

__all__ = [
    "Aligned",
    "agreement",
    "align",
    "choose_queries",
    "choose_stratified",
    "diagnostics",
    "judged_by_both",
    "llm_pair_counts",
    "llm_uncertainty",
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

if not TYPE_CHECKING:  # type checkers see the imports above; a misspelt name stays an error to them
    from ir_pref_measures.lazy import lazy_names

    __getattr__, __dir__ = lazy_names(__name__, _MODULES, __all__)
