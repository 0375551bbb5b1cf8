"""``ir-pref-measures demo``: evaluate the built-in example and print a table."""

from __future__ import annotations

import argparse


def add_parser(subparsers) -> None:
    demo = subparsers.add_parser("demo")
    demo.set_defaults(handler=run)


def run(args: argparse.Namespace) -> None:
    from ir_pref_measures.experiment.demo import run_demo

    print(run_demo())
