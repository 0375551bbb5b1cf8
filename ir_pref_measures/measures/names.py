"""Measure names: parsing and checking ir_measures measure objects, ours (declared in
:mod:`~ir_pref_measures.measures.catalog`) and ir_measures' own.

Our measures are registered with ir_measures on ``import ir_pref_measures``, so ``ir_measures.parse_measure``
knows every name here; a parameter is checked against the catalog's declaration.
"""

from __future__ import annotations

import ir_measures
from ir_measures.measures import base as measures_base

from ir_pref_measures.errors import InputError
from ir_pref_measures.measures.catalog import PARAMS, SPECS, TREC_EVAL, MeasureSpec


def is_preference_measure(measure) -> bool:
    """True for a measure of the catalog (computed by :mod:`ir_pref_measures.engine`), False for ir_measures'."""
    return measure.NAME in SPECS


def declared(measure) -> MeasureSpec | None:
    """The catalog's declaration of ``measure``: ours, or ir_measures' own measures that the catalog declares
    (:data:`~ir_pref_measures.measures.catalog.TREC_EVAL`); ``None`` for the others."""
    return SPECS.get(measure.NAME) or TREC_EVAL.get(measure.NAME)


def invalid(measure, name: str, value, allowed: str, desc: str | None = None, text: str | None = None) -> InputError:
    """The one message form of a bad measure parameter (``text``: the measure as the user wrote it)."""
    about = f" ({desc})" if desc else ""
    return InputError(f"invalid measure {_written(measure, text)}: {name}{about} must be {allowed}, not {value!r}")


def _written(measure, text: str | None = None) -> str:
    """``text`` (the measure as written), else the measure by its name (``P@0``), or with an unknown parameter
    (which ``str`` fails on), its name and every parameter given."""
    if text is not None:
        return text
    if all(name in measure.SUPPORTED_PARAMS for name in measure.params):
        return str(measure)
    params = ", ".join(f"{k}={v!r}" for k, v in measure.params.items())
    return f"{measure.NAME}({params})"


def check_declared(measure, text: str | None = None) -> None:
    """Raise :class:`InputError` in one form when a parameter of ``measure`` lies outside the range the catalog
    declares for it: every declared parameter of a declared measure, and the cutoff of any measure (an integer
    >= 1), before any provider sees it. Parameters the catalog does not declare are left to ir_measures."""
    spec = declared(measure)
    for name, value in measure.params.items():
        if spec is not None and name in spec.params or name == "cutoff":
            param = PARAMS[name]
            if not param.test(value):
                raise invalid(measure, name, value, param.allowed, param.desc, text)


def validate(measure, text: str | None = None) -> None:
    """Raise :class:`InputError` naming ``measure`` when a parameter is unknown, outside the range the catalog
    declares (:func:`check_declared`), missing where the catalog needs it and no installed provider computes the
    measure without it, or (a parameter the catalog does not declare) fails ir_measures' own check. ``text``: the
    measure as the user wrote it, for the message."""
    supported = measure.SUPPORTED_PARAMS
    unknown = [name for name in measure.params if name not in supported]
    if unknown:
        raise InputError(
            f"invalid measure {_written(measure, text)}: unknown parameter {unknown[0]!r}",
            expected=", ".join(supported),
        )
    check_declared(measure, text)
    spec = declared(measure)
    for name, info in supported.items():  # ir_measures' own check of the parameters the catalog leaves to it
        value = measure.params.get(name, measures_base._NOT_PROVIDED)
        if (spec is None or name not in spec.params) and name != "cutoff" and not info.validate(value):
            if name not in measure.params:
                raise InputError(f"invalid measure {_written(measure, text)}: {name} ({info.desc}) must be given")
            allowed = f"of type {getattr(info.dtype, '__name__', info.dtype)}"
            if info.choices is not measures_base._NOT_PROVIDED:
                allowed = f"one of {', '.join(map(repr, info.choices))}"
            raise invalid(measure, name, value, allowed, info.desc, text)
    if spec is None:
        return
    missing = [name for name in spec.needs if name not in measure.params]
    if missing and spec.family == "trec_eval" and not _provided_elsewhere(measure):
        param = PARAMS[missing[0]]
        raise InputError(
            f"invalid measure {_written(measure, text)}: {missing[0]} ({param.desc}) must be given, as {param.allowed} "
            f"(no installed provider computes {measure.NAME} without it)"
        )
    if "order" in measure.params and "cols" not in measure.params:
        raise InputError(f"invalid measure {_written(measure, text)}: an examination order needs a grid (cols=...)")


def _provided_elsewhere(measure) -> bool:
    """True when an installed ir_measures provider computes ``measure`` as it is."""
    try:
        return ir_measures.DefaultPipeline.supports(measure)
    except (AssertionError, TypeError, ValueError):
        return False


def literal_measure(text: str):
    """``NAME(param=value, ...)[@cutoff]`` read with Python literals for the values (``rel=-1``, which
    ir_measures' parser does not read), or ``None`` when ``text`` is not of that form or names no measure."""
    import ast

    head, at, cutoff = text.partition("@")
    try:
        call = ast.parse(head.strip(), mode="eval").body
        if isinstance(call, ast.Name):
            call = ast.Call(call, [], [])
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name) or call.args:
            return None
        params = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        if at:
            params["cutoff"] = ast.literal_eval(cutoff.strip())
    except (SyntaxError, ValueError, TypeError):
        return None
    base = measures_base.registry.get(call.func.id)
    return None if base is None or None in params else base(**params)


def parse(text: str, others: str = ""):
    """The measure named ``text`` (ours or ir_measures'), validated; an unknown name lists the known ones (and
    ``others``, the caller's own measures)."""
    try:
        measure = ir_measures.parse_measure(text)
    except (NameError, ValueError, SyntaxError):
        measure = literal_measure(text)
    if measure is None:
        known = ", ".join(sorted(measures_base.registry))
        raise InputError(
            f"unknown measure {text!r}", expected=f"one of {known} (with @k or (param=value)){others}"
        ) from None
    validate(measure, text)
    return measure
