"""``ir-pref-measures judges``: agreement and reliability of preference judges
(:mod:`ir_pref_measures.agreement.panel`).

Judges are ``NAME=SOURCE`` (a preference file, ``log:PATH`` for a judging log, graded qrels, an ir_datasets ID).
The tables printed: agreement of every two judges, reliability across all of them, per-judge diagnostics, and
with ``--runs``, the runs' ordering under ``--measure`` per judge against ``--reference``.
"""

from __future__ import annotations

import argparse
import sys

from ir_pref_measures.choices import FORMATS, PREFERENCE_FORMATS
from ir_pref_measures.commands.options import positive_int, probability
from ir_pref_measures.commands.output import check_outputs, replacing, write_text
from ir_pref_measures.errors import InputError

TABLES = ("agreement", "reliability", "diagnostics", "triads", "systems")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "judges",
        description="Align two or more judges on the pairs they judged (a > b and b < a are one judgment; "
        "repeated judgments reduced by majority; graded qrels read as the preferences they imply) and report "
        "agree / tie / disagree counts, Cohen's kappa, weighted kappa, Krippendorff's alpha and Fleiss' kappa with "
        "bootstrap intervals over queries, per-judge diagnostics (coverage, self-contradictions, position bias, "
        "intransitive triads) and, with --runs, Kendall's tau and tau_AP of each judge's ordering of the runs.",
    )
    parser.add_argument("judges", nargs="+", metavar="NAME=SOURCE", help="a judge: a file, log:PATH, or an ID")
    parser.add_argument("--prefs-format", choices=[f for f in PREFERENCE_FORMATS if f != "qrels"])
    parser.add_argument(
        "--show", nargs="+", choices=TABLES, metavar="TABLE", help=f"tables to print: {', '.join(TABLES)}"
    )
    parser.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    parser.add_argument("--digits", type=positive_int, help="decimal places shown")
    parser.add_argument("--samples", type=positive_int, help="bootstrap resamples (default: 1000)")
    parser.add_argument("--seed", type=int, help="seed of the bootstrap (default: 0)")
    parser.add_argument("--confidence", type=probability, help="interval level (default: 0.95)")
    parser.add_argument("--runs", nargs="+", metavar="RUN", help="runs ordered under each judge")
    parser.add_argument("--topk", type=positive_int, metavar="K", help="cut every run (--runs) at rank K first")
    parser.add_argument("--measure", help="with --runs: the measure ordering the runs (default: PGC)")
    parser.add_argument("--reference", metavar="NAME", help="the judge whose ordering is the truth (default: first)")
    parser.add_argument("--heatmap", metavar="FILE", help="heatmap of --statistic between judges (.png, .pdf, ...)")
    parser.add_argument("--statistic", help="with --heatmap: the statistic shown (default: kappa)")
    parser.add_argument("--aligned", metavar="FILE", help="write the aligned labels (CSV)")
    parser.add_argument(
        "--majority",
        choices=("plurality", "net"),
        default="plurality",
        help="label of a pair judged several times: the most frequent label (ties when shared; default) or the "
        "sign of wins minus losses (tie votes abstain)",
    )
    parser.set_defaults(handler=run)


def _named(specs: list[str]) -> dict[str, str]:
    from ir_pref_measures.loading.sources import split_name

    named: dict[str, str] = {}
    for spec in specs:
        name, source = split_name(spec)
        if name is None:
            raise InputError(f"judge {spec!r}: name it, NAME=SOURCE")
        if name in named:
            raise InputError(f"the judge {name!r} is named twice")
        named[name] = source
    return named


def run(args: argparse.Namespace) -> None:
    from ir_pref_measures.agreement import panel as judges
    from ir_pref_measures.experiment.render import plain, render

    named = _named(args.judges)
    if len(named) < 2:
        raise InputError(f"need two or more judges, got {len(named)}")
    shown = args.show or [t for t in TABLES if t != "triads" and (t != "systems" or args.runs)]
    if args.format in ("csv", "json") and len(shown) > 1:
        raise InputError(f"{args.format} output holds one table: choose it with --show ({', '.join(shown)})")
    if args.topk is not None and not args.runs:
        raise InputError("--topk cuts the runs: it goes with --runs")
    if "systems" in shown and not args.runs:
        raise InputError("the systems table needs --runs")
    _check_combinations(args, shown)
    samples, seed, confidence = judges.bootstrap_options(*_bootstrap(args))
    reference = args.reference or next(iter(named))
    if reference not in named:
        raise InputError(f"--reference {reference!r} is not a judge: {', '.join(named)}")
    outputs = {"--heatmap": args.heatmap, "--aligned": args.aligned}
    check_outputs(outputs, {"NAME=SOURCE": list(named.values()), "--runs": args.runs})
    aligned = judges.align(named, format=args.prefs_format, majority=args.majority)
    agreement = judges.agreement(aligned, samples=samples, seed=seed, confidence=confidence)
    tables = {
        "agreement": lambda: agreement,
        "reliability": lambda: judges.reliability(aligned, samples=samples, seed=seed, confidence=confidence),
        "diagnostics": lambda: judges.diagnostics(aligned),
        "triads": lambda: judges.triads(aligned),
        "systems": lambda: judges.system_agreement(
            args.runs, named, args.measure or "PGC", reference, format=args.prefs_format, topk=args.topk
        ),
    }
    parts = []
    for name in shown:
        table = tables[name]()
        if args.format in ("latex", "html"):
            parts.append(plain(table, args.format, args.digits, caption=name))
        elif args.format in ("csv", "json"):
            parts.append(render(table, args.format, args.digits))
        else:
            parts.append(f"{name}:\n{render(_named_rows(table), args.format, args.digits)}")
    if args.heatmap:
        from ir_pref_measures.meta.plots import agreement_heatmap, save

        figure = agreement_heatmap(judges.matrix(agreement, args.statistic or "kappa"), title=args.statistic or "kappa")
        with replacing(args.heatmap) as temporary:
            save(figure, temporary)
        print(f"wrote {args.heatmap}", file=sys.stderr)
    if args.aligned:
        write_text(args.aligned, aligned.frame().to_csv(index=False))
    sys.stdout.write("\n".join(parts))


def _bootstrap(args: argparse.Namespace) -> tuple:
    """``--samples``, ``--seed``, ``--confidence`` with their defaults."""
    given = (args.samples, args.seed, args.confidence)
    return tuple(default if value is None else value for value, default in zip(given, (1000, 0, 0.95), strict=True))


def _check_combinations(args: argparse.Namespace, shown: list[str]) -> None:
    """An option that the tables and files asked for do not use is an error, never ignored."""
    unused = []
    if not args.runs:
        given: tuple[tuple[str, object], ...] = (("--measure", args.measure), ("--reference", args.reference))
        unused += [option for option, value in given if value is not None]
    elif "systems" not in shown:
        unused.append("--runs (the systems table: --show systems)")
    if args.statistic is not None and not args.heatmap:
        unused.append("--statistic (it goes with --heatmap)")
    if not ({"agreement", "reliability"} & set(shown)) and not args.heatmap:
        given = (("--samples", args.samples), ("--seed", args.seed), ("--confidence", args.confidence))
        unused += [
            f"{option} (the bootstrap of the agreement and reliability tables)" for option, v in given if v is not None
        ]
    if unused:
        raise InputError(f"option(s) without effect here: {'; '.join(unused)}")


def _named_rows(table):
    """The table with a ``name`` column first, as the aligned and markdown forms show rows: two judges as
    ``A vs B``, else the first column."""
    if "judge a" in table.columns:
        names = table["judge a"] + " vs " + table["judge b"]
        return table.drop(columns=["judge a", "judge b"]).assign(name=names)[["name", *table.columns[2:]]]
    return table.rename(columns={table.columns[0]: "name"})
