"""Meta-evaluation of measures: agreement with users' SERP preferences, sensitivity, consistency, stability and
preference precision-recall curves; their figures are in :mod:`ir_pref_measures.meta.plots` (the ``plot`` extra)."""

from ir_pref_measures.meta.evaluation import (
    Agreement,
    Sensitivity,
    agreement,
    anova_f,
    consistency,
    grid_values,
    kendall_tau,
    means,
    measure_values,
    paired_p_values,
    pr_curves,
    sensitivity,
    sensitivity_table,
    stability,
    subsample,
    tau_ap,
)

__all__ = [
    "Agreement",
    "Sensitivity",
    "agreement",
    "anova_f",
    "consistency",
    "grid_values",
    "kendall_tau",
    "means",
    "measure_values",
    "paired_p_values",
    "pr_curves",
    "sensitivity",
    "sensitivity_table",
    "stability",
    "subsample",
    "tau_ap",
]
