"""Record trec_eval's preference measures on generated judgment-group files, for ``tests/dropins/test_trec_eval.py``
(fixture tier).

Writes ``generated/case0`` .. ``case5`` beside this script (seed 32): each holds the judgments (``prefs.txt``, lines
``qid jg jsg docno rel_level`` of ``-R prefs``, or ``qrels.txt`` for ``-R qrels_prefs`` in case4 and case5), a run
``run.txt``, ``args`` (the trec_eval options) and trec_eval's stdout with ``-q`` (``expected_q.txt``) and without
(``expected.txt``). Cases vary: several judgment groups and sub-groups per query, fractional levels (odd cases), tied
run scores (case3), a judged query missing from the run (odd cases, run with ``-c``), a query only in the run.

trec_eval is built from its source (github.com/usnistgov/trec_eval, ``make`` in a clone; NIST notice, no code of it
kept here); pass the binary::

    python tests/data/trec_eval_prefs/make_reference.py --trec-eval /path/to/trec_eval/trec_eval
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from synthetic import write_lines  # noqa: E402


def judgment_lines(rng: np.random.Generator, case: int, queries: list[str]) -> list[str]:
    """``-R prefs`` lines: per query 1-3 judgment groups of 1-3 sub-groups, each sub-group levels a few docs (a doc
    at level 0 is at 0 in every sub-group of its group)."""
    lines = []
    for query in queries:
        docs = [f"D{query[-1]}-{i}" for i in range(14)]
        for group in range(int(rng.integers(1, 4))):
            nonrelevant = set(rng.choice(docs, 4, replace=False))  # level 0 in every sub-group, as trec_eval requires
            for sub in range(int(rng.integers(1, 4))):
                for doc in rng.choice(docs, int(rng.integers(2, 7)), replace=False):
                    level = float(rng.integers(1, 4)) + (float(rng.choice([0, 0.5])) if case % 2 else 0)
                    lines.append(f"{query} jg{group} s{sub} {doc} {0 if doc in nonrelevant else level:g}")
    order = rng.permutation(len(lines))
    return [lines[i] for i in order]


def qrels_lines(rng: np.random.Generator, queries: list[str]) -> list[str]:
    return [f"{q} 0 D{q[-1]}-{i} {int(rng.integers(0, 3))}" for q in queries for i in rng.choice(14, 9, replace=False)]


def run_lines(rng: np.random.Generator, case: int, queries: list[str]) -> list[str]:
    lines = []
    for query in [*queries, "999"]:  # 999: a query only in the run
        if case % 2 and query == queries[-1]:
            continue  # a judged query the run lacks
        for rank, doc in enumerate(rng.choice(14, 10, replace=False), start=1):
            score = float(rng.integers(0, 4)) if case == 3 else round(float(rng.random() * 10), 4)
            lines.append(f"{query} Q0 D{query[-1]}-{doc} {rank} {score:g} runX")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec-eval", required=True, help="the trec_eval binary built from usnistgov/trec_eval")
    args = parser.parse_args()
    rng = np.random.default_rng(32)
    for case in range(6):
        folder = HERE / "generated" / f"case{case}"
        queries = ["100", "101", "102"]
        qrels_prefs = case >= 4
        judgments = folder / ("qrels.txt" if qrels_prefs else "prefs.txt")
        write_lines(judgments, qrels_lines(rng, queries) if qrels_prefs else judgment_lines(rng, case, queries))
        write_lines(folder / "run.txt", run_lines(rng, case, queries))
        options = ["-m", "all_prefs", *(["-c"] if case % 2 else []), "-R", "qrels_prefs" if qrels_prefs else "prefs"]
        (folder / "args").write_text(" ".join(options) + "\n")
        for flags, name in (([], "expected.txt"), (["-q"], "expected_q.txt")):
            argv = [args.trec_eval, *options, *flags, str(judgments), str(folder / "run.txt")]
            (folder / name).write_text(subprocess.run(argv, check=True, capture_output=True, text=True).stdout)


if __name__ == "__main__":
    main()
