"""Statistics on per-query values, pure numerics (numpy and scipy): paired significance tests, bootstrap intervals,
effect sizes and multiple-testing corrections (:mod:`~ir_pref_measures.stats.paired`), the two-way ANOVA without
replication (:mod:`~ir_pref_measures.stats.anova`), the Tukey HSD and randomised Tukey HSD tests of all pairs
(:mod:`~ir_pref_measures.stats.tukey`), the studentized range distribution
(:mod:`~ir_pref_measures.stats.studentized_range`), prediction-powered inference of means
(:mod:`~ir_pref_measures.stats.ppi`; cross-prediction and stratified, :mod:`~ir_pref_measures.stats.ppi_variants`;
active, :mod:`~ir_pref_measures.stats.ppi_active`; planning, :mod:`~ir_pref_measures.stats.ppi_power`) and topic
set size design (:mod:`~ir_pref_measures.stats.topic_set_size`)."""

from ir_pref_measures.stats import studentized_range
from ir_pref_measures.stats.anova import Anova, anova
from ir_pref_measures.stats.paired import (
    bootstrap_ci,
    bootstrap_test,
    correct,
    effect_size,
    p_values,
    randomisation_test,
    sign_test,
    t_test,
    wilcoxon_test,
)
from ir_pref_measures.stats.ppi import classical_mean, ppi_mean
from ir_pref_measures.stats.ppi_active import active_ppi_mean, inclusion_probabilities
from ir_pref_measures.stats.ppi_power import (
    Plan,
    labels_for_power,
    labels_for_width,
    ppi_correlation,
    ppi_mean_power,
    ppi_power,
)
from ir_pref_measures.stats.ppi_variants import (
    crossppi_mean,
    proportional_allocation,
    score_strata,
    stratified_ppi_mean,
)
from ir_pref_measures.stats.topic_set_size import (
    anova_detectable,
    anova_power,
    anova_topics,
    ci_topics,
    expected_ci_width,
    residual_variance,
    t_test_detectable,
    t_test_power,
    t_test_topics,
)
from ir_pref_measures.stats.tukey import Pairs, randomised_tukey, tukey_hsd

__all__ = [
    "active_ppi_mean",
    "inclusion_probabilities",
    "stratified_ppi_mean",
    "score_strata",
    "proportional_allocation",
    "ppi_power",
    "ppi_mean_power",
    "ppi_correlation",
    "labels_for_width",
    "labels_for_power",
    "crossppi_mean",
    "Plan",
    "Anova",
    "Pairs",
    "anova",
    "anova_detectable",
    "anova_power",
    "anova_topics",
    "bootstrap_ci",
    "bootstrap_test",
    "ci_topics",
    "classical_mean",
    "correct",
    "effect_size",
    "expected_ci_width",
    "p_values",
    "ppi_mean",
    "randomisation_test",
    "randomised_tukey",
    "residual_variance",
    "sign_test",
    "studentized_range",
    "t_test",
    "t_test_detectable",
    "t_test_power",
    "t_test_topics",
    "tukey_hsd",
    "wilcoxon_test",
]
