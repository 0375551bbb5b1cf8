"""Deprecated module paths of the judging package: a module that moved keeps its old path for one release as a
thin re-export that warns once, on the first name taken from it."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any


def moved(old: str, new: str) -> Callable[[str], Any]:
    """The module ``__getattr__`` of the old path ``old``: every name from the module ``new``, with one
    ``DeprecationWarning`` saying where it lives now."""
    warned: list[str] = []

    def __getattr__(name: str) -> Any:
        value = getattr(importlib.import_module(new), name)
        if not warned:
            warned.append(name)
            warnings.warn(
                f"{old} moved to {new} (the old path is removed in the next release)", DeprecationWarning, stacklevel=2
            )
        return value

    return __getattr__
