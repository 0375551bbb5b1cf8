"""The parameters a measure of the catalog may take (:data:`PARAMS`): type, default, meaning, and the allowed
values, as a test and the same in words. :mod:`~ir_pref_measures.measures.names` checks a measure's parameters
against them, and the docs' tables show them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

import numpy as np

ORDERS = ("left_right", "weighted", "middle", "bottom_top", "manhattan", "euclidean")  # image_grid's examination orders


def _integer(value: object) -> TypeGuard[int | np.integer]:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _number(value: object) -> TypeGuard[int | float | np.integer | np.floating]:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


@dataclass(frozen=True)
class Param:
    """A measure parameter: its type, default, meaning, and the allowed values (a test and the same in words)."""

    dtype: type | tuple[type, ...]
    desc: str
    test: Callable[[Any], object]  # truthy for an allowed value
    allowed: str
    default: object = None  # None: optional, without a value
    shown_default: str | None = None  # the default in the docs' tables, when there is no value


_POSITIVE_INTEGER = (lambda v: _integer(v) and v >= 1, "an integer >= 1")  # a Param's test and its words

PARAMS = {
    "cutoff": Param(
        int,
        "ranking cutoff k (default: the whole run)",
        *_POSITIVE_INTEGER,
        shown_default="whole run",
    ),
    "beta": Param((int, float), "weight of recall", lambda v: _number(v) and 0 < v < np.inf, "a number > 0", 1.0),
    "transitive": Param(
        bool,
        "take the transitive closure of the preferences (the tool's default)",
        lambda v: isinstance(v, bool),
        "True or False",
        True,
    ),
    "p": Param(
        (int, float),
        "RBO or RBP persistence, in (0, 1]",
        lambda v: _number(v) and 0 < v <= 1,
        "a number in (0, 1]",
        0.95,
    ),
    "normalize": Param(
        bool,
        "divide by the RBO of the ideal ranking with itself",
        lambda v: isinstance(v, bool),
        "True or False",
        False,
    ),
    "depth": Param(int, "RBO depth (the references use 1000)", *_POSITIVE_INTEGER, 1000),
    "cols": Param(
        int,
        "grid columns (image-grid variant)",
        *_POSITIVE_INTEGER,
        shown_default="none: a list",
    ),
    "order": Param(
        str,
        f"grid examination order, one of {', '.join(ORDERS)}",
        lambda v: v in ORDERS,
        f"one of {', '.join(repr(o) for o in ORDERS)}",
        "middle",
    ),
    "rel": Param(int, "minimum grade of a relevant doc", lambda v: _integer(v) and v >= 1, "an integer >= 1", 1),
    "judged_only": Param(
        bool,
        "remove the docs without a judgment (grade >= 0) from the run first (trec_eval -J)",
        lambda v: isinstance(v, bool),
        "True or False",
        False,
    ),
    "gains": Param(
        dict,
        "gain of each grade (unlisted grades: the grade itself)",
        lambda v: isinstance(v, dict) and all(_integer(x) for pair in v.items() for x in pair),
        "a dict of integers to integers",
        shown_default="the grade",
    ),
    "dcg": Param(str, "discount of DCG", lambda v: v == "log2", "'log2'", "log2"),
}

RBO_TIES, RBO_SCORES = ("w", "a", "b"), ("ext", "min", "max", "res")
PARAMS["persistence"] = Param(
    float, "RBP or RBO persistence, in (0, 1)", lambda v: _number(v) and 0 < v < 1, "a number in (0, 1)"
)
PARAMS["ties"] = Param(
    str, "RBO's tie variant: w (Webber), a or b (Corsi and Urbano)", lambda v: v in RBO_TIES, "w, a or b", "a"
)
PARAMS["score"] = Param(
    str,
    "RBO's score: extrapolated, lower bound, upper bound, residual",
    lambda v: v in RBO_SCORES,
    "ext, min, max or res",
)
