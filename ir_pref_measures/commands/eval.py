"""``ir-pref-measures eval``: the ir_measures command line with the preference measures, plus ``--prefs``."""

from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor

from ir_pref_measures.choices import PREFERENCE_FORMATS
from ir_pref_measures.commands.options import add_dask_option, dask_client, positive_int
from ir_pref_measures.errors import InputError


def add_parser(subparsers) -> None:
    ev = subparsers.add_parser(
        "eval",
        description="Like `ir_measures QRELS RUN MEASURE...`, with ppref@k, APpref, ... registered. "
        "QRELS is a TREC qrels file, an ir_datasets ID, or '-' for none (then --prefs is needed).",
    )
    ev.add_argument("qrels")
    ev.add_argument("run")
    ev.add_argument("measures", nargs="+")
    ev.add_argument(
        "--prefs",
        action="append",
        default=[],
        help="a preference judgment file or FORMAT:PATH (alone, or combined with QRELS; repeatable: their union)",
    )
    ev.add_argument(
        "--prefs-format", choices=PREFERENCE_FORMATS, help="the format of --prefs files (detected if unambiguous)"
    )
    ev.add_argument("--places", "-p", type=int, default=4)
    ev.add_argument("--by_query", "-q", action="store_true")
    ev.add_argument("--no_summary", "-n", action="store_true")
    ev.add_argument("--output_format", "-o", choices=("tsv", "jsonl"), default="tsv")
    ev.add_argument(
        "--provider",
        type=_provider,
        metavar="NAME",
        help="compute every measure with this ir_measures provider (pytrec_eval, ir_pref_measures, ...; a wrong "
        "name lists them)",
    )
    ev.add_argument(
        "--n-jobs",
        type=positive_int,
        default=None,
        help="threads computing blocks of queries for the preference measures (default: every core)",
    )
    add_dask_option(ev)
    ev.set_defaults(handler=run)


def run(args: argparse.Namespace) -> None:
    """The ir_measures command line with the preference measures registered, plus ``--prefs``. Everything is
    read, checked and computed before the first line is printed."""
    from ir_measures.__main__ import OUTPUT_FORMATS, SUMMARY_QID
    from ir_measures.util import Metric

    if args.no_summary and not args.by_query:
        raise InputError("--no_summary (-n) only goes with --by_query (-q)")
    measures = _measures(args.measures)
    if args.qrels == "-" and not args.prefs:
        raise InputError("no judgments: QRELS is '-' and no --prefs file was given")
    if args.dask:
        if args.provider:
            raise InputError("--provider does not go with --dask (the cluster computes with the default providers)")
        results = _on_cluster(args, measures)
    else:
        results = _locally(args, measures)
    aggregates = {m: m.aggregator() for m in measures}
    for metric in results:  # in query id order: the means do not depend on the order of the input
        aggregates[metric.measure].add(metric.value)
    output = OUTPUT_FORMATS[args.output_format](args)
    for metric in results if args.by_query else ():
        output(metric)
    if not args.no_summary:
        for measure in measures:
            output(Metric(query_id=SUMMARY_QID, measure=measure, value=aggregates[measure].result()))


def _locally(args: argparse.Namespace, measures: list) -> list:
    """Per-query metrics in query id order, computed in this process (on ``--n-jobs`` threads)."""
    import ir_measures

    from ir_pref_measures.adapters.ir_measures import PreferenceProvider
    from ir_pref_measures.engine import checked_metrics, set_n_jobs
    from ir_pref_measures.loading import sources
    from ir_pref_measures.measures.names import is_package_measure
    from ir_pref_measures.model.checks import check_run
    from ir_pref_measures.parsing.names import run_name

    set_n_jobs(args.n_jobs)
    with ThreadPoolExecutor(1) as reader:  # the run is read while the judgments are (Arrow and numpy free the GIL)
        reading = reader.submit(sources.ranking, args.run)
        judgments = sources.named_judgments(_judgment_specs(args), preference_format=args.prefs_format)
        run = reading.result()  # a bad judgment file is reported first, as when read one after the other
    name = run_name(args.run)
    graded = [] if args.provider else [m for m in measures if not is_package_measure(m)]  # integer grades needed
    judged = check_run(run, judgments, name, graded)  # the judged docs looked up once, for the checks and the engine
    ours = args.provider == PreferenceProvider.NAME or not args.provider and all(map(is_package_measure, measures))
    if args.provider:  # as ir_measures: one provider for every measure
        provider = ir_measures.providers.registry[args.provider]
        qrels = None if ours else judgments.qrels()  # the graded part, for ir_measures' own measures
        if not ours and qrels is None:
            raise InputError(f"provider {args.provider} needs graded qrels, but the judgments hold none")
        try:
            results = list(provider.iter_calc(measures, judgments if ours else qrels, run.frame()))
        except RuntimeError as error:  # e.g. a provider whose package is not installed
            raise InputError(str(error)) from None
        position = {measure: i for i, measure in enumerate(measures)}
        results.sort(key=lambda metric: (metric.query_id, position[metric.measure]))
        return results
    return checked_metrics(measures, run, judgments, judged)


def _on_cluster(args: argparse.Namespace, measures: list) -> list:
    """Per-query metrics in query id order, computed on the Dask cluster of ``--dask``: the judgments are resolved
    here (:func:`~ir_pref_measures.loading.sources.locations`) and read on the workers, as the run is."""
    from ir_measures.util import Metric

    from ir_pref_measures.dask.dataframes import evaluate_frames, located_frames, run_frame
    from ir_pref_measures.loading import sources

    by_name = {str(measure): measure for measure in measures}
    with dask_client(args.dask, args.dask_timeout):
        judged = located_frames(sources.locations(_judgment_specs(args)), preference_format=args.prefs_format)
        frame = evaluate_frames(judged, run_frame(args.run), list(by_name)).compute()
    return [Metric(query_id=q, measure=by_name[m], value=v) for q, m, v in frame.itertuples(index=False)]


def _judgment_specs(args: argparse.Namespace) -> list[str]:
    """QRELS (unless ``-``) and every ``--prefs``, as given."""
    return ([] if args.qrels == "-" else [args.qrels]) + args.prefs


def _measures(texts: list[str]) -> list:
    """The measures named, each once, in order; unknown names all reported at once, as ir_measures does, each with
    the closest known names."""
    from ir_pref_measures.measures.names import UnknownMeasureError, parse_measure

    measures, errors, expected = [], [], None
    for name in (name for text in texts for name in text.split()):
        try:
            measure = parse_measure(name)
        except UnknownMeasureError as error:
            close = " or ".join(error.suggestions)
            errors.append(f"unknown measure: {name}{f' (did you mean {close}?)' if close else ''}")
            expected = error.expected
            continue
        if measure not in measures:
            measures.append(measure)
    if errors:
        raise InputError("\n".join(["error parsing measures", *errors]), expected=expected)
    return measures


def _provider(name: str) -> str:
    """``name`` if it is a provider of ir_measures' registry (read when the option is given, so that ``--help``
    imports no ir_measures)."""
    known = _provider_names()
    if name not in known:
        raise argparse.ArgumentTypeError(f"invalid choice: {name!r} (choose from {', '.join(known)})")
    return name


def _provider_names() -> list[str]:
    import ir_measures

    import ir_pref_measures  # noqa: F401  (registers our provider)

    return sorted(ir_measures.providers.registry)
