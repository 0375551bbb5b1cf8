"""PyTerrier pipelines before they run, as ``pt.Experiment`` treats them: the check that each produces the columns
the measures read (``validate``), and the drawing of the execution plan (``plan="tree"`` with ``verbose``).

Measures defined at run time (``ir_measures.define`` / ``define_byquery``) read the columns they declare
(``run_inputs``); every other measure reads ``qid, docno, score``."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping

import pandas as pd

from ir_pref_measures.errors import InputError, user_stacklevel

VALIDATE = ("warn", "error", "ignore")
RANKING_COLUMNS = ("qid", "docno", "score")
_PYTERRIER_NAMES = {"query_id": "qid", "doc_id": "docno"}


def is_runtime_measure(measure) -> bool:
    """A measure defined at run time with ``ir_measures.define`` / ``define_byquery`` (ir_measures' ``runtime``
    provider): it reads the results as given, with their other columns."""
    return hasattr(measure, "runtime_impl")


def required_columns(measures: Iterable) -> set[str]:
    """The result columns ``measures`` read, in PyTerrier's names (``qid``, ``docno``, ...)."""
    import ir_measures

    measures = list(measures)
    runtime = [m for m in measures if is_runtime_measure(m)]
    needed = set(ir_measures.run_inputs(runtime)) if runtime else set()
    if len(runtime) < len(measures):
        needed |= {"query_id", "doc_id", "score"}
    return {_PYTERRIER_NAMES.get(column, column) for column in needed}


def check_outputs(systems: Mapping[str, object], topics, measures: Iterable, validate: str) -> None:
    """``pt.Experiment``'s ``validate``: each Transformer (inspected on ``topics``' columns with
    ``pt.inspect.transformer_outputs``) and each result frame must produce the columns the measures read. A
    missing column is an :class:`InputError` (a ``ValueError``) with ``validate="error"``, a warning with ``"warn"``;
    a pipeline that cannot be inspected, or whose inputs do not fit, is a warning; ``"ignore"`` checks nothing."""
    if validate == "ignore":
        return
    required = required_columns(measures)
    wrong: list[str] = []
    unknown: list[str] = []
    for name, system in systems.items():
        found: set[str] | str | None
        if isinstance(system, pd.DataFrame):
            found = {_PYTERRIER_NAMES.get(str(c), str(c)) for c in system.columns}
        elif is_transformer(system):
            found = _transformer_outputs(system, topics)
            if isinstance(found, str):
                wrong.append(f"run {name!r} does not fit its inputs: {found}")
                continue
            if found is None:
                unknown.append(name)
                continue
        else:
            continue  # files and other sources are checked when read
        missing = sorted(required - found)
        if missing:
            produces = sorted(found)
            wrong.append(f"run {name!r} does not produce all required columns: missing {missing} (produces {produces})")
    if unknown:
        warnings.warn(
            f"cannot tell what these pipelines produce (pt.inspect): {', '.join(map(repr, unknown))}; "
            "validate='ignore' silences this",
            stacklevel=user_stacklevel(),
        )
    if wrong:
        message = "; ".join(wrong) + f" (the measures read {sorted(required)})"
        if validate == "error":
            raise InputError(message)
        warnings.warn(message, stacklevel=user_stacklevel())


def _transformer_outputs(system, topics) -> set[str] | str | None:
    """The columns ``system`` produces on ``topics``' columns; why its inputs do not fit (a string); or None when
    PyTerrier cannot tell."""
    import pyterrier as pt

    columns = list(topics.columns) if isinstance(topics, pd.DataFrame) else ["qid", "query"]
    try:
        return set(pt.inspect.transformer_outputs(system, input_columns=columns) or [])
    except pt.validate.InputValidationError as error:
        return str(error)
    except pt.inspect.InspectError:
        return None


def is_transformer(run) -> bool:
    """A PyTerrier Transformer (anything with a ``transform`` method but a DataFrame)."""
    return callable(getattr(run, "transform", None)) and not isinstance(run, pd.DataFrame)


def plan_drawing(systems: Mapping[str, object]) -> str:
    """The execution plan as ``pt.Experiment(plan="tree", verbose=True)`` draws it: ``Root``, then one branch
    per pipeline (each runs in full, none shares a prefix with another), by ``str()`` as PyTerrier sorts them."""
    labels = sorted(
        f"{name} (results)" if isinstance(system, pd.DataFrame) else str(system) for name, system in systems.items()
    )
    return "\n".join(["Root", *(("└─ " if i == len(labels) - 1 else "├─ ") + label for i, label in enumerate(labels))])
