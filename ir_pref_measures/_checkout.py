"""Importing the package from the root of a source checkout, where ``ir_pref_measures/`` is the folder beside
``adapters/`` (installed as ``ir_pref_measures.adapters``, so absent from that folder)."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path


def module_folders(folders: list[str]) -> list[str]:
    """The folders ``ir_pref_measures``' submodules are found in, when the package was imported from a checkout's
    source folder (``folders``): the installed copy's folder when ``pip install .`` put one elsewhere (what runs is
    what was installed, ``ir_pref_measures.adapters`` included, as from any other folder); else ``folders`` (an
    editable install finds ``adapters/`` through its own import hook)."""
    here = Path(folders[0]).resolve()
    for found in importlib.metadata.distributions(name="ir-pref-measures"):  # a build's egg-info in the checkout too
        installed = Path(str(found.locate_file("ir_pref_measures")))
        if (installed / "adapters" / "__init__.py").is_file() and installed.resolve() != here:
            return [str(installed)]
    return folders
