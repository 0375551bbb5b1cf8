"""Plots of the meta-evaluation (the ``plot`` extra: matplotlib, imported only here).

* :func:`pr_curves`: preference precision-recall curves, ppref@k against rpref@k over cutoffs (Carterette and
  Bennett, SIGIR 2008, Fig. 1; Carterette, Bennett, Chapelle 2008, Fig. 3);
* :func:`measure_scatter`: one measure against another, one point per run, Kendall's tau in the title (Luo 2021,
  Figs. 4.1-4.3);
* :func:`rating_forest`, :func:`win_rate_heatmap`: a leaderboard's ratings with their intervals, and its win rates;
* :func:`query_scatter`: one measure against another, one point per query and run, coloured by run;
* :func:`query_differences`: per query, each run's value minus the baseline's, sorted (the bar plots of papers);
* :func:`engine_scatter`: per query, one engine's score against the other's, Kendall's tau in the title (Luo
  2021, Fig. 5.9);
* :func:`agreement_heatmap`: a statistic of every two judges (:func:`ir_pref_measures.agreement.panel.matrix`), one
  cell each, the value written in it.

Each returns a :class:`matplotlib.figure.Figure` built with the object API (no pyplot, so the process's
backend is never changed) and, given a ``path``, saves it in the format its suffix names (any format
matplotlib writes: PNG, PDF, SVG, EPS, ...). Runs get the same colour and marker in every plot of a call and
are named in one legend beside the panels, never as labels on the points, so no name hides another.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ir_pref_measures.errors import InputError
from ir_pref_measures.meta.evaluation import kendall_tau

MARKERS = "osD^v<>ph*"
# metadata that would otherwise stamp the file with the date or the version: the same data, the same bytes (PNG, SVG,
# PDF; PostScript always holds the date)
REPRODUCIBLE_METADATA = {
    "png": {"Software": None},
    "svg": {"Date": None},
    "pdf": {"CreationDate": None},
}


def _matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'ir-pref-measures[plot]'") from None
    import matplotlib.figure

    return matplotlib


def file_types() -> list[str]:
    """The file suffixes matplotlib writes (``png``, ``pdf``, ``svg``, ...), without the dot."""
    _matplotlib()
    from matplotlib.backend_bases import FigureCanvasBase

    return sorted(FigureCanvasBase.get_supported_filetypes())


def check_path(path: str | os.PathLike) -> Path:
    """``path`` as a Path when its suffix names a format matplotlib writes, else an :class:`InputError`."""
    path = Path(path)
    known = file_types()
    if path.suffix[1:].lower() not in known:
        raise InputError(
            f"{path}: cannot write a plot of this file type", expected=f"a name ending in .{', .'.join(known)}"
        )
    return path


def save(figure, path: str | os.PathLike) -> Path:
    """Write ``figure`` to ``path`` in the format its suffix names, without date or version stamps."""
    import matplotlib

    path = check_path(path)
    suffix = path.suffix[1:].lower()
    with matplotlib.rc_context({"svg.hashsalt": "ir-pref-measures"}):
        figure.savefig(path, dpi=150, metadata=REPRODUCIBLE_METADATA.get(suffix))
    return path


def _figure(width: float, height: float):
    return _matplotlib().figure.Figure(figsize=(width, height), layout="constrained")


def _done(figure, path: str | os.PathLike | None):
    if path is not None:
        save(figure, path)
    return figure


def run_styles(names: Sequence[str]) -> dict[str, dict]:
    """A (colour, marker) per run, in the order given: the ten colours of ``tab10`` with the first marker, then
    with the next one, and so on (distinct for up to 100 runs)."""
    colours = _matplotlib().colormaps["tab10"].colors
    return {
        name: {"color": colours[k % len(colours)], "marker": MARKERS[(k // len(colours)) % len(MARKERS)]}
        for k, name in enumerate(dict.fromkeys(str(n) for n in names))
    }


def _legend(figure, styles: Mapping[str, dict], kind: str) -> None:
    """One legend for the whole figure, beside the panels (names never cover points)."""
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], linestyle="none" if kind == "points" else "-", markersize=6, **s) for s in styles.values()
    ]
    columns = math.ceil(len(styles) / 25)
    figure.legend(handles, list(styles), loc="outside right upper", fontsize="small", ncols=columns, title="run")


def pr_curves(curves: pd.DataFrame, path: str | os.PathLike | None = None, title: str | None = None):
    """Preference precision (y) against preference recall (x), one line per run; ``curves`` as
    :func:`ir_pref_measures.meta.pr_curves` returns it (``run, cutoff, ppref, rpref``). The axes fit the data;
    every tenth cutoff is marked."""
    if path is not None:
        check_path(path)
    missing = [c for c in ("run", "cutoff", "ppref", "rpref") if c not in curves.columns]
    if missing or curves.empty:
        raise InputError(
            f"precision-recall curves need rows with columns run, cutoff, ppref, rpref (missing {missing})"
        )
    runs = list(dict.fromkeys(curves["run"].astype(str)))
    styles = run_styles(runs)
    figure = _figure(7.5, 5)
    axes = figure.add_subplot()
    for run, rows in curves.assign(run=curves["run"].astype(str)).groupby("run", sort=False):
        rows = rows.sort_values("cutoff")
        style = styles[run]
        marked = rows["cutoff"].to_numpy() % 10 == 0
        axes.plot(rows["rpref"], rows["ppref"], color=style["color"], linewidth=1.2)
        axes.plot(rows["rpref"][marked], rows["ppref"][marked], linestyle="none", markersize=4, **style)
    axes.set_xlabel("rpref@k (preference recall)")
    axes.set_ylabel("ppref@k (preference precision)")
    axes.margins(0.04)
    axes.grid(alpha=0.3)
    axes.set_title(title or f"k = {curves['cutoff'].min()}..{curves['cutoff'].max()} (markers every 10)")
    _legend(figure, styles, "lines")
    return _done(figure, path)


def measure_scatter(means: pd.DataFrame, pairs: Sequence[tuple[str, str]], path: str | os.PathLike | None = None):
    """One panel per ``(x, y)`` pair of measure columns of ``means`` (one row per run, as
    :func:`ir_pref_measures.meta.means` returns): a point per run, each run its colour and marker (named in the
    legend), Kendall's tau between the two in the title."""
    if path is not None:
        check_path(path)
    _known(pairs, means.columns)
    styles = run_styles(means.index)
    panels = []
    for x, y in pairs:
        points = [(styles[str(run)], means.at[run, x], means.at[run, y]) for run in means.index]
        panels.append((None, x, y, points, kendall_tau(means[x], means[y])))
    return _scatter(panels, styles, path)


def query_scatter(
    values: Mapping[str, pd.DataFrame], pairs: Sequence[tuple[str, str]], path: str | os.PathLike | None = None
):
    """One panel per ``(x, y)`` pair of measures: a point per query and run (measure x's value against y's on
    that query), coloured by run, on the queries both measures have. ``values``: per measure, one row per query,
    one column per run, as :func:`ir_pref_measures.meta.measure_values` returns. The title gives Kendall's tau
    over all the points."""
    if path is not None:
        check_path(path)
    _known(pairs, list(values))
    runs = list(next(iter(values.values())).columns)
    styles = run_styles(runs)
    panels = []
    for x, y in pairs:
        if list(values[x].columns) != runs or list(values[y].columns) != runs:
            raise InputError(f"{x!r} and {y!r} are not evaluated on the same runs")
        queries = values[x].index.intersection(values[y].index, sort=True)
        if queries.empty:
            raise InputError(f"{x!r} and {y!r} have no query in common")
        xs, ys = values[x].loc[queries], values[y].loc[queries]
        points = [(styles[str(run)], xs[run], ys[run]) for run in runs]
        tau = kendall_tau(pd.Series(xs.to_numpy().ravel()), pd.Series(ys.to_numpy().ravel()))
        panels.append((f"{len(queries)} queries x {len(runs)} runs", x, y, points, tau))
    return _scatter(panels, styles, path)


def engine_scatter(values: Mapping[str, pd.DataFrame], path: str | os.PathLike | None = None):
    """One panel per entry of ``values`` (title -> one row per query, two columns: engines A and B, as
    :func:`ir_pref_measures.meta.grid_values` returns): A's score (x) against B's (y), a point per query,
    Kendall's tau between the two engines' scores in the title (thesis Fig. 5.9)."""
    if path is not None:
        check_path(path)
    if not values:
        raise InputError("nothing to plot")
    panels = []
    for name, frame in values.items():
        if frame.shape[1] != 2:
            raise InputError(f"{name}: an engine scatter plot needs two columns, found {list(frame.columns)}")
        a, b = frame.columns
        style = {"color": "tab:blue", "marker": "o"}
        panels.append((name, a, b, [(style, frame[a], frame[b])], kendall_tau(frame[a], frame[b])))
    return _scatter(panels, {}, path)


def _known(pairs: Sequence[tuple[str, str]], names) -> None:
    unknown = sorted({m for pair in pairs for m in pair} - {str(n) for n in names})
    if unknown or not pairs:
        raise InputError(f"unknown measure(s) {unknown} for a scatter plot; known: {[str(n) for n in names]}")


def _scatter(panels: list, styles: Mapping[str, dict], path: str | os.PathLike | None):
    """Panels ``(title, x label, y label, [(style, xs, ys), ...], tau)`` in a grid of at most three columns."""
    cols = min(len(panels), 3 if len(panels) != 4 else 2)
    rows = math.ceil(len(panels) / cols)
    figure = _figure(4.2 * cols + (2.2 if styles else 0), 3.9 * rows)
    grid = figure.subplots(rows, cols, squeeze=False)
    for axes, (title, x, y, points, tau) in zip(grid.ravel(), panels, strict=False):
        for style, xs, ys in points:
            axes.scatter(xs, ys, s=22, alpha=0.75, linewidths=0, **style)
        axes.set_xlabel(str(x), fontsize="small")
        axes.set_ylabel(str(y), fontsize="small")
        text = f"Kendall's \u03c4 = {tau:.4f}"
        axes.set_title(f"{title}\n{text}" if title else text, fontsize="small")
        axes.margins(0.06)
        axes.grid(alpha=0.3)
    for axes in grid.ravel()[len(panels) :]:
        axes.set_visible(False)
    if styles:
        _legend(figure, styles, "points")
    return _done(figure, path)


def rating_forest(table: pd.DataFrame, path: str | os.PathLike | None = None, title: str | None = None):
    """A forest plot of a leaderboard (:func:`ir_pref_measures.leaderboards.boards.leaderboard`): one row per
    system, best at the top, its rating as a point and its interval (``ci low`` to ``ci high``) as a bar."""
    figure = _figure(6.0, 1.0 + 0.28 * len(table))
    axes = figure.add_subplot()
    place = -np.arange(len(table))
    if "ci low" in table.columns:
        errors = [table["rating"] - table["ci low"], table["ci high"] - table["rating"]]
        axes.errorbar(table["rating"], place, xerr=errors, fmt="o", color="tab:blue", capsize=3)
    else:
        axes.plot(table["rating"], place, "o", color="tab:blue")
    axes.set_yticks(place, [str(s) for s in table["system"]])
    axes.set_xlabel("rating")
    axes.grid(axis="x", alpha=0.3)
    interval = " with bootstrap intervals" if "ci low" in table.columns else ""
    axes.set_title(title or f"ratings of {len(table)} systems (Elo scale){interval}", fontsize="small")
    return _done(figure, path)


def query_differences(
    long: pd.DataFrame, baseline: str, path: str | os.PathLike | None = None, title: str | None = None
):
    """Per-query differences against a baseline, as papers show them: one panel per (run, measure), one bar per
    query, the run's value minus the baseline's, sorted from the largest gain to the largest loss, wins above the
    axis and losses below, the counts of each in the panel's title. ``long``: Experiment's per-query table
    (``name, qid, measure, value``; ``perquery=True``)."""
    missing = {"name", "qid", "measure", "value"} - set(long.columns)
    if missing:
        raise InputError(f"the per-query table has no column(s) {sorted(missing)}: give Experiment(perquery=True)")
    runs = list(dict.fromkeys(long["name"]))
    if baseline not in runs:
        raise InputError(f"the baseline {baseline!r} is not a run of the table: {', '.join(runs)}")
    values = long.pivot_table(index=["measure", "qid"], columns="name", values="value")
    measures = list(dict.fromkeys(long["measure"]))
    others = [r for r in runs if r != baseline]
    if not others:
        raise InputError("the table holds the baseline alone: no run to compare with it")
    figure = _figure(3.2 * len(measures), 2.2 * len(others))
    grid = np.atleast_2d(figure.subplots(len(others), len(measures), squeeze=False))
    for row, run in enumerate(others):
        for column, measure in enumerate(measures):
            axes = grid[row, column]
            difference = (values.loc[measure, run] - values.loc[measure, baseline]).dropna().sort_values()[::-1]
            colours = np.where(difference.to_numpy() >= 0, "tab:blue", "tab:red")
            axes.bar(np.arange(len(difference)), difference.to_numpy(), width=1.0, color=colours)
            axes.axhline(0.0, color="black", linewidth=0.6)
            axes.set_xticks([])
            wins, losses = int((difference > 0).sum()), int((difference < 0).sum())
            axes.set_title(f"{run} - {baseline}: {measure}\n{wins} better, {losses} worse", fontsize="small")
            axes.set_xlabel("queries, sorted", fontsize="small")
    figure.suptitle(title or f"per-query differences against {baseline}")
    return _done(figure, path)


def win_rate_heatmap(matrix: pd.DataFrame, path: str | os.PathLike | None = None, title: str | None = None):
    """A heatmap of a win-rate matrix (row system against column system; :meth:`~ir_pref_measures.leaderboards.
    boards.Ratings.win_rates`), blank where two systems never met, each cell labelled when there are at most
    20 systems."""
    return _heatmap(matrix, (0.0, 1.0), "win rate (row against column)", title, path)


def agreement_heatmap(matrix: pd.DataFrame, path: str | os.PathLike | None = None, title: str | None = None):
    """A heatmap of a judges x judges ``matrix`` (a statistic of every two judges; NaN where two judges share no
    pair, left blank), the value in each cell, on a diverging scale from -1 to 1."""
    return _heatmap(matrix, (-1.0, 1.0), None, title or "agreement between judges", path)


def _heatmap(matrix: pd.DataFrame, scale: tuple[float, float], label: str | None, title: str | None, path):
    """A square matrix as a heatmap on ``scale`` (red to blue), blank where NaN, each value written in its cell
    when there are at most 20 rows (white on the dark ends of the scale)."""
    n = len(matrix)
    figure = _figure(2.0 + 0.5 * n, 1.5 + 0.45 * n)
    axes = figure.add_subplot()
    values = matrix.to_numpy(dtype=float)
    image = axes.imshow(np.ma.masked_invalid(values), cmap="RdBu", vmin=scale[0], vmax=scale[1])
    axes.set_xticks(range(len(matrix.columns)), [str(c) for c in matrix.columns], rotation=45, ha="right")
    axes.set_yticks(range(n), [str(i) for i in matrix.index])
    middle, half = (scale[0] + scale[1]) / 2, (scale[1] - scale[0]) / 2
    if n <= 20:
        for (row, column), value in np.ndenumerate(values):
            if not math.isnan(value):
                colour = "white" if abs(value - middle) > 0.6 * half else "black"
                axes.text(column, row, f"{value:.2f}", ha="center", va="center", fontsize=8, color=colour)
    figure.colorbar(image, ax=axes, shrink=0.8, label=label)
    if title:
        axes.set_title(title)
    return _done(figure, path)
