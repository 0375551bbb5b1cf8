"""How many judgments per topic: the fidelity of the systems' ordering as a function of the judgments per topic,
and the knee of that curve.

The simulator (:func:`ir_pref_measures.judging.simulation.simulate`) runs each selector over a grid of per-topic
budgets (questions per query) and seeds; the curve is, for each budget, the mean over the seeds of the judgments
asked per topic, of Kendall's tau and of tau_AP with the ordering under all judgments, and their standard
deviations over the seeds. Its knee is where more judgments stop paying: Kneedle (Satopaa, Albrecht, Irwin and
Raghavan, *Finding a "kneedle" in a haystack*, ICDCS workshops 2011), offline: both axes normalised to [0, 1],
the knee is the point farthest from the chord joining the normalised curve's first and last points, on the side
of the curve's bend.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.protocol import Judge
from ir_pref_measures.judging.selectors.base import Selector

CURVE_COLUMNS = ["selector", "per_topic", "judgments", "tau", "tau_sd", "tau_ap", "tau_ap_sd", "knee"]


def knee(x: Sequence[float], y: Sequence[float], *, curve: str = "concave") -> float | None:
    """The ``x`` of the knee of the curve ``y(x)`` (Kneedle, module docstring): with ``x`` and ``y`` scaled to
    [0, 1], the point of maximum distance from the chord of the first and last points, above it for a
    ``"concave"`` curve (a fidelity that levels off), below it for a ``"convex"`` one; ``None`` where no point
    lies on that side (a straight line, a flat curve). ``x`` strictly increasing, at least 3 points."""
    if curve not in ("concave", "convex"):
        raise InputError(f"curve must be 'concave' or 'convex', not {curve!r}")
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xs.shape != ys.shape or xs.ndim != 1 or len(xs) < 3:
        raise InputError(f"a knee needs x and y of the same length, at least 3 points; got {xs.shape}, {ys.shape}")
    if not (np.isfinite(xs).all() and np.isfinite(ys).all()) or (np.diff(xs) <= 0).any():
        raise InputError("a knee needs finite values and strictly increasing x")
    span = np.ptp(ys)
    if span == 0:
        return None
    xn, yn = (xs - xs[0]) / (xs[-1] - xs[0]), (ys - ys.min()) / span
    # signed distance from the chord (0, yn[0]) -> (1, yn[-1]), positive above it, times the chord's length
    above = (yn - yn[0]) - (yn[-1] - yn[0]) * xn
    distance = above if curve == "concave" else -above
    best = int(np.argmax(distance))
    return float(xs[best]) if distance[best] > 0 else None


def curve(table, topics: int):
    """The curve (a DataFrame: :data:`CURVE_COLUMNS`) of a simulator ``table`` run with per-topic budgets over
    ``topics`` topics: each selector's mean and standard deviation over the seeds, its knee marked (tau)."""
    import pandas as pd

    grouped = table.groupby(["selector", "budget"], sort=True)
    means, sds = grouped[["judgments", "tau", "tau_ap"]].mean(), grouped[["tau", "tau_ap"]].std()
    frame = pd.DataFrame(
        {
            "judgments": means["judgments"] / topics,
            "tau": means["tau"],
            "tau_sd": sds["tau"],
            "tau_ap": means["tau_ap"],
            "tau_ap_sd": sds["tau_ap"],
        }
    ).reset_index()
    frame = frame.rename(columns={"budget": "per_topic"})
    frame["knee"] = False
    for _, rows in frame.groupby("selector", sort=True):
        at = knee(rows["per_topic"], rows["tau"])
        frame.loc[rows.index[rows["per_topic"] == at], "knee"] = True
    return frame[CURVE_COLUMNS]


def knees(frame) -> dict[str, int | None]:
    """Each selector's knee (judgments per topic) in a :func:`curve`; ``None`` where the curve has none."""
    found = {}
    for name, rows in frame.groupby("selector", sort=True):
        marked = rows.loc[rows["knee"], "per_topic"]
        found[name] = int(marked.iloc[0]) if len(marked) else None
    return found


def judgments_per_topic(
    selectors: Mapping[str, Callable[[int], Selector]],
    judge: Callable[[int], Judge],
    runs: Mapping[str, object],
    truth,
    *,
    pools: Mapping[str, Sequence[str]],
    per_topic: Sequence[int],
    seeds: Sequence[int] = (0, 1, 2),
    measure: str = "ppref@10",
):
    """The simulator's table (every seed) and :func:`curve` of ``selectors`` over the per-topic budgets
    ``per_topic`` (questions per query; at least 3, distinct); the other arguments as for
    :func:`ir_pref_measures.judging.simulation.simulate`."""
    from ir_pref_measures.judging.simulation import simulate

    grid = sorted(per_topic)
    if len(set(grid)) < 3 or len(set(grid)) != len(grid) or grid[0] < 1:
        raise InputError(f"judgments per topic: give at least 3 distinct numbers >= 1, not {list(per_topic)}")
    table = simulate(
        selectors, judge, runs, truth, pools=pools, budgets=[int(k) for k in grid], seeds=seeds, measure=measure
    )
    return table, curve(table, len(pools))
