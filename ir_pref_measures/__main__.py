"""``python -m ir_pref_measures``: the ``ir-pref-measures`` command."""

import sys

from ir_pref_measures.commands import main

sys.exit(main())
