"""A package's public names imported on first use (PEP 562's module ``__getattr__``), so that importing the package
loads none of its modules until one of its names is asked for."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Mapping


def lazy_names(package: str, modules: Mapping[str, str], names: Collection[str]) -> tuple[Callable, Callable]:
    """The ``__getattr__`` and ``__dir__`` of ``package``: each name of ``modules`` (name -> module of the package
    holding it) imported on first use and kept in the package's namespace; ``names`` (its ``__all__``) listed by
    ``dir``."""
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str):
        if name not in modules:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{modules[name]}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    return __getattr__, __dir__
