"""Deprecated module paths of the judging package: a module that moved keeps its old path for one release as a
thin re-export that warns once, on the first name taken from it (in the words of
:func:`~ir_pref_measures.errors.renamed`)."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any


def moved(old: str, new: str) -> Callable[[str], Any]:
    """The module ``__getattr__`` of the old path ``old``: every name from the module ``new``, with one
    ``DeprecationWarning`` saying where it lives now (once per import of ``old``)."""
    warned: list[str] = []

    def __getattr__(name: str) -> Any:
        value = getattr(importlib.import_module(new), name)
        if not warned:
            warned.append(name)
            message = f"{old} is deprecated: it is {new} now (the old path is removed in the next release)"
            warnings.warn(message, DeprecationWarning, stacklevel=2)
        return value

    return __getattr__
