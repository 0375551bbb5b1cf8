"""Registration with ir_measures, paid only by a process that uses ir_measures.

``import ir_pref_measures`` calls :func:`register_with_ir_measures`: if ir_measures is already imported, the measures
are registered at once; else a post-import hook (a :data:`sys.meta_path` finder, the pattern of wrapt's
``register_post_import_hook``) wraps the loader of ``ir_measures`` and registers right after ir_measures' own module
has run, so that ``import ir_measures`` alone gives ``ir_measures.parse_measure("ppref@10")``. The finder stays in
place, so a reloaded or re-imported ir_measures is registered again. It imports no more than ``sys`` and
``importlib`` (not ``importlib.abc``, 8 ms): the import protocol needs the methods, not the base classes.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

TARGET = "ir_measures"
ADAPTER = "ir_pref_measures.adapters.ir_measures"


def _register() -> None:
    """Import the adapter, whose import registers the measures; call its ``register`` again when the adapter was
    imported before (ir_measures reloaded or imported anew). Inside the adapter's own import (its ``import
    ir_measures`` line brought us here) ``register`` is not defined yet: the adapter registers as its import ends."""
    register = getattr(importlib.import_module(ADAPTER), "register", None)
    if register is not None:
        register()


class _RegisteringLoader:
    """ir_measures' own loader, registering our measures once it has executed the module."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        if getattr(module, "__loader__", None) is self:  # the module keeps its own loader, as without the hook
            module.__loader__ = self.loader
        if getattr(module.__spec__, "loader", None) is self:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        _register()


class RegisteringFinder:
    """Finds nothing itself: takes ``ir_measures``' spec from the other finders and wraps its loader."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != TARGET:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = None if _is_hook(finder) or find is None else find(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and not isinstance(spec.loader, _RegisteringLoader):
                    spec.loader = _RegisteringLoader(spec.loader)
                return spec
        return None


def _is_hook(finder) -> bool:
    """Whether ``finder`` is a :class:`RegisteringFinder`, of this module or of a re-imported copy of it."""
    return type(finder).__module__ == __name__ and type(finder).__name__ == "RegisteringFinder"


def register_with_ir_measures() -> None:
    """Register the measures with ir_measures now if it is imported, and whenever it is imported (idempotent)."""
    if not any(_is_hook(finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, RegisteringFinder())
    if TARGET in sys.modules:
        _register()
