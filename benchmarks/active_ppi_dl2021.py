"""Choosing what people judge on real data: the active and stratified rules against uniform sampling, TREC DL 2021
(and DL 2019 as a collection the rules were not chosen on).

DL 2021: people's preferences (Yan et al., SIGIR 2022) and GPT-4o's on the same pairs (Arabzadeh and Clarke 2025),
the 46 queries both judged, three runs (p_bm25, uogTrPot5, NLE_P_v1). DL 2019 (``--collections dl2021 dl2019``, the
default): the official graded qrels stand for people, labelling the pairs GPT-4o judged in the top-k preference
judging of the same paper (every round, ``judge.00`` to ``judge.06``), the 43 queries both judged, three runs
(ICT-BERT2, ICT-CKNRM_B, ICT-CKNRM_B50). Each of ``--samples`` repetitions gives people about ``--size`` queries
and the LLM all of them, and compares each run's interval with the all-people value (the people's mean over all
the queries):

* ``uniform``: ``--size`` queries drawn uniformly without replacement, the PPI++ interval (``ppi_mean``);
* ``uncertainty``: each query drawn independently with probability proportional to the LLM's uncertainty on it
  (the binomial standard deviation of its values, mixed with a ``--uniform-share``), ``--size`` expected, the
  active inference interval with inverse-probability weights (``active_ppi_mean``, Zrnic and Candès 2024);
* ``stratified``: the queries cut into ``--strata`` strata of nearly equal size by the number of pairs GPT-4o
  judged on each (known before people judge), ``--size`` queries drawn uniformly within the strata in proportion
  to their sizes, the stratified PPI interval (``stratified_ppi_mean``, Fisch et al. 2024).

Prints per collection, measure, run and rule the coverage (nominal 95%), the mean width and the mean number of
queries people judged, and each rule's width over uniform's; ``-o FILE`` writes them as JSON (the committed
results: ``benchmarks/results/active_ppi_dl2021.json``).

    python benchmarks/active_ppi_dl2021.py [--testdata ../shared/testdata] [--samples 2000] [--size 20]
        [--measures Compatibility ppref@10] [--strata 2] [--collections dl2021 dl2019]
        [-o benchmarks/results/active_ppi_dl2021.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import pandas as pd

from ir_pref_measures.agreement import align, subsample_experiment

RUNS = {"dl2021": ("p_bm25", "uogTrPot5", "NLE_P_v1"), "dl2019": ("ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50")}
RULES = ("uniform", "uncertainty", "stratified")


def judges(root: Path, collection: str, folder: str) -> dict[str, str]:
    """The people's and GPT-4o's sources of ``collection`` (DL 2019's GPT-4o rounds joined into one file in
    ``folder``)."""
    arabzadeh = root / "dl_llm_prefs_arabzadeh"
    if collection == "dl2021":
        people = root / "dueling_bandits_dl2021" / "judgments.txt"
        gpt4o = arabzadeh / "llm_pref_judgments" / "DL2021" / "judge.human"
        if not people.exists() or not gpt4o.exists():
            sys.exit(f"the DL 2021 judgments are not under {root} (--testdata)")
        return {"people": str(people), "gpt4o": f"log:{gpt4o}"}
    rounds = sorted((arabzadeh / "llm_pref_judgments" / "DL2019").glob("judge.0*"))
    qrels = arabzadeh / "qrels.dl19-passage.txt"
    if not rounds or not qrels.exists():
        sys.exit(f"the DL 2019 judgments are not under {root} (--testdata)")
    joined = Path(folder) / "gpt4o.dl2019"
    joined.write_text("".join(path.read_text() for path in rounds))
    return {"people": str(qrels), "gpt4o": str(joined)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--testdata", default=os.environ.get("IR_PREF_MEASURES_TESTDATA", "../shared/testdata"))
    parser.add_argument("--samples", type=int, default=2000, help="repetitions of each rule (default 2000)")
    parser.add_argument("--size", type=int, default=20, help="people's queries per sample (default 20)")
    parser.add_argument("--measures", nargs="+", default=["Compatibility", "ppref@10"])
    parser.add_argument("--collections", nargs="+", choices=list(RUNS), default=list(RUNS))
    parser.add_argument("--uniform-share", type=float, default=0.1, help="of the active rule (default 0.1)")
    parser.add_argument("--strata", type=int, default=2, help="of the stratified rule (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", help="write the results as JSON")
    args = parser.parse_args()
    root = Path(args.testdata)
    tables = []
    started = time.perf_counter()
    with warnings.catch_warnings(), tempfile.TemporaryDirectory() as folder:
        warnings.simplefilter("ignore")  # GPT-4o's unusable answers and the runs' depths: counted elsewhere
        for collection in args.collections:
            aligned = align(judges(root, collection, folder))
            runs = [str(root / "dl_llm_prefs_arabzadeh" / "runs" / f"input.{r}.txt.gz") for r in RUNS[collection]]
            for measure in args.measures:
                for rule in RULES:
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
                    size = table.get("size", float(args.size))
                    tables.append(table.assign(size=size, collection=collection, measure=measure, rule=rule))
    columns = ["collection", "measure", "rule", "run", "coverage", "width", "size", "people coverage", "people width"]
    result = pd.concat(tables, ignore_index=True)[columns]
    print(result.round(4).to_string(index=False))
    wide = result.pivot_table(index=["collection", "measure", "run"], columns="rule", values="width")
    for rule in RULES[1:]:
        wide[f"{rule} / uniform"] = wide[rule] / wide["uniform"]
    print()
    print(wide.round(4).to_string())
    print(f"\n{args.samples} samples per rule, {time.perf_counter() - started:.1f} s")
    if args.output:
        keys = ("samples", "size", "measures", "collections", "uniform_share", "strata", "seed")
        settings = {k: getattr(args, k) for k in keys}
        Path(args.output).write_text(
            json.dumps({"settings": settings, "rows": result.to_dict("records")}, indent=1) + "\n"
        )


if __name__ == "__main__":
    main()
