"""``ir-pref-measures demo``: evaluate the built-in example and print a table; with ``--files DIR``, write the files
the documentation's examples name (``qrels.txt``, ``run1.txt`` .. ``run3.txt``, ``prefs.txt``, ...) into DIR."""

from __future__ import annotations

import argparse
import sys


def add_parser(subparsers) -> None:
    demo = subparsers.add_parser(
        "demo",
        description="Evaluate the built-in example and print a table. With --files DIR, write instead the files the "
        "examples of the README and of docs/ name (qrels.txt, run.txt, run1.txt..run3.txt, prefs.txt, judge.00.., "
        "input.ICT-*.txt.gz, the CAsT 2019 files, ...) into DIR: generated stand-ins of the data sets the pages "
        "were written on (same names, formats and shapes; other numbers).",
    )
    demo.add_argument("--files", metavar="DIR", help="write the documentation's example files into DIR")
    demo.set_defaults(handler=run)


def run(args: argparse.Namespace) -> None:
    if args.files is not None:
        from ir_pref_measures.examples import write_example_files

        written = write_example_files(args.files)
        sys.stdout.write(f"{len(written)} example files in {args.files}: {' '.join(p.name for p in written)}\n")
        return
    from ir_pref_measures.experiment.demo import run_demo

    print(run_demo())
