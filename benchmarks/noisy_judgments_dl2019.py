"""Noisy judgments on real data: how well three ways of reading them order systems.

TREC DL 2019: the three runs of the test data and three seeded perturbations of each (12 systems, as
``simulate_judging_dl2019.py`` makes them), their depth-10 pools over the 43 judged topics (6,196 pairs). A simulated
judge answers from the official qrels (the higher grade wins, equal grades tie), each strict answer flipped with
probability ``noise``; random pairs are judged to a budget (a share of each topic's pairs). The systems' mean
``ppref@10`` under the judgments collected is compared (Kendall's tau) with their ordering under the noise-free
judgments of every pair, read three ways:

* ``closure``: the judgments as they are, under the transitive closure (the measures' default);
* ``consistent``: the judgments that agree with an order fitted to them (``consistent_preferences``: majority per
  pair, tied docs in one class, Greedy FAS order of the classes, feedback arcs left out), under the closure;
* ``no-closure``: the judgments as they are, without the closure (``ppref(transitive=False)@10``).

    python benchmarks/noisy_judgments_dl2019.py [--testdata ../shared/testdata] [--seeds 10]
        [--noise 0 0.1 0.2 0.3] [--budgets 0.1 0.25 0.5] [-o table.csv]
"""

from __future__ import annotations

import argparse
import math
import os
import time
import warnings
from pathlib import Path

import pandas as pd
from simulate_judging_dl2019 import systems

from ir_pref_measures import consistent_preferences
from ir_pref_measures.judging import runner
from ir_pref_measures.judging.judges import SimulatedJudge
from ir_pref_measures.judging.selectors import random_pairs
from ir_pref_measures.judging.selectors.base import all_pairs_cost
from ir_pref_measures.judging.simulation import all_judged, judged_depth_pools, preference_frame, system_scores
from ir_pref_measures.judging.store import Store
from ir_pref_measures.loading.sources import read_grades
from ir_pref_measures.meta import kendall_tau

PATHS = {
    "closure": (lambda frame: frame, "ppref@10"),
    "consistent": (consistent_preferences, "ppref@10"),
    "no-closure": (lambda frame: frame, "ppref(transitive=False)@10"),
}


def collected(pools, grades, noise: float, share: float, seed: int) -> pd.DataFrame:
    """The preference table of random pairs judged to ``share`` of each topic's pairs by the noisy judge."""
    costs = all_pairs_cost(pools)
    selector = random_pairs(pools, seed, batch=50)
    budget = {q: math.ceil(share * costs.get(q, 0)) for q in selector.pools}
    with Store(":memory:") as store:
        report = runner.run(store, selector, SimulatedJudge(grades, seed, noise=noise), budget=budget)
    return preference_frame([v for history in report.history.values() for r in history for v in r])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--testdata", default=os.environ.get("IR_PREF_MEASURES_TESTDATA", "../shared/testdata"))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--noise", nargs="+", type=float, default=[0.0, 0.1, 0.2, 0.3])
    parser.add_argument("--budgets", nargs="+", type=float, default=[0.1, 0.25, 0.5])
    parser.add_argument("-o", "--output", help="the table of every seed (CSV)")
    args = parser.parse_args()
    data = Path(args.testdata) / "dl_llm_prefs_arabzadeh"
    runs = systems(data / "runs")
    pools, grades = judged_depth_pools(runs, read_grades(str(data / "qrels.dl19-passage.txt")), 10)
    reference = system_scores(all_judged(pools, SimulatedJudge(grades, 0)), runs, "ppref@10")
    start, rows = time.perf_counter(), []
    for noise in args.noise:
        for share in args.budgets:
            for seed in range(args.seeds):
                frame = collected(pools, grades, noise, share, seed)
                for path, (prepare, measure) in PATHS.items():
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # the closure's cycle warning, the left-out count
                        scores = system_scores(prepare(frame), runs, measure)
                    rows.append((noise, share, seed, len(frame), path, kendall_tau(scores, reference)))
    table = pd.DataFrame(rows, columns=["noise", "budget", "seed", "judgments", "path", "tau"])
    print(f"{len(runs)} systems, {len(pools)} topics, {args.seeds} seeds, {time.perf_counter() - start:.0f} s")
    cells = table.groupby(["noise", "budget", "path"], sort=False)["tau"]
    summary = (cells.mean().round(3).astype(str) + " ± " + cells.std().round(3).astype(str)).unstack("path")
    print(summary.to_string())
    if args.output:
        table.to_csv(args.output, index=False)


if __name__ == "__main__":
    main()
