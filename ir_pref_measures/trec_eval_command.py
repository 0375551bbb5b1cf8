"""``ir-pref-measures trec-eval``: a drop-in for ``trec_eval -R prefs|qrels_prefs`` and its 14 preference measures.

Byte-identical to trec_eval 9.0+ (usnistgov/trec_eval; C. Buckley 2008): ``runid``, ``num_q`` and the
measures in ``measures.c`` order (``-m all_prefs``, ``-m prefs`` or single names); ``-q`` adds the lines of
each query (in qid ``strcmp`` order) before the summary; values print as ``%-22s\\t%s\\t%6.4f``, counts as
``%ld``, and the summary of a count is its sum over queries. A judged query missing from the run is an
error, unless ``-c`` (then it counts as an empty ranking); queries only in the run are ignored. ``-M N``
keeps the first N docs of each query, ranked by score descending, then docno ascending.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

from ir_pref_measures.errors import InputError
from ir_pref_measures.measures.trec_prefs import COUNT_MEASURES, MEASURES, trec_prefs_values
from ir_pref_measures.trec_prefs import codes, read_prefs, read_qrels_prefs, read_run

ORDER = ("runid", "num_q", *MEASURES)  # measures.c order
NICKNAMES = {"all_prefs": ORDER, "prefs": ORDER[:8]}
READERS = {"prefs": read_prefs, "qrels_prefs": read_qrels_prefs}


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``trec-eval`` on an argparse ``subparsers`` object (``handler=run``)."""
    parser = subparsers.add_parser(
        "trec-eval",
        help="drop-in for trec_eval's preference measures (-R prefs / qrels_prefs; byte-identical output)",
        description="Reproduces `trec_eval -m all_prefs -R prefs JUDGMENTS RUN` and its options -q, -c, -M, -n.",
    )
    parser.add_argument("-q", action="store_true", help="print the measures of each query")
    parser.add_argument("-c", action="store_true", help="average over every judged query (missing ones: empty)")
    parser.add_argument("-n", action="store_true", help="no summary")
    parser.add_argument("-M", type=int, default=None, metavar="N", help="at most N docs per query")
    parser.add_argument("-m", action="append", metavar="MEASURE", help="all_prefs (default), prefs, or a name")
    parser.add_argument("-R", required=True, choices=sorted(READERS), help="judgment format")
    parser.add_argument("judgments")
    parser.add_argument("run")
    parser.set_defaults(handler=run)
    return parser


def selected(names: list[str] | None) -> list[str]:
    """The measures to print, in ``measures.c`` order (trec_eval ignores the command-line order)."""
    wanted = set()
    for name in names or ["all_prefs"]:
        if name not in NICKNAMES and name not in ORDER:
            known = ", ".join([*NICKNAMES, *ORDER])
            raise InputError(f"illegal measure {name!r} (this drop-in computes the preference measures: {known})")
        wanted.update(NICKNAMES.get(name, (name,)))
    return [name for name in ORDER if name in wanted]


def ranks(judged: pd.DataFrame, run_table: pd.DataFrame, depth: int | None) -> np.ndarray:
    """Per judgment line, its doc's position in the run (``inf`` if not retrieved).

    The run is ordered by score descending, then docno ascending (``form_prefs_counts.c``), cut at ``depth``;
    a docno listed twice in a query is an error.
    """
    run_table = run_table[run_table["query_id"].isin(judged["query_id"].unique())]
    order = np.lexsort(
        (run_table["doc_id"].to_numpy(dtype=str), -run_table["score"].to_numpy(), codes(run_table["query_id"]))
    )
    ordered = run_table.iloc[order]
    position = ordered.groupby("query_id", sort=False).cumcount().to_numpy()
    if depth is not None:
        ordered, position = ordered[position < depth], position[position < depth]
    twice = ordered.duplicated(["query_id", "doc_id"]).to_numpy()
    if twice.any():
        line = ordered.iloc[int(np.flatnonzero(twice)[0])]
        raise InputError(f"doc {line['doc_id']} listed twice for query {line['query_id']}", line_no=int(line["line"]))
    found = pd.Series(
        position.astype(np.float64), index=pd.MultiIndex.from_arrays([ordered["query_id"], ordered["doc_id"]])
    )
    keys = pd.MultiIndex.from_arrays([judged["query_id"], judged["doc_id"]])
    return found.reindex(keys).fillna(np.inf).to_numpy()


def evaluate(judged: pd.DataFrame, run_table: pd.DataFrame, *, complete: bool, depth: int | None):
    """(query ids in ``strcmp`` order, the 14 measures per query) for the judged queries."""
    query_ids = np.unique(judged["query_id"].to_numpy(dtype=str))
    missing = sorted(set(query_ids) - set(run_table["query_id"].astype(str)))
    if missing and not complete:
        raise InputError(
            f"judged query {missing[0]} is not in the run ({len(missing)} such queries); "
            "-c counts them as empty rankings"
        )
    columns = (codes(judged[c]) for c in ("query_id", "jg", "jsg", "doc_id"))
    values = trec_prefs_values(*columns, judged["level"].to_numpy(), ranks(judged, run_table, depth), len(query_ids))
    return query_ids, values


def _line(name: str, qid: str, value) -> str:
    if name in COUNT_MEASURES:
        return f"{name:<22}\t{qid}\t{int(value)}\n"
    return f"{name:<22}\t{qid}\t{value:6.4f}\n"


def report(query_ids, values, names: list[str], run_id: str, *, per_query: bool, summary: bool) -> str:
    """trec_eval's output: per-query lines (``-q``), then the summary (``all``)."""
    out = []
    measures = [n for n in names if n in MEASURES]
    if per_query:
        for i, qid in enumerate(query_ids):
            out.extend(_line(name, qid, values[name][i]) for name in measures)
    if summary:
        if "runid" in names:
            out.append(f"{'runid':<22}\tall\t{run_id}\n")
        if "num_q" in names:
            out.append(f"{'num_q':<22}\tall\t{len(query_ids)}\n")
        for name in measures:
            total = 0.0
            for value in values[name]:  # sequential, as trec_eval accumulates
                total += float(value)
            out.append(_line(name, "all", total if name in COUNT_MEASURES else total / len(query_ids)))
    return "".join(out)


def run(args: argparse.Namespace) -> None:
    """The ``trec-eval`` subcommand: read, check, evaluate, then print (nothing is printed on an error)."""
    names = selected(args.m)
    judged = READERS[args.R](args.judgments)
    run_table, run_id = read_run(args.run)
    query_ids, values = evaluate(judged, run_table, complete=args.c, depth=args.M)
    sys.stdout.write(report(query_ids, values, names, run_id, per_query=args.q, summary=not args.n))
