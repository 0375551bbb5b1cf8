"""The ``ir-pref-measures`` command."""

from __future__ import annotations

import argparse
import os
import sys

from ir_pref_measures.errors import InputError
from ir_pref_measures.formats import PREFERENCE_FORMATS


def _eval(args: argparse.Namespace) -> None:
    """The ir_measures command line with the preference measures registered, plus ``--prefs``."""
    import ir_measures
    from ir_measures.__main__ import OUTPUT_FORMATS, SUMMARY_QID
    from ir_measures.util import Metric

    from ir_pref_measures.adapters import ir_datasets as irds
    from ir_pref_measures.adapters.ir_measures import PreferenceProvider, iter_calc
    from ir_pref_measures.formats import read_qrels, read_run
    from ir_pref_measures.judgments import load_combined

    qrels = None
    if args.qrels != "-":
        qrels = read_qrels(args.qrels) if os.path.exists(args.qrels) else irds.qrels(args.qrels)
        qrels = qrels[["query_id", "doc_id", "relevance"]]
    if qrels is None and args.prefs is None:
        raise InputError("no judgments: QRELS is '-' and no --prefs file was given")
    judgments = load_combined(qrels, args.prefs, format=args.prefs_format)
    run = read_run(args.run)[["query_id", "doc_id", "score"]]
    measures, errors = [], []
    for text in args.measures:
        for name in text.split():
            try:
                measure = ir_measures.parse_measure(name)
            except NameError:
                errors.append(f"unknown measure: {name}")
                continue
            except ValueError:
                errors.append(f"syntax error: {name}")
                continue
            if measure not in measures:
                measures.append(measure)
    if errors:
        known = ", ".join(sorted(name for name in ir_measures.measures.registry))
        raise InputError("\n".join(["error parsing measures", *errors, f"known measures: {known}"]))
    if args.no_summary and not args.by_query:
        raise InputError("--no_summary (-n) only goes with --by_query (-q)")
    output = OUTPUT_FORMATS[args.output_format](args)
    if args.provider:  # as ir_measures: one provider for every measure
        provider = ir_measures.providers.registry[args.provider]
        ours = provider.NAME == PreferenceProvider.NAME
        if not ours and qrels is None:
            raise InputError(f"provider {args.provider} needs graded qrels, but QRELS is '-'")
        try:
            results = list(provider.iter_calc(measures, judgments if ours else qrels, run))
        except RuntimeError as error:  # e.g. a provider whose package is not installed
            raise InputError(str(error)) from None
    else:
        results = iter_calc(measures, run, qrels=qrels, judgments=judgments)
    aggregates = {m: m.aggregator() for m in measures}
    for metric in results:
        aggregates[metric.measure].add(metric.value)
        if args.by_query:
            output(metric)
    if not args.no_summary:
        for measure in measures:
            output(Metric(query_id=SUMMARY_QID, measure=measure, value=aggregates[measure].result()))


def _pairwise_pref_eval(args: argparse.Namespace) -> None:
    from ir_pref_measures.pairwise_pref_eval import evaluate, report

    sys.stdout.write(report(evaluate(args.prefs, args.run, transitive=not args.i), per_query=args.q))


def _demo(args: argparse.Namespace) -> None:
    from ir_pref_measures.demo import run_demo

    print(run_demo())


def _provider_names() -> list[str]:
    import ir_measures

    import ir_pref_measures  # noqa: F401  (registers our provider)

    return sorted(ir_measures.providers.registry)


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="ir-pref-measures", description="Preference-based IR evaluation.")
    commands = main.add_subparsers(dest="command", required=True)

    demo = commands.add_parser("demo", help="evaluate the built-in example and print a table")
    demo.set_defaults(handler=_demo)

    ev = commands.add_parser(
        "eval",
        help="the ir_measures command line, with the preference measures",
        description="Like `ir_measures QRELS RUN MEASURE...`, with ppref@k, APpref, ... registered. "
        "QRELS is a TREC qrels file, an ir_datasets ID, or '-' for none (then --prefs is needed).",
    )
    ev.add_argument("qrels")
    ev.add_argument("run")
    ev.add_argument("measures", nargs="+")
    ev.add_argument("--prefs", help="a preference judgment file (alone, or combined with QRELS)")
    ev.add_argument("--prefs-format", choices=PREFERENCE_FORMATS, help="its format (detected if unambiguous)")
    ev.add_argument("--places", "-p", type=int, default=4)
    ev.add_argument("--by_query", "-q", action="store_true")
    ev.add_argument("--no_summary", "-n", action="store_true")
    ev.add_argument("--output_format", "-o", choices=("tsv", "jsonl"), default="tsv")
    ev.add_argument("--provider", choices=_provider_names(), help="compute every measure with this provider")
    ev.set_defaults(handler=_eval)

    ppe = commands.add_parser(
        "pairwise-pref-eval",
        help="drop-in for pairwise_pref_eval.py (byte-identical output)",
        description="Reproduces Elsas' pairwise_pref_eval.py: PREFS in the carterette format, RUN a TREC run.",
    )
    ppe.add_argument("-q", action="store_true", help="print per-query results")
    ppe.add_argument("-i", action="store_true", help="no transitive closure of the preferences")
    ppe.add_argument("prefs")
    ppe.add_argument("run")
    ppe.set_defaults(handler=_pairwise_pref_eval)

    from ir_pref_measures.pref_eval import add_compare_commands

    add_compare_commands(commands)
    from ir_pref_measures.presets import add_pgc_commands

    add_pgc_commands(commands)
    from ir_pref_measures.experiment import add_experiment_commands

    add_experiment_commands(commands)
    # -- commands of meta-evaluation (issue 6): add_meta_commands(commands) --
    from ir_pref_measures.meta_cli import add_meta_commands

    add_meta_commands(commands)
    from ir_pref_measures.trec_eval_command import add_parser as add_trec_eval  # temporary: moves to commands/

    add_trec_eval(commands)
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        args.handler(args)
    except (InputError, ValueError) as error:
        sys.stderr.write(f"ir-pref-measures {args.command}: {error}\n")
        return 2
    except BrokenPipeError:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
