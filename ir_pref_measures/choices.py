"""The names a command line offers as choices, in a module that imports nothing: building a command's parser
(``ir-pref-measures COMMAND --help``) imports no numerical package. The modules that implement the choices import
their names from here."""

from __future__ import annotations

FORMATS = ("table", "csv", "json", "markdown", "latex", "html")  # the output formats of a table (experiment.render)
PAIRED_TESTS = ("t", "wilcoxon", "sign", "permutation", "bootstrap")  # stats.paired
FAMILY_TESTS = ("tukey", "randomised-tukey")  # stats.tukey: adjusted over the family of runs
TESTS = (*PAIRED_TESTS, *FAMILY_TESTS)  # an experiment's significance tests
SAMPLES = 10_000  # default number of resamples (random sign vectors, bootstrap samples)
TREC_EVAL_FORMATS = ("prefs", "qrels_prefs")  # trec_eval's judgment formats, with judgment groups
SELECTORS = ("all", "random", "topk", "topk+rating", "insertion", "rating", "list")  # the pair selectors of an effort
LISTED = "list"  # the selector of a given list of pairs (judge plan --pairs): no pools to simulate
PLAN_SELECTORS = (*SELECTORS, "adjudication")  # and people where an LLM effort is unsure (not simulated)
META_TESTS = ("t", "permutation", "bootstrap", *FAMILY_TESTS)  # the paired tests of a meta-evaluation
BINOMIAL_METHODS = ("exact", "normal")  # the intervals of an agreement rate
PREFERENCE_FORMATS = ("carterette", "winner", "pairs", "qrels")  # the formats of a preference file
