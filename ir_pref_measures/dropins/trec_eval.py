"""The ``trec_eval`` preset: trec_eval's 14 preference measures (``-R prefs`` / ``-R qrels_prefs``) on the
kernels of :mod:`ir_pref_measures.measures.trec_prefs`, printed as trec_eval 9.0+ prints them (usnistgov/
trec_eval; C. Buckley 2008).

The tool's rules taken as options: the run is ordered by score descending, then docno *ascending*
(``form_prefs_counts.c``; every other measure here breaks ties by doc id descending); ``runid``, ``num_q``
and the measures in ``measures.c`` order; queries in ``strcmp`` order; the summary of a count is its sum
over queries, of the other measures their mean, summed in query order. Where we differ on purpose: files
follow the library's input rules (blank lines and ``#`` lines skipped, where trec_eval reads a blank line
as "Malformed line" and the second of two consecutive comment lines as data; a level or score that is not
a number is an error, where trec_eval's ``atof`` reads 0); a cycle in a several-sub-group judgment group
is an :class:`InputError`, where trec_eval calls ``abort()``. The library (``prefs:`` sources in the Python
API, the ir_measures provider) reads such a group and evaluates it on its condensation instead.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ir_pref_measures.errors import InputError
from ir_pref_measures.loading.groups import codes
from ir_pref_measures.measures.trec_prefs import COUNT_MEASURES, MEASURES, trec_positions, trec_prefs_values
from ir_pref_measures.model.rankings import Ranking
from ir_pref_measures.parsing.formats import RawFile, fields, load, read_run

ORDER = ("runid", "num_q", *MEASURES)  # measures.c order
NICKNAMES = {"all_prefs": ORDER, "prefs": ORDER[:8]}


def read_trec_run(source) -> tuple[pd.DataFrame, str, RawFile]:
    """A run (``query_id, doc_id, score, line``), its run id (the tag of its last line) and the file."""
    raw = load(source)
    frame = read_run(raw)
    return frame, fields(raw.line(int(frame["line"].iloc[-1])))[-1], raw


def selected(names: list[str] | None) -> list[str]:
    """The measures to print, in ``measures.c`` order (trec_eval ignores the command-line order)."""
    wanted: set[str] = set()
    for name in names or ["all_prefs"]:
        if name not in NICKNAMES and name not in ORDER:
            known = ", ".join([*NICKNAMES, *ORDER])
            raise InputError(f"illegal measure {name!r} (this drop-in computes the preference measures: {known})")
        wanted.update(NICKNAMES.get(name, (name,)))
    return [name for name in ORDER if name in wanted]


def ranks(judged: pd.DataFrame, run_table: pd.DataFrame, depth: int | None, raw: RawFile | None = None) -> np.ndarray:
    """Per judgment line, its doc's 0-based position in the run (``inf`` if not retrieved, or at ``depth`` or
    below): score descending, then docno ascending (``form_prefs_counts.c``), the engine's positions for the
    prefs_* measures (:func:`ir_pref_measures.measures.trec_prefs.trec_positions`); a doc listed twice in a query
    is an error."""
    run_table = run_table[run_table["query_id"].isin(judged["query_id"].unique())]
    if not len(run_table):
        return np.full(len(judged), np.inf)
    ranking = Ranking.from_frame(run_table, path=raw, checked=True)
    query_ids = judged["query_id"].to_numpy(dtype=object)
    position = trec_positions(ranking, query_ids, ranking.rank_of(query_ids, judged["doc_id"].to_numpy(dtype=object)))
    if depth is not None:
        position[position >= depth] = np.inf
    return position


def prefs_values(judged: pd.DataFrame, run_table: pd.DataFrame, *, complete: bool, depth: int | None, raw=None):
    """(query ids in ``strcmp`` order, the 14 measures per query) for the judged queries."""
    query_ids = np.unique(judged["query_id"].to_numpy(dtype=str))
    missing = sorted(set(query_ids) - set(run_table["query_id"].astype(str)))
    if missing and not complete:
        raise InputError(
            f"judged query {missing[0]} is not in the run ({len(missing)} such queries); "
            "-c counts them as empty rankings"
        )
    query, group, subgroup, doc = (codes(judged[c]) for c in ("query_id", "jg", "jsg", "doc_id"))
    rank = ranks(judged, run_table, depth, raw)
    return query_ids, trec_prefs_values(query, group, subgroup, doc, judged["level"].to_numpy(), rank, len(query_ids))


def _line(name: str, qid: str, value) -> str:
    if name in COUNT_MEASURES:
        return f"{name:<22}\t{qid}\t{int(value)}\n"
    return f"{name:<22}\t{qid}\t{value:6.4f}\n"


def report(query_ids, values, names: list[str], run_id: str, *, per_query: bool, summary: bool) -> str:
    """trec_eval's output: per-query lines (``-q``), then the summary (``all``)."""
    out: list[str] = []
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
            for value in values[name]:  # sequential, in query order, as trec_eval accumulates
                total += float(value)
            out.append(_line(name, "all", total if name in COUNT_MEASURES else total / len(query_ids)))
    return "".join(out)
