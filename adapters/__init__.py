"""Thin glue between ir_pref_measures and the IR ecosystem (installed as ``ir_pref_measures.adapters``)."""
