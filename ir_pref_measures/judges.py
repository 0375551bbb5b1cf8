"""Deprecated: :mod:`ir_pref_measures.agreement` under its old name, kept for one release.

``ipm.judges`` and ``import ir_pref_measures.judges`` (and its submodules ``panel``, ``coefficients``, ``position``,
``ppi``, ``sources``) give the objects of :mod:`ir_pref_measures.agreement`; the first import in a process warns
(``DeprecationWarning``) once, as every module body runs once per process.
"""

import sys as _sys

from ir_pref_measures import agreement as _agreement
from ir_pref_measures.agreement import *  # noqa: F403
from ir_pref_measures.agreement import coefficients, panel, position, ppi, sources
from ir_pref_measures.errors import renamed as _renamed

__all__ = list(_agreement.__all__)

for _module in (coefficients, panel, position, ppi, sources):
    _sys.modules[f"{__name__}.{_module.__name__.rsplit('.', 1)[1]}"] = _module

_renamed("ir_pref_measures.judges", "ir_pref_measures.agreement (ipm.agreement)")
