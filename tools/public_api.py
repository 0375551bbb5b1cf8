"""Write (or, with ``--check``, compare) the measure objects of ``ir_pref_measures/__init__.py``: one explicit
declaration per measure of the catalog, so that type checkers and IDEs see ``ipm.ppref``, ``ipm.PGC``, ..., and the
tuple of their names, with which the module makes them on first use (without importing ir_measures before). Reads
the installed package's catalog.

    python tools/public_api.py           # rewrite the generated block
    python tools/public_api.py --check   # exit 1 if it is out of date
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

INIT = Path(__file__).resolve().parents[1] / "ir_pref_measures" / "__init__.py"
BLOCKS = {  # marker -> the generated lines, given the measure names
    "measure objects": lambda names: [f"{name}: _Measure" for name in names],
    "measure names": lambda names: ["_MEASURE_NAMES = (", *(f'    "{name}",' for name in names), ")"],
}


def measure_names() -> list[str]:
    """The names of the catalog's measures, in its order (those ``import ir_pref_measures`` registers)."""
    from ir_pref_measures.adapters.ir_measures import MEASURES

    return list(MEASURES)


def generated(text: str, names: list[str]) -> str:
    """``text`` (the module's source) with each block between ``# BEGIN <marker>`` and ``# END <marker>``
    rewritten."""
    for marker, lines in BLOCKS.items():
        pattern = re.compile(rf"(^# BEGIN {marker}\b[^\n]*\n).*?(^# END {marker}\n)", re.S | re.M)
        if not pattern.search(text):
            raise SystemExit(f"{INIT}: no '# BEGIN {marker}' ... '# END {marker}' block")
        body = "".join(f"{line}\n" for line in lines(names))
        text = pattern.sub(lambda m, body=body: m.group(1) + body + m.group(2), text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the blocks are out of date")
    args = parser.parse_args(argv)
    text = INIT.read_text()
    new = generated(text, measure_names())
    if args.check:
        if new != text:
            print(f"{INIT} is out of date with the catalog: run python tools/public_api.py", file=sys.stderr)
            return 1
        return 0
    INIT.write_text(new)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
