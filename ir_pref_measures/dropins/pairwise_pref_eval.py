"""The ``pairwise_pref_eval`` preset: reproduces Elsas' ``pairwise_pref_eval.py`` byte for byte.

The same kernels as the library, with the tool's reading rules as options:

* ids are lower-cased;
* a bad mark and a preference out of the same doc: the earlier line wins (a doc is bad iff its first
  bad mark comes before its first line as a preferred doc or duplicate);
* a run is read in contiguous query blocks, each evaluated on its own (a query split in two blocks is
  evaluated twice); ties in score keep file order; a doc listed twice takes its later position;
* blocks of queries with no preference and no bad doc are skipped; preference-only queries are ignored;
* the output is the tool's: 28 measures per block with ``-q``, then ``num_q`` and the means.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import numpy as np
import pandas as pd

from ir_pref_measures.measures.catalog import ppref_kernel
from ir_pref_measures.measures.pair_counts import pair_counts
from ir_pref_measures.model.judgments import Judgments
from ir_pref_measures.parsing.formats import Source, fields, is_number, load, text_lines
from ir_pref_measures.parsing.preferences import read_preferences

CUTOFFS = {"ppref": (1, 5, 10, 25, 50), "rpref": (1, 5, 10, 25, 50), "fpref": (1, 5, 10)}
CUTOFFS |= {"wpref": (1, 5, 10), "nwpref": (1, 5, 10)}
COUNTS = ("num_pref_ranked", "num_pref_total", "num_preferred", "num_preferred_unrk", "num_bad")
OUTPUT_ORDER = (
    *COUNTS,
    "rrpref",
    *(f"ppref{k}" for k in CUTOFFS["ppref"]),
    "pprefMax",
    *(f"rpref{k}" for k in CUTOFFS["rpref"]),
    "rprefMax",
    *(f"fpref{k}" for k in CUTOFFS["fpref"]),
    *(f"wpref{k}" for k in CUTOFFS["wpref"]),
    *(f"nwpref{k}" for k in CUTOFFS["nwpref"]),
    "APpref",
)
WIDTH = 20


def tool_judgments(prefs: Source) -> Judgments:
    """The tool's judgments: lower-cased ids, and bad marks resolved by line order."""
    frame = read_preferences(prefs, "carterette")
    for column in ("query_id", "doc_id_a", "doc_id_b"):
        frame[column] = frame[column].str.lower()
    pref = frame["preference"].to_numpy()
    line = np.arange(len(frame))
    marked = np.where(pref == -2, frame["doc_id_a"], frame["doc_id_b"])
    bad_lines = pd.DataFrame({"q": frame["query_id"], "doc": marked, "line": line})[np.abs(pref) == 2]
    # a doc is the source of an edge on a -1 line (doc a), a 1 line (doc b), and both docs of a 0 line
    sources = pd.concat(
        [
            pd.DataFrame({"q": frame["query_id"], "doc": frame["doc_id_a"], "line": line})[pref <= 0],
            pd.DataFrame({"q": frame["query_id"], "doc": frame["doc_id_b"], "line": line})[(pref == 1) | (pref == 0)],
        ]
    )
    first_bad = bad_lines.groupby(["q", "doc"])["line"].min()
    first_source = sources.groupby(["q", "doc"])["line"].min().reindex(first_bad.index, fill_value=len(frame))
    ignored = first_bad.index[first_source.to_numpy() < first_bad.to_numpy()]
    marks = pd.MultiIndex.from_arrays([frame["query_id"], marked])
    keep = ~((np.abs(pref) == 2) & marks.isin(ignored))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Judgments.from_preferences(frame[keep].reset_index(drop=True))


def _blocks(run: Source) -> Iterator[tuple[str, pd.DataFrame]]:
    """The run's contiguous query blocks: (qid, ``doc_id, rank``), ranks by a stable score sort."""
    qid: str | None = None
    docs: list[str] = []
    scores: list[float] = []
    raw = load(run)
    for line_no, line in text_lines(raw):
        parts = fields(line.lower())
        if len(parts) != 6:
            raw.fail(f"{len(parts)} fields instead of 6", line_no=line_no, expected="qid Q0 docno rank score tag")
        if not is_number(parts[4]):
            raw.fail(
                f"score {parts[4]!r} is not a finite number", line_no=line_no, expected="qid Q0 docno rank score tag"
            )
        score = float(parts[4])
        if qid is not None and parts[0] != qid:  # the lines of qid end (docs holds them)
            yield qid, _ranked(docs, scores)
            docs, scores = [], []
        qid = parts[0]
        docs.append(parts[2])
        scores.append(score)
    if qid is None:
        raw.fail("the file has no data lines", expected="qid Q0 docno rank score tag")
    yield qid, _ranked(docs, scores)


def _ranked(docs: list[str], scores: list[float]) -> pd.DataFrame:
    order = np.argsort(-np.asarray(scores), kind="stable")
    ranked = pd.DataFrame({"doc_id": np.asarray(docs, dtype=object)[order], "rank": np.arange(1, len(docs) + 1)})
    return ranked.groupby("doc_id", sort=False)["rank"].max().reset_index()


def query_values(prefs: Source, run: Source, transitive: bool = True) -> list[tuple[str, dict[str, float]]]:
    """Per evaluated run block, in run order: (qid, {measure name: value}) with the tool's names."""
    judgments = tool_judgments(prefs)
    blocks = [(q, ranked) for q, ranked in _blocks(run) if q in set(judgments.query_ids.tolist())]
    results: list[tuple[str, dict[str, float]] | None] = [None] * len(blocks)
    seen: dict[str, int] = {}
    rounds: dict[int, list[int]] = {}
    for b, (qid, _) in enumerate(blocks):
        rounds.setdefault(seen.get(qid, 0), []).append(b)
        seen[qid] = seen.get(qid, 0) + 1
    doc_query_ids = judgments.query_ids[judgments.doc_query]
    for members in rounds.values():
        ranked = pd.concat([blocks[b][1].assign(query_id=blocks[b][0]) for b in members], ignore_index=True)
        wanted = pd.DataFrame({"query_id": doc_query_ids, "doc_id": judgments.doc_ids})
        doc_rank = wanted.merge(ranked, how="left", on=["query_id", "doc_id"])["rank"].fillna(np.inf)
        queries = np.searchsorted(judgments.query_ids, [blocks[b][0] for b in members])
        counts = pair_counts(judgments, doc_rank.to_numpy(dtype=np.float64), queries, transitive)
        table = _tool_measures(counts)
        for i, b in enumerate(members):
            results[b] = (blocks[b][0], {name: float(values[i]) for name, values in table.items()})
    return [r for r in results if r is not None]


def _tool_measures(counts) -> dict[str, np.ndarray]:
    table = {name: ppref_kernel(name, counts) for name in (*COUNTS, "rrpref", "pprefMax", "rprefMax")}
    table["APpref"] = ppref_kernel("APpref", counts)
    for name, cutoffs in CUTOFFS.items():
        for k in cutoffs:
            table[f"{name}{k}"] = ppref_kernel(name, counts, k)
    return table


def report(results: list[tuple[str, dict[str, float]]], per_query: bool) -> str:
    """The tool's text output."""
    lines = []
    if per_query:
        for qid, values in results:
            for name in OUTPUT_ORDER:
                value = values[name]
                shown = f"{int(value)}" if name in COUNTS else f"{value:.4f}"
                lines.append(f"{name.ljust(WIDTH)}\t{qid}\t{shown}")
    lines.append(f"{'num_q'.ljust(WIDTH)}\tall\t{len(results)}")
    if results:
        for name in OUTPUT_ORDER:
            total = 0.0
            for _, values in results:
                total += values[name]
            lines.append(f"m{name.ljust(WIDTH)}\tall\t{total / len(results):.4f}")
    return "\n".join(lines) + "\n"
