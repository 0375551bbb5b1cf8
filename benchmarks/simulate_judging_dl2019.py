"""The judging simulator on real data: TREC DL 2019 with Arabzadeh and Clarke's GPT-4o preference judgments
(``judge.00..06``, the rounds of ``prefj.py`` they judged) replayed: one recorded judgment of a pair drawn at
random; a pair never recorded gets the official qrels' answer (the higher grade wins, equal grades tie;
``--fallback coin``: sim.py's fair coin instead).

Every selector judges the same docs: what the measure sees, the depth-10 pools of the systems over the 43 judged
topics (6,196 pairs; ``topk`` takes its candidates among them by grade); ``--pools candidates``: each topic's top-k
candidates from the official qrels instead (``prefj.py``'s candidates, K=5 with the ties of the 5th; 56,780 pairs).
Budgets are 10%, 25% and 50% of the all-pairs cost, per topic. The systems are the three DL 2019 runs of the test
data and, for each, three seeded perturbations (the top 30 shuffled within consecutive windows of 2, 5 and 10
ranks): twelve systems of graded quality. Their ordering by mean ``ppref@10`` under the judgments collected is
compared (Kendall's tau, tau_AP) with the ordering under the judge's answers to every pair of the pools (``--truth
recorded``: under the recorded judgments only). The rating-driven selector is given the systems (it asks where they
disagree within depth 10, every second question uniform); ``rating-targeted`` is its targeted rule alone (no
uniform share); ``rating-docs`` is the selector without the systems (where the docs' ratings are least certain).
``topk+rating`` is the top-k process with the systems' rating-driven selector beyond it (one for one alongside
the process, alone once it is done). The table gives the mean and the standard deviation over
the seeds, and each selector's difference from random pairs with the same seed (which share the judge's draws):
its mean and standard error over the seeds.

``--judge simulated --noise P`` answers from the official qrels instead, each strict answer flipped with
probability P; the truth is then the noise-free answers to every pair. Both the judgments collected and the truth
are read the consistent way (``consistent_preferences``), as the simulator reads them.

    python benchmarks/simulate_judging_dl2019.py [--testdata ../shared/testdata] [--seeds 20] [--measure ppref@10]
        [--judge replay|simulated] [--noise 0.1]
        [--pools depth|candidates] [--fallback qrels|coin] [--truth all|recorded] [--budgets 0.1 0.25 0.5]
        [--selectors random topk topk+rating insertion rating ...] [-o table.csv] [--plot tau.png]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ir_pref_measures.judging.judges import ReplayJudge, SimulatedJudge, read_recorded
from ir_pref_measures.judging.per_topic import judgments_per_topic, knees
from ir_pref_measures.judging.selectors import (
    BinaryInsertion,
    RatingDriven,
    TopK,
    random_pairs,
)
from ir_pref_measures.judging.simulation import all_judged, judged_depth_pools, plot, simulate, summary
from ir_pref_measures.loading.sources import ranking, read_grades

WINDOWS = (2, 5, 10)
DEPTH = 30
DEPTH_POOL = 10


def systems(folder: Path) -> dict[str, pd.DataFrame]:
    """The three real runs and their seeded perturbations (module docstring)."""
    found = {}
    for path in sorted(folder.glob("input.ICT-*.txt.gz")):
        name = path.name.removeprefix("input.").removesuffix(".txt.gz")
        frame = ranking(str(path)).frame()[["query_id", "doc_id", "score"]]
        found[name] = frame
        for w, window in enumerate(WINDOWS):
            rng = np.random.default_rng([7, w])
            parts = []
            for _, docs in frame.groupby("query_id", sort=True):
                order = np.arange(len(docs))
                for start in range(0, min(DEPTH, len(docs)), window):
                    stop = min(start + window, DEPTH, len(docs))
                    order[start:stop] = start + rng.permutation(stop - start)
                shuffled = docs.iloc[order].copy()
                shuffled["score"] = np.arange(len(docs), 0, -1, dtype=float)
                parts.append(shuffled)
            found[f"{name}~{window}"] = pd.concat(parts, ignore_index=True)
    return found


def paired(table: pd.DataFrame) -> pd.DataFrame:
    """Each selector's tau minus random pairs' with the same budget and seed: mean and standard error."""
    random = table[table.selector == "random"].set_index(["budget", "seed"])["tau"]
    others = table[table.selector != "random"].set_index(["budget", "seed"])
    others = others.assign(difference=others["tau"] - random.reindex(others.index)).reset_index()
    grouped = others.groupby(["selector", "budget"], sort=True)["difference"]
    return pd.DataFrame({"difference": grouped.mean(), "se": grouped.std() / np.sqrt(grouped.count())})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--testdata", default=os.environ.get("IR_PREF_MEASURES_TESTDATA", "../shared/testdata"))
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--measure", default="ppref@10")
    parser.add_argument("--plot")
    parser.add_argument("-o", "--output", help="the table of every seed (CSV)")
    parser.add_argument("--budgets", nargs="+", type=float, default=[0.1, 0.25, 0.5], help="shares of the pairs")
    parser.add_argument("--per-topic", nargs="+", type=int, help="judgments per topic instead of shares")
    parser.add_argument(
        "--selectors",
        nargs="+",
        default=[
            "random",
            "topk",
            "topk+rating",
            "insertion",
            "rating",
            "rating-targeted",
            "rating-docs",
        ],
    )
    parser.add_argument("--fallback", choices=("qrels", "coin"), default="qrels", help="pairs never recorded")
    parser.add_argument("--pools", choices=("depth", "candidates"), default="depth", help="the docs judged")
    parser.add_argument("--truth", choices=("all", "recorded"), default="all", help="the reference judgments")
    parser.add_argument(
        "--judge", choices=("replay", "simulated"), default="replay", help="simulated: from the qrels, with --noise"
    )
    parser.add_argument("--noise", type=float, default=0.0, help="simulated: the share of strict answers flipped")
    args = parser.parse_args()
    data = Path(args.testdata) / "dl_llm_prefs_arabzadeh"
    grades = read_grades(str(data / "qrels.dl19-passage.txt"))
    recorded_files = sorted((data / "llm_pref_judgments" / "DL2019").glob("judge.0*"))
    table = pd.concat(
        [pd.read_csv(f, sep=" ", header=None, names=["query_id", "winner", "loser"], dtype=str) for f in recorded_files]
    )
    recorded_truth = table.rename(columns={"winner": "doc_id_a", "loser": "doc_id_b"}).assign(preference=-1)
    recorded = {}
    for path in recorded_files:
        for q, pairs in read_recorded(str(path), "pairs").items():
            for pair, outcomes in pairs.items():
                recorded.setdefault(q, {}).setdefault(pair, []).extend(outcomes)
    runs = systems(data / "runs")
    if args.pools == "depth":  # what the measure sees: the systems' top 10 of the judged topics
        pools, grades = judged_depth_pools(runs, grades, DEPTH_POOL)
    else:
        pools = TopK(grades).pools
    makers = {
        "random": lambda seed: random_pairs(pools, seed, batch=50),
        "topk": lambda seed: TopK(grades, seed),
        "insertion": lambda seed: BinaryInsertion(pools, seed),
        "rating": lambda seed: RatingDriven(pools, seed, runs=runs, depth=10),
        "rating-targeted": lambda seed: RatingDriven(pools, seed, runs=runs, depth=10, uniform=0.0),
        "rating-docs": lambda seed: RatingDriven(pools, seed),
        "topk+rating": lambda seed: TopK(grades, seed, rest=RatingDriven(pools, seed, runs=runs, depth=10)),
    }
    selectors = {name: makers[name] for name in args.selectors}
    start = time.perf_counter()
    common = {"pools": pools, "seeds": range(args.seeds), "measure": args.measure}
    fallback = grades if args.fallback == "qrels" else None
    if args.judge == "replay":
        judge = lambda seed: ReplayJudge(recorded, seed, fallback=fallback)  # noqa: E731
        truth = all_judged(pools, judge(0)) if args.truth == "all" else recorded_truth
    else:  # the noise-free answers to every pair are the truth
        judge = lambda seed: SimulatedJudge(grades, seed, noise=args.noise)  # noqa: E731
        truth = all_judged(pools, SimulatedJudge(grades, 0))
    if args.per_topic:
        result, curve = judgments_per_topic(selectors, judge, runs, truth, per_topic=args.per_topic, **common)
    else:
        result = simulate(selectors, judge, runs, truth, budgets=args.budgets, **common)
    print(f"{len(runs)} systems, {len(pools)} topics, {args.seeds} seeds, {time.perf_counter() - start:.0f} s")
    if args.per_topic:
        print(curve.round(3).to_string(index=False))
        print("knees (judgments per topic):", knees(curve))
    else:
        print(summary(result, spread=True).round(3).to_string())
        if "random" in args.selectors:
            print(paired(result).round(3).to_string())
    if args.output:
        result.to_csv(args.output, index=False)
    if args.plot:
        plot(result, args.plot)


if __name__ == "__main__":
    main()
