"""Deprecated path of :mod:`ir_pref_measures.judging.judges.llm` (removed in the next release)."""

from ir_pref_measures.judging._moved import moved

__getattr__ = moved(__name__, "ir_pref_measures.judging.judges.llm")
