"""Statistics on per-query values, pure numerics (numpy and scipy): paired significance tests, bootstrap intervals,
effect sizes and multiple-testing corrections (:mod:`~ir_pref_measures.stats.paired`), the two-way ANOVA without
replication (:mod:`~ir_pref_measures.stats.anova`), the Tukey HSD and randomised Tukey HSD tests of all pairs
(:mod:`~ir_pref_measures.stats.tukey`) and the studentized range distribution
(:mod:`~ir_pref_measures.stats.studentized_range`)."""

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
from ir_pref_measures.stats.tukey import Pairs, randomised_tukey, tukey_hsd

__all__ = [
    "Anova",
    "Pairs",
    "anova",
    "bootstrap_ci",
    "bootstrap_test",
    "correct",
    "effect_size",
    "p_values",
    "randomisation_test",
    "randomised_tukey",
    "sign_test",
    "studentized_range",
    "t_test",
    "tukey_hsd",
    "wilcoxon_test",
]
