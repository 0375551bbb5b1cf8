"""Regenerate the tables of ``docs/performance.md`` from the benchmarks' JSON (``benchmarks/results/*.json``).

Each table sits between ``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->`` in the page; this script replaces
what is between the markers with the table of ``results/NAME.json``.

    python benchmarks/tables.py [--check]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).parent
PAGE = ROOT.parent / "docs" / "performance.md"


def table(record: dict) -> str:
    """The Markdown table of one result file."""
    load = record.get("load_average")
    note = f"{record['inputs']}; {record['date']}" + (f", load average {load[0]:.1f}" if load else "")
    lines = [f"_{note}_", "", "| variant | best s | × floor | peak MB |", "|---|---|---|---|"]
    for r in record["rows"]:
        lines.append(f"| {r['variant']} | {r['seconds']:.3f} | {r['x_floor']:.2f} | {r['peak_mb']:,.0f} |")
    return "\n".join(lines)


def render(page: str, results: Path) -> str:
    """``page`` with every marked table replaced by the one of its result file."""

    def replace(match: re.Match) -> str:
        name = match.group(1)
        record = json.loads((results / f"{name}.json").read_text())
        return f"<!-- bench:{name} -->\n{table(record)}\n<!-- /bench:{name} -->"

    return re.sub(r"<!-- bench:([\w-]+) -->.*?<!-- /bench:\1 -->", replace, page, flags=re.S)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is not up to date")
    args = parser.parse_args()
    page = PAGE.read_text()
    new = render(page, ROOT / "results")
    if args.check:
        sys.exit(0 if new == page else 1)
    PAGE.write_text(new)


if __name__ == "__main__":
    main()
