"""The ``pref_eval`` preset: drop-in ``compare`` and ``aggregate`` commands for Diaz' ``pref_eval.py`` and
``pref_aggregate.py``, on the kernels of :mod:`ir_pref_measures.comparison.pairwise` and
:mod:`ir_pref_measures.comparison.fusion`.

The tool's rules taken as options: queries in the order of their first relevant qrels line; run ids
from file names; binary RPP unless ``--graded-rpp``; the tool's JSON lines (ints for the sign-valued
measures on per-query lines, ``sample`` 0); MC4 with 10 iterations. Where the tool has a bug we differ
on purpose: ``rr@k`` differences are computed (the tool prints 0.0), a measure named twice counts once
(the tool doubles its mean), unknown measures and measure sets are errors (the tool prints 0.0 or nothing),
blank lines are skipped (the tool crashes), a doc listed twice in a query of a run and two runs with the
same id are errors (the tool crashes or merges silently), and ``aggregate`` orders runs even when the input
has no metric lines (the tool prints nothing).
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from ir_pref_measures.comparison.fusion import borda, mc4, net_preference, order_runs
from ir_pref_measures.comparison.pairwise import (
    DEFAULT_MEASURES,
    SUMMARY,
    Comparison,
)
from ir_pref_measures.errors import InputError
from ir_pref_measures.measures.catalog import PAIRWISE
from ir_pref_measures.parsing.formats import load, text_lines

if TYPE_CHECKING:  # pandas reads the JSON lines of ``aggregate``; ``compare`` needs none
    import pandas as pd

PREFERENCES = tuple(name for name, spec in PAIRWISE.items() if spec.kind == "preference")
METRICS = tuple(name for name, spec in PAIRWISE.items() if spec.kind == "difference")
MEASURE_SETS = {"all": DEFAULT_MEASURES, "none": DEFAULT_MEASURES, "preferences": PREFERENCES}
SIGN_VALUED = ("lexirecall", "lexiprecision", "LR", "sgnLR", "sgnLP")
RR_LEXIPRECISION = ("rrlexiprecision", "rrLP")
ID_FIELDS = ("qid", "runi", "runj", "run", "sample", "type")


def tool_measures(measures: list[str] | None, measure_set: str | None) -> list[str]:
    """``-m`` names in order (each once), else the ``-M`` set (``all``/``none``: the 15 defaults)."""
    if measures:
        return list(dict.fromkeys(measures))
    chosen = measure_set or "none"
    if chosen not in MEASURE_SETS:
        raise InputError(f"unknown measure set {chosen!r}", expected=f"one of {', '.join(MEASURE_SETS)}")
    return list(MEASURE_SETS[chosen])


def _per_query_values(name: str, values: np.ndarray) -> list:
    """JSON values of one measure as the tool prints them on per-query lines."""
    if name in SIGN_VALUED:
        return values.astype(int).tolist()
    listed = (values + 0.0).tolist()
    if name in RR_LEXIPRECISION:
        return [0 if v == 0 else v for v in listed]
    return listed


def json_lines(result: Comparison, *, perquery: bool, summary: bool) -> Iterator[str]:
    """The lines of ``pref_eval.py``: per query, each run's pair lines then its metric line; then the
    summary (``qid: "all"``, the mean over queries) per pair."""
    names = result.runs
    pairs = list(zip(result.run_i.tolist(), result.run_j.tolist(), strict=True))
    measures = [m.name for m in result.measures]
    metrics = [m.name for m in result.measures if m.is_metric]
    if perquery:
        pair_columns = {m: [_per_query_values(m, row) for row in result.pair_values[m].T] for m in measures}
        run_columns = {m: (result.run_values[m].T + 0.0).tolist() for m in metrics}
        for q, qid in enumerate(result.query_ids.tolist()):
            for r, run in enumerate(names):
                for p, (i, j) in enumerate(pairs):
                    if i == r:
                        line = {"qid": qid, "runi": names[i], "runj": names[j], "sample": 0, "type": "preference"}
                        yield json.dumps(line | {m: pair_columns[m][q][p] for m in measures})
                if metrics:
                    line = {"qid": qid, "run": run, "sample": 0, "type": "metric"}
                    yield json.dumps(line | {m: run_columns[m][q][r] for m in metrics})
    if summary:
        by_id = np.argsort(result.query_ids.astype(str), kind="stable")  # the mean in query id order: line order free
        means = {m: (result.pair_values[m][:, by_id].mean(axis=1) + 0.0).tolist() for m in measures}
        for p, (i, j) in enumerate(pairs):
            line = {"qid": SUMMARY, "runi": names[i], "runj": names[j], "sample": 0}
            yield json.dumps(line | {m: float(means[m][p]) for m in measures})


def is_metric_name(name: str) -> bool:
    """``pref_aggregate``'s rule: the part before ``@`` names a metric."""
    return name.split("@")[0] in METRICS


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def read_preference_lines(path: str) -> pd.DataFrame:
    """The per-query lines of a ``pref_eval -q`` output, one row each, in file order (summary lines
    skipped, blank lines too). Columns: the id fields and one per measure key."""
    import pandas as pd

    raw = load(path)
    records = []
    for line_no, line in text_lines(raw):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(
                f"not a JSON object ({error.msg})", path=path, line_no=line_no, line=line, expected="pref_eval output"
            ) from None
        if not isinstance(record, dict) or "qid" not in record:
            raise InputError("no qid field", path=path, line_no=line_no, line=line, expected="pref_eval output")
        for key in ("qid", "runi", "runj", "run"):  # a JSON escape such as \u0085: the rule of every id
            control = _CONTROL.search(record[key]) if isinstance(record.get(key), str) else None
            if control is not None:
                raise InputError(
                    f"{key} holds control character U+{ord(control.group()):04X}",
                    path=path,
                    line_no=line_no,
                    line=line,
                    expected="ids without control characters (U+0000-U+001F, U+007F-U+009F)",
                )
        if record["qid"] != SUMMARY:
            records.append(record | {"line": line_no})
    if not records:
        raise InputError("no per-query lines (pref_eval was run without -q?)", path=raw.name)
    frame = pd.DataFrame.from_records(records)
    if "sample" not in frame.columns:
        frame["sample"] = 0
    frame["sample"] = frame["sample"].fillna(0)
    return frame


def _require(frame: pd.DataFrame, columns: tuple[str, ...], path: str) -> None:
    for column in columns:
        if column not in frame.columns or frame[column].isna().any():
            row = frame.iloc[int(np.flatnonzero(frame[column].isna())[0])] if column in frame.columns else frame.iloc[0]
            load(path).fail(
                f"a line without {column!r}",
                line_no=int(row["line"]),
                expected=f"pref_eval per-query lines with {', '.join(columns)}",
            )


def numbers(lines: pd.DataFrame, name: str, path: str) -> np.ndarray:
    """The values of ``name`` on ``lines``: every line must hold it as a finite number."""
    import pandas as pd

    column = lines[name].where(~lines[name].map(lambda v: isinstance(v, bool)))  # JSON true/false are no values
    values = pd.to_numeric(column, errors="coerce").to_numpy(np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        row = lines.iloc[int(np.flatnonzero(bad)[0])]
        raw = load(path)
        raw.fail(
            f"{name} is {row[name]!r}, not a number", line_no=int(row["line"]), expected="a finite number per line"
        )
    return values


def warn_tied(measure: str, totals: dict[str, np.ndarray], runs: list[str]) -> None:
    """A warning for each summary ordering (``{method: score per run}``) in which runs tie: ``pref_aggregate``
    orders them by their names (descending), so their order says nothing."""
    for method, total in totals.items():
        values, counts = np.unique(total, return_counts=True)
        for value in values[counts > 1]:
            tied = sorted(runs[r] for r in np.flatnonzero(total == value))
            warnings.warn(
                f"{measure} {method}: runs {', '.join(tied)} tie (score {value:g}); as in pref_aggregate, their order "
                "follows their names (aggregate --method scores gives each run's score and shared place)",
                stacklevel=2,
            )


def aggregate_lines(
    frame: pd.DataFrame, measures: list[str] | None, path: str, *, perquery: bool, summary: bool
) -> Iterator[dict]:
    """``pref_aggregate.py``'s per-query orderings (``qid``) and summaries (``qid: "all"``), per sample."""
    frame = frame.assign(qid=frame["qid"].astype(str))
    keys = [c for c in frame.columns if c not in (*ID_FIELDS, "line")]
    names = list(dict.fromkeys(measures or keys))
    missing = [m for m in names if m not in keys]
    if missing:
        raise InputError(f"measure(s) {missing} are not in the file", path=path, expected=f"some of {keys}")
    names = [m for m in names if not is_metric_name(m)] + [m for m in names if is_metric_name(m)]
    for sample, part in frame.groupby("sample", sort=False):
        pairs = part[part["type"] == "preference"] if "type" in part.columns else part.iloc[:0]
        metric_lines = part[part["type"] == "metric"] if "type" in part.columns else part.iloc[:0]
        query_ids = list(dict.fromkeys(part["qid"]))
        qindex = {q: k for k, q in enumerate(query_ids)}
        if len(pairs):
            _require(pairs, ("runi", "runj"), path)
        if len(metric_lines):
            _require(metric_lines, ("run",), path)
        runs = sorted(
            set(pairs["runi"] if len(pairs) else [])
            | set(pairs["runj"] if len(pairs) else [])
            | set(metric_lines["run"] if len(metric_lines) else [])
        )
        rindex = {r: k for k, r in enumerate(runs)}
        orderings, summaries = {}, {}
        for name in names:
            use_metric_lines = is_metric_name(name) and len(metric_lines) and metric_lines[name].notna().any()
            lines = metric_lines if use_metric_lines else pairs
            # sums run in one canonical order (query id, runs), so that no value depends on the order of the lines
            lines = lines.sort_values(["qid", "run"] if use_metric_lines else ["qid", "runi", "runj"], kind="stable")
            if lines.empty:
                raise InputError(f"no line holds {name!r} in sample {sample}", path=path)
            values = numbers(lines, name, path)
            q = lines["qid"].map(qindex).to_numpy()
            if use_metric_lines:
                scores = np.full((len(query_ids), len(runs)), -np.inf)
                scores[q, lines["run"].map(rindex).to_numpy()] = values
                seen = np.unique(q)
                mean = np.zeros(len(runs))
                for k in sorted(seen, key=query_ids.__getitem__):  # sum of v / n by query id
                    mean += scores[k] / len(seen)
                ranked = order_runs(scores[seen], runs)
                summaries[name] = {"type": "metric", "mean": [runs[r] for r in order_runs(mean[None, :], runs)[0]]}
                warn_tied(name, {"mean": mean}, runs)
            else:
                i, j = lines["runi"].map(rindex).to_numpy(), lines["runj"].map(rindex).to_numpy()
                seen = np.unique(q)
                ranked = order_runs(net_preference(q, i, j, values, len(query_ids), len(runs))[seen], runs)
                totals = {"mc4": mc4(ranked), "borda": borda(ranked).astype(np.float64)}
                warn_tied(name, totals, runs)
                by_mc4 = order_runs(totals["mc4"][None, :], runs)[0]
                by_borda = order_runs(totals["borda"][None, :], runs)[0]
                summaries[name] = {
                    "type": "preference",
                    "mc4": [runs[r] for r in by_mc4],
                    "borda": [runs[r] for r in by_borda],
                }
            orderings[name] = dict(zip((query_ids[k] for k in seen), ranked.tolist(), strict=True))
        sample = int(sample) if float(sample).is_integer() else sample
        for qid in query_ids if perquery else ():
            line = {"qid": qid, "sample": sample}
            yield line | {n: [runs[r] for r in orderings[n][qid]] for n in names if qid in orderings[n]}
        if summary:
            yield {"qid": SUMMARY, "sample": sample} | summaries


def __getattr__(name: str):
    """``relevant_in_file_order``: the tool's reading of QRELS is
    :func:`ir_pref_measures.comparison.pairwise.relevant_in_file_order` now (warns once; removed in the next
    release)."""
    if name == "relevant_in_file_order":
        from ir_pref_measures.comparison.pairwise import relevant_in_file_order
        from ir_pref_measures.errors import renamed

        renamed(f"{__name__}.{name}", "ir_pref_measures.comparison.pairwise.relevant_in_file_order")
        return relevant_in_file_order
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
