"""Generate licence-clean stand-ins of the real-data tier: the same folder layout, file names and line formats,
a few topics and documents, every byte a function of the seed.

The generator is the package's (:func:`ir_pref_measures.examples.make`, which also writes the example files of the
documentation: ``ir-pref-measures demo --files DIR``). ``tests/conftest.py`` runs this script at session start into a
temporary folder when the real-data tier is absent, so the tests whose assertions hold on any data of these shapes
(and the examples of the README and of ``docs/``) run on a fresh clone. To look at them::

    python tests/data/standins/make.py /tmp/standins
"""

from __future__ import annotations

import sys

from ir_pref_measures.examples import make

if __name__ == "__main__":
    print(make(sys.argv[1]))
