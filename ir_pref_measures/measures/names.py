"""Measure names: parsing and checking ir_measures measure objects, ours (declared in
:mod:`~ir_pref_measures.measures.catalog`) and ir_measures' own.

Our measures are registered with ir_measures on ``import ir_pref_measures``, so ``ir_measures.parse_measure``
knows every name here; a parameter is checked against the catalog's declaration.
"""

from __future__ import annotations

import ir_measures
from ir_measures.measures import base as measures_base

from ir_pref_measures.errors import InputError
from ir_pref_measures.measures.catalog import PARAMS, SPECS


def is_preference_measure(measure) -> bool:
    """True for a measure of the catalog (computed by :mod:`ir_pref_measures.engine`), False for ir_measures'."""
    return measure.NAME in SPECS


def validate(measure) -> None:
    """Raise :class:`InputError` naming ``measure`` when a parameter is unknown or outside its range (ours), or
    fails ir_measures' own check (theirs)."""
    if not is_preference_measure(measure):
        try:
            measure.validate_params()
        except (AssertionError, TypeError, ValueError) as error:
            raise InputError(f"invalid measure {measure}: {error}") from None
        return
    supported = measure.SUPPORTED_PARAMS
    unknown = [name for name in measure.params if name not in supported]
    if unknown:  # str(measure) itself fails on an unknown parameter
        written = f"{measure.NAME}({', '.join(f'{k}={v!r}' for k, v in measure.params.items())})"
        raise InputError(f"invalid measure {written}: unknown parameter {unknown[0]!r}", expected=", ".join(supported))
    for name, value in measure.params.items():
        param = PARAMS[name]
        if not param.test(value):
            raise InputError(f"invalid measure {measure}: {name} ({param.desc}) must be {param.allowed}, not {value!r}")
    if "order" in measure.params and "cols" not in measure.params:
        raise InputError(f"invalid measure {measure}: an examination order needs a grid (cols=...)")


def parse(text: str, others: str = ""):
    """The measure named ``text`` (ours or ir_measures'), validated; an unknown name lists the known ones (and
    ``others``, the caller's own measures)."""
    try:
        measure = ir_measures.parse_measure(text)
    except (NameError, ValueError, SyntaxError):
        known = ", ".join(sorted(measures_base.registry))
        raise InputError(
            f"unknown measure {text!r}", expected=f"one of {known} (with @k or (param=value)){others}"
        ) from None
    validate(measure)
    return measure
