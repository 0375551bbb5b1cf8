"""Checks of the arguments of public functions: each returns the value in its canonical type or raises
:class:`~ir_pref_measures.errors.InputError` in one form, ``NAME=VALUE: must be EXPECTED``.

A number is an ``int`` or a ``float`` (numpy's too), never a ``bool`` or a string: ``"0.9"`` is refused rather
than read, so that the command line (which reads its text) and the API give the same answer for the same value.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection

from ir_pref_measures.errors import InputError


def _fail(name: str, expected: str, value) -> None:
    raise InputError(f"{name}={value!r}: must be {expected}")


def number(value, name: str) -> float:
    """``value`` as a finite float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        _fail(name, "a finite number", value)
    return float(value)


def integer(value, name: str, minimum: int | None = None) -> int:
    """``value`` as an int (an integral float is taken), at least ``minimum`` when given."""
    expected = "an integer" if minimum is None else f"an integer >= {minimum}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        _fail(name, expected, value)
    if int(value) != value or (minimum is not None and value < minimum):
        _fail(name, expected, value)
    return int(value)


def seed(value, name: str = "seed") -> int:
    """A seed of ``numpy.random.default_rng``: an integer >= 0."""
    return integer(value, name, 0)


def positive_int(value, name: str) -> int:
    """An integer >= 1 (a depth, a number of samples)."""
    return integer(value, name, 1)


def non_negative(value, name: str) -> float:
    """A finite number >= 0 (a prior's weight)."""
    if number(value, name) < 0:
        _fail(name, "a finite number >= 0", value)
    return float(value)


def positive(value, name: str) -> float:
    """A finite number > 0 (an Elo k, a scale)."""
    if number(value, name) <= 0:
        _fail(name, "a finite number > 0", value)
    return float(value)


def open_unit(value, name: str) -> float:
    """A number strictly between 0 and 1 (a confidence level, a persistence)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < float(value) < 1:
        _fail(name, "a number strictly between 0 and 1", value)
    return float(value)


def choice(value, name: str, choices: Collection[str]) -> str:
    """One of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        _fail(name, f"one of {', '.join(map(repr, choices))}", value)
    return value
