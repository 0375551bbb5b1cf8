"""Plots of the meta-evaluation (the ``plot`` extra: matplotlib, imported only here, Agg backend).

* :func:`pr_curves`: preference precision-recall curves, ppref@k against rpref@k over cutoffs (Carterette and
  Bennett, SIGIR 2008, Fig. 1; Carterette, Bennett, Chapelle 2008, Fig. 3);
* :func:`measure_scatter`: one measure against another, one point per run, Kendall's tau in the title (Luo 2021,
  Figs. 4.1-4.3);
* :func:`engine_scatter`: per query, one engine's score against the other's, Kendall's tau in the title (Luo
  2021, Fig. 5.9).

Each writes a PNG or SVG file, chosen by the file name's suffix, and returns the path.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from ir_pref_measures.errors import InputError
from ir_pref_measures.meta import kendall_tau

FORMATS = (".png", ".svg")


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'ir-pref-measures[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _check_path(path: str | os.PathLike) -> Path:
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise InputError(f"a plot is written as {' or '.join(FORMATS)}, not {path.name!r}")
    return path


def _save(figure, path: Path) -> Path:
    figure.tight_layout()
    figure.savefig(path, dpi=100, metadata={"Software": None} if path.suffix.lower() == ".png" else {"Date": None})
    _pyplot().close(figure)
    return path


def pr_curves(curves: pd.DataFrame, path: str | os.PathLike, title: str | None = None) -> Path:
    """Preference precision (y) against preference recall (x), one line per run; ``curves`` as
    :func:`ir_pref_measures.meta.pr_curves` returns it (``run, cutoff, ppref, rpref``)."""
    path = _check_path(path)
    missing = [c for c in ("run", "cutoff", "ppref", "rpref") if c not in curves.columns]
    if missing or curves.empty:
        raise InputError(
            f"precision-recall curves need rows with columns run, cutoff, ppref, rpref (missing {missing})"
        )
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(5, 4))
    for run, rows in curves.groupby("run", sort=True):
        rows = rows.sort_values("cutoff")
        axes.plot(rows["rpref"], rows["ppref"], marker=".", markersize=3, linewidth=1, label=str(run))
    axes.set_xlabel("rpref@k")
    axes.set_ylabel("ppref@k")
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.grid(alpha=0.3)
    axes.legend(fontsize="x-small", ncol=2 if curves["run"].nunique() > 8 else 1)
    if title:
        axes.set_title(title)
    return _save(figure, path)


def measure_scatter(
    means: pd.DataFrame, pairs: Sequence[tuple[str, str]], path: str | os.PathLike, annotate: bool = False
) -> Path:
    """One panel per ``(x, y)`` pair of measure columns of ``means`` (one row per run, as
    :func:`ir_pref_measures.meta.means` returns): a point per run, Kendall's tau between the two in the title;
    ``annotate`` labels the points with the run names."""
    unknown = sorted({m for pair in pairs for m in pair} - set(means.columns))
    if unknown or not pairs:
        raise InputError(f"unknown measure(s) {unknown} for a scatter plot; known: {list(means.columns)}")
    panels = [(None, means[x], means[y]) for x, y in pairs]
    return _scatter(panels, path, annotate)


def engine_scatter(values: Mapping[str, pd.DataFrame], path: str | os.PathLike) -> Path:
    """One panel per entry of ``values`` (title -> one row per query, two columns: engines A and B, as
    :func:`ir_pref_measures.meta.grid_values` returns): A's score (x) against B's (y), a point per query,
    Kendall's tau in the title."""
    for name, frame in values.items():
        if frame.shape[1] != 2:
            raise InputError(f"{name}: an engine scatter plot needs two columns, found {list(frame.columns)}")
    panels = [(name, frame.iloc[:, 0], frame.iloc[:, 1]) for name, frame in values.items()]
    if not panels:
        raise InputError("nothing to plot")
    return _scatter(panels, path, annotate=False)


def _scatter(panels: list[tuple[str | None, pd.Series, pd.Series]], path: str | os.PathLike, annotate: bool) -> Path:
    path = _check_path(path)
    plt = _pyplot()
    cols = min(len(panels), 3 if len(panels) != 4 else 2)
    rows = math.ceil(len(panels) / cols)
    figure, grid = plt.subplots(rows, cols, figsize=(4 * cols, 3.8 * rows), squeeze=False)
    for axes, (title, x, y) in zip(grid.ravel(), panels, strict=False):
        axes.scatter(x, y, s=14, alpha=0.7)
        if annotate:
            for name, xi, yi in zip(x.index, x, y, strict=True):
                axes.annotate(str(name), (xi, yi), fontsize="xx-small", xytext=(2, 2), textcoords="offset points")
        axes.set_xlabel(str(x.name))
        axes.set_ylabel(str(y.name))
        tau = f"Kendall's \u03c4 = {kendall_tau(x, y):.4f}"
        axes.set_title(f"{title}\n{tau}" if title else tau, fontsize="small")
        axes.grid(alpha=0.3)
    for axes in grid.ravel()[len(panels) :]:
        axes.set_visible(False)
    return _save(figure, path)
