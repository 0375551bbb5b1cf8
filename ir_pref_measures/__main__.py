import sys

from ir_pref_measures.commands import main

sys.exit(main())
