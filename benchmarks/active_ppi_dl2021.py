"""Choosing what people judge on real data: the active rule against uniform sampling, TREC DL 2021.

People's preferences (Yan et al., SIGIR 2022) and GPT-4o's on the same pairs (Arabzadeh and Clarke 2025), the 46
queries both judged, three runs (p_bm25, uogTrPot5, NLE_P_v1). Each of ``--samples`` repetitions gives people about
``--size`` queries and the LLM all of them, and compares each run's interval with the all-people value (the
people's mean over the 46 queries):

* ``uniform``: ``--size`` queries drawn uniformly without replacement, the PPI++ interval (``ppi_mean``);
* ``uncertainty``: each query drawn independently with probability proportional to the LLM's uncertainty on it
  (the binomial standard deviation of its values, mixed with a ``--uniform-share``), ``--size`` expected, the
  active inference interval with inverse-probability weights (``active_ppi_mean``, Zrnic and Candès 2024);
* ``stratified``: the queries cut into ``--strata`` strata of nearly equal size by the number of pairs GPT-4o
  judged on each (known before people judge), ``--size`` queries drawn uniformly within the strata in proportion
  to their sizes, the stratified PPI interval (``stratified_ppi_mean``, Fisch et al. 2024).

Prints per measure, run and rule the coverage (nominal 95%), the mean width and the mean number of queries people
judged; ``-o FILE`` writes them as JSON (the committed results: ``benchmarks/results/active_ppi_dl2021.json``).

    python benchmarks/active_ppi_dl2021.py [--testdata ../shared/testdata] [--samples 2000] [--size 20]
        [--measures Compatibility ppref@10] [--strata 2] [-o benchmarks/results/active_ppi_dl2021.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

from ir_pref_measures.agreement import align, subsample_experiment

RUNS = ("p_bm25", "uogTrPot5", "NLE_P_v1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--testdata", default=os.environ.get("IR_PREF_MEASURES_TESTDATA", "../shared/testdata"))
    parser.add_argument("--samples", type=int, default=2000, help="repetitions of each rule (default 2000)")
    parser.add_argument("--size", type=int, default=20, help="people's queries per sample (default 20)")
    parser.add_argument("--measures", nargs="+", default=["Compatibility", "ppref@10"])
    parser.add_argument("--uniform-share", type=float, default=0.1, help="of the active rule (default 0.1)")
    parser.add_argument("--strata", type=int, default=2, help="of the stratified rule (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", help="write the results as JSON")
    args = parser.parse_args()
    root = Path(args.testdata)
    people = root / "dueling_bandits_dl2021" / "judgments.txt"
    gpt4o = root / "dl_llm_prefs_arabzadeh" / "llm_pref_judgments" / "DL2021" / "judge.human"
    if not people.exists() or not gpt4o.exists():
        sys.exit(f"the DL 2021 judgments are not under {root} (--testdata)")
    runs = [str(root / "dl_llm_prefs_arabzadeh" / "runs" / f"input.{r}.txt.gz") for r in RUNS]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # GPT-4o's unusable answers and the runs' depths: counted elsewhere
        aligned = align({"people": str(people), "gpt4o": f"log:{gpt4o}"})
        tables = []
        started = time.perf_counter()
        for measure in args.measures:
            for rule in ("uniform", "uncertainty", "stratified"):
                table = subsample_experiment(
                    aligned,
                    runs,
                    measure,
                    people="people",
                    llm="gpt4o",
                    size=args.size,
                    repetitions=args.samples,
                    seed=args.seed,
                    rule=rule,
                    uniform_share=args.uniform_share,
                    strata=args.strata,
                )
                table = table.assign(size=table.get("size", float(args.size)), measure=measure, rule=rule)
                tables.append(table)
    columns = ["measure", "rule", "run", "coverage", "width", "size", "people coverage", "people width"]
    result = pd.concat(tables, ignore_index=True)[columns]
    print(result.round(4).to_string(index=False))
    wide = result.pivot_table(index=["measure", "run"], columns="rule", values="width")
    for rule in ("uncertainty", "stratified"):
        wide[f"{rule} / uniform"] = wide[rule] / wide["uniform"]
    print()
    print(wide.round(4).to_string())
    print(f"\n{args.samples} samples per rule, {time.perf_counter() - started:.1f} s")
    if args.output:
        settings = {k: getattr(args, k) for k in ("samples", "size", "measures", "uniform_share", "strata", "seed")}
        Path(args.output).write_text(
            json.dumps({"settings": settings, "rows": result.to_dict("records")}, indent=1) + "\n"
        )


if __name__ == "__main__":
    main()
