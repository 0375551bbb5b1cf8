import sys

from ir_pref_measures.cli import main

sys.exit(main())
