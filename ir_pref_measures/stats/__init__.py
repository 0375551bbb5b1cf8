"""Statistics of per-query values, pure numerics: paired tests and corrections (``paired``), the topic-blocked
two-way ANOVA, the Tukey HSD and randomised Tukey HSD tests of all pairs, prediction-powered inference of means,
and topic set size design."""

from ir_pref_measures.stats.anova import anova
from ir_pref_measures.stats.ppi import classical_mean, ppi_mean
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
from ir_pref_measures.stats.tukey import randomised_tukey, tukey_hsd

__all__ = [
    "anova",
    "anova_detectable",
    "anova_power",
    "anova_topics",
    "ci_topics",
    "classical_mean",
    "expected_ci_width",
    "ppi_mean",
    "randomised_tukey",
    "residual_variance",
    "t_test_detectable",
    "t_test_power",
    "t_test_topics",
    "tukey_hsd",
]
