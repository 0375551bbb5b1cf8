"""Record the outputs of Diaz' ``pref_eval.py`` / ``pref_aggregate.py`` on generated inputs, for
``tests/dropins/test_pref_eval.py`` (fixture tier).

Inputs (``inputs/``, seed 7): graded qrels (grades -1..3) of 8 queries and 7 runs ``runA``..``runG`` of up to 20
docs, with the cases the drop-in must get right: tied scores, a run missing queries (runC), a query with no relevant
doc, a run that retrieves nothing relevant (runG), negative and scientific-notation scores (runF), doc ids of
different lengths, a query only in the runs; ``qrels_subtopics.txt`` holds the same grades spread over subtopic
lines (a doc's grade is its largest). Outputs (``outputs/``) are the tool's unedited JSON lines, from
github.com/diazf/pref_eval (no licence stated; no code of it is kept here) exported from a local git mirror into a
temporary folder at its commit 28d7bd3 (and 60e3203 for ``graded_rpp_q.jsonl``, the older graded RPP), run with
``PYTHONHASHSEED=0``. Run from anywhere::

    python tests/data/pref_eval/make_reference.py --repo /work/.mirror/diazf+pref_eval/repo
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from synthetic import Run, graded_qrels, run_from, write_lines, write_qrels  # noqa: E402

COMMIT, GRADED_RPP_COMMIT = "28d7bd34e5365ec884c7bbeb693da87e2276913c", "60e3203"
RUNS = [f"run{c}" for c in "ABCDEFG"]
CASES = {  # output file -> (commit, tool, arguments after the tool)
    "all_q.jsonl": (COMMIT, "pref_eval.py", ["-q"]),
    "all_summary.jsonl": (COMMIT, "pref_eval.py", []),
    "binary2_q.jsonl": (COMMIT, "pref_eval.py", ["-q", "-b", "2"]),
    "extended_q.jsonl": (COMMIT, "pref_eval.py", "-q -m ap@10 -m rbp@0.8 -m ndcg@10 -m p@5 -m r@5 -m rr".split()),
    "graded_rpp_q.jsonl": (GRADED_RPP_COMMIT, "pref_eval.py", "-q -m rpp -m invrpp -m dcgrpp".split()),
}


def write_trec_run(path: Path, run: Run, name: str, scores=lambda s: f"{s:.4f}") -> None:
    write_lines(
        path, [f"{q} Q0 {d} {r} {scores(s)} {name}" for q, docs in run.items() for r, (d, s) in enumerate(docs, 1)]
    )


def generate(rng: np.random.Generator) -> None:
    queries = [str(q) for q in range(101, 109)]
    qrels = graded_qrels(rng, queries, 14, grades=(-1, 0, 1, 2, 3))
    qrels["105"] = {doc: min(grade, 0.0) for doc, grade in qrels["105"].items()}  # no relevant doc
    write_qrels(HERE / "inputs" / "qrels.txt", qrels)
    subtopics = [
        f"{q} {t} {d} {int(g) if t == g % 2 else int(g) - 1}"
        for q, docs in qrels.items()
        for d, g in docs.items()
        for t in (0, 1)
    ]
    write_lines(HERE / "inputs" / "qrels_subtopics.txt", subtopics)
    for index, name in enumerate(RUNS):
        run = run_from(rng, qrels, 20, quality=[1.5, 1.0, 0.8, 0.5, 0.3, 1.2, 0.0][index], decimals=1 + index % 3)
        run = {q: sorted(docs, key=lambda line: -line[1]) for q, docs in run.items()}
        if name == "runC":
            run = {q: docs for q, docs in run.items() if q not in ("102", "107")}
        if name == "runG":
            run = {q: [(d, s) for d, s in docs if qrels[q].get(d, 0) <= 0] for q, docs in run.items()}
        run["199"] = [(f"D{i}", float(10 - i)) for i in range(5)]  # a query only in the runs
        scores = (lambda s: f"{s - 5:.3e}") if name == "runF" else (lambda s: f"{s:.4f}")
        write_trec_run(HERE / "inputs" / "runs" / name, run, name, scores)


def export(repo: str, commit: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix=f"pref_eval_{commit[:7]}_"))
    archive = subprocess.run(["git", "--git-dir", repo, "archive", commit], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True, help="git directory of a github.com/diazf/pref_eval mirror")
    args = parser.parse_args()
    generate(np.random.default_rng(7))
    runs = [str(HERE / "inputs" / "runs" / name) for name in RUNS]
    environment = {**os.environ, "PYTHONHASHSEED": "0"}
    tools = {commit: export(args.repo, commit) for commit in (COMMIT, GRADED_RPP_COMMIT)}
    outputs = HERE / "outputs"
    outputs.mkdir(exist_ok=True)
    for name, (commit, tool, options) in CASES.items():
        argv = [sys.executable, str(tools[commit] / tool), "-R", str(HERE / "inputs" / "qrels.txt"), *options, *runs]
        result = subprocess.run(argv, check=True, capture_output=True, text=True, env=environment)
        (outputs / name).write_text(result.stdout)
    argv = [sys.executable, str(tools[COMMIT] / "pref_aggregate.py"), "-P", str(outputs / "all_q.jsonl"), "-q"]
    result = subprocess.run(argv, check=True, capture_output=True, text=True, env=environment)
    (outputs / "aggregate_all_q.jsonl").write_text(result.stdout)


if __name__ == "__main__":
    main()
