"""Record the outputs of Elsas' ``pairwise_pref_eval.py`` on generated inputs, for
``tests/dropins/test_pairwise_pref_eval.py`` (fixture tier).

Writes beside this script, under the names of the tool's own test data so one test reads both tiers:
``preferences.txt`` / ``results.txt`` (2 queries, tied scores, bad docs, duplicates) and the toy pair
``small_preferences.txt`` / ``small_results.txt`` with the tool's summary outputs ``expected_results.txt`` /
``small_expected_results.txt``; in ``generated/`` their ``-q`` and ``-q -i`` outputs, and ``results.txt``
re-sorted with tied scores by doc id descending (``results_ties_docno_desc.txt``) with its ``-q`` output;
``edge_cases/`` (small hand-written corner cases) and ``synthetic/`` (seeded sets, 6 queries: graded-consistent
preferences with duplicates, and cyclic ones without duplicates), each ``X.prefs`` / ``X.run`` with the tool's
``-q`` output ``X.expected_q.txt`` and ``-q -i`` output ``X.expected_q_i.txt``.

The tool (github.com/jelsas/Pairwise-Preference-Evaluation, HEAD 8a94e064a6899c942ba54d6fe90d89aa367eb9e5, no
licence stated, no code of it kept here) is exported from a local git mirror into a temporary folder and run,
unmodified, by Python 2.7 under three string-hash seeds; the script stops if the outputs differ (the tool's
closure depends on hash order for duplicates mixed with inconsistent preferences, which these inputs avoid)::

    python tests/data/carterette/make_reference.py \
        --repo /work/.mirror/jelsas+Pairwise-Preference-Evaluation/repo/.git \
        --python2 /root/.pyenv/versions/2.7.18/bin/python2
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

from synthetic import doc_ids, graded_qrels, write_lines  # noqa: E402

COMMIT = "8a94e064a6899c942ba54d6fe90d89aa367eb9e5"
TAG = "generated_run"

# name -> (preference lines, run lines "qid doc score"); hand-written corner cases
EDGE_CASES = {
    "e01_unretrieved_preferred_vs_retrieved_bad": (
        ["q a b -1", "q c NA -2", "q x a -1"],
        ["q a 3", "q b 2", "q c 1"],
    ),
    "e02_duplicates_unretrieved": (["q a b -1", "q c d 0", "q a c -1"], ["q a 2", "q b 1"]),
    "e03_bad_doc_also_explicit_target": (["q a b -1", "q NA b 2", "q c b -1"], ["q b 3", "q a 2", "q c 1"]),
    "e04_bad_then_preferred": (
        ["q4 b NA -2", "q4 b a -1", "q4 a c -1", "q4 c d -1"],
        ["q4 a 4", "q4 d 3", "q4 b 2", "q4 c 1"],
    ),
    "e05_duplicate_inherits_preference": (
        ["q5 a b 0", "q5 a c -1", "q5 c d -1", "q5 b e -1"],
        ["q5 d 4", "q5 e 3.5", "q5 c 3", "q5 b 2", "q5 a 1"],
    ),
    "e06_three_cycle": (["q a b -1", "q b c -1", "q c a -1", "q a d -1"], ["q c 3", "q b 2", "q a 1", "q d 0.5"]),
    "e07_noncontiguous_query_blocks": (
        ["q1 a b -1", "q2 c d -1", "q1 b e -1", "q3 f g -1"],
        ["q1 b 3", "q2 d 2", "q1 a 2", "q2 c 1", "q9 z 1", "q1 e 0"],
    ),
    "e08_case_dupdoc_selfpref": (["Q a B -1", "q A c -1", "q c c -1"], ["q b 3", "q a 2", "q c 1", "q a 0.5"]),
    "e09_only_bad_docs": (["q a NA -2", "q NA b 2", "r x y -1"], ["q a 2", "q b 1", "r y 2", "r x 1"]),
    "e10_score_ties_file_order": (
        ["q a b -1", "q b c -1", "q d c -1", "q a d 1"],
        ["q c 1", "q b 1", "q a 1", "q d 0.5", "q e 0.5"],
    ),
    "e11_chain_with_unretrieved_and_bad": (
        ["q a b -1", "q b c -1", "q c d -1", "q d e -1", "q e NA -2", "q NA f 2"],
        ["q d 5", "q f 4", "q b 3", "q e 2", "q x 1"],
    ),
    "e12_pref_value_1_reversed": (["q a b 1", "q b c 1", "q c d -1"], ["q a 3", "q b 2", "q c 1", "q d 0"]),
}


def run_lines(rows: list[str]) -> list[str]:
    """``qid doc score`` rows as TREC run lines, in the given order (the tool keeps file order for ties)."""
    lines, rank = [], {}
    for row in rows:
        query, doc, score = row.split()
        rank[query] = rank.get(query, 0) + 1
        lines.append(f"{query} Q0 {doc} {rank[query]} {score} {TAG}")
    return lines


def synthetic(rng: np.random.Generator, duplicates: bool) -> tuple[list[str], list[str]]:
    """6 queries, 15 judged docs in 4 grades, 40 retrieved docs: a preference for each sampled judged pair of
    different grades; equal grades written as duplicates (``0``) or as a random ``-1`` / ``1`` (so cycles arise);
    two bad docs per query (one ``-2``, one ``2``)."""
    queries = [f"s{i}" for i in range(6)]
    qrels = graded_qrels(rng, queries, 15, grades=(0, 1, 2, 3))
    prefs, run = [], []
    for query, grades in qrels.items():
        docs = list(grades)
        for i in range(len(docs)):
            for j in range(i + 1, len(docs)):
                if rng.random() > 0.4:
                    continue
                a, b = docs[i], docs[j]
                if grades[a] == grades[b]:
                    prefs.append(f"{query}\t{a}\t{b}\t{0 if duplicates else int(rng.choice([-1, 1]))}")
                else:
                    prefs.append(f"{query}\t{a}\t{b}\t{-1 if grades[a] > grades[b] else 1}")
        bad = doc_ids(rng, 2)
        prefs += [f"{query}\tbad{bad[0]}\tNA\t-2", f"{query}\tNA\tbad{bad[1]}\t2"]
        pool = sorted(set(docs[:12]) | set(doc_ids(rng, 26)) | {f"bad{bad[0]}"})
        scores = np.round(np.array([grades.get(d, 0) for d in pool]) + rng.normal(0, 1.2, len(pool)), 1)
        run += [f"{query} {pool[i]} {scores[i]:.1f}" for i in np.argsort(-scores, kind="stable")]
    return prefs, run_lines(run)


def upstream_like(rng: np.random.Generator, queries: list[str], judged: int, retrieved: int):
    """The pair named like the tool's test data: tab-separated ``-1`` / ``-2`` / ``0`` preferences (consistent with
    the grades: duplicates only between equal grades), and a run with negative, tied scores in descending order."""
    qrels = graded_qrels(rng, queries, judged, grades=(0, 1, 2))
    prefs, rows = [], []
    for query, grades in qrels.items():
        docs = list(grades)
        for a in docs:
            for b in docs:
                if grades[a] > grades[b] and rng.random() < 0.3:
                    prefs.append(f"{query}\t{a}\t{b}\t-1")
        equal = next((a, b) for a in docs for b in docs if a < b and grades[a] == grades[b])
        prefs += [f"{query}\t{equal[0]}\t{equal[1]}\t0", f"{query}\tbad.{query}\tNA\t-2"]
        pool = sorted(set(docs) | set(doc_ids(rng, retrieved - len(docs))))[:retrieved]
        scores = np.round(-5 - rng.random(len(pool)) + 0.2 * np.array([grades.get(d, 0) for d in pool]), 2)
        rows += [f"{query} {pool[i]} {scores[i]:.4f}" for i in np.argsort(-scores, kind="stable")]
    return prefs, run_lines(rows)


def ties_by_docno_descending(lines: list[str]) -> list[str]:
    """The run with tied scores re-ordered by doc id descending (trec_eval's order), ranks renumbered."""
    keyed = [(line.split()[0], -float(line.split()[4]), line.split()[2], line) for line in lines]
    order = sorted(keyed, key=lambda k: (k[0], k[1], [-ord(c) for c in k[2]]))
    queries = list(dict.fromkeys(k[0] for k in keyed))
    order.sort(key=lambda k: queries.index(k[0]))
    return run_lines([f"{q} {doc} {line.split()[4]}" for q, _, doc, line in order])


def write_inputs() -> list[tuple[list[str], Path, Path, Path]]:
    """Writes every input; returns (flags, prefs, run, output) for each tool call."""
    rng = np.random.default_rng(2008)
    calls = []
    for stem, (queries, judged, retrieved) in {"": (["1435", "1569"], 14, 40), "small_": (["0"], 3, 3)}.items():
        prefs, run = upstream_like(rng, queries, judged, retrieved)
        write_lines(HERE / f"{stem}preferences.txt", prefs)
        write_lines(HERE / f"{stem}results.txt", run)
        p, r = HERE / f"{stem}preferences.txt", HERE / f"{stem}results.txt"
        suffix = stem.rstrip("_") + "_" if stem else ""
        calls += [
            ([], p, r, HERE / f"{stem}expected_results.txt"),
            (["-q"], p, r, HERE / "generated" / f"perquery_{suffix}results.txt"),
            (["-q", "-i"], p, r, HERE / "generated" / f"perquery_{suffix}intransitive_results.txt"),
        ]
        if not stem:
            ties = HERE / "generated" / "results_ties_docno_desc.txt"
            write_lines(ties, ties_by_docno_descending(run))
            calls.append((["-q"], p, ties, HERE / "generated" / "perquery_results_ties_docno_desc.txt"))
    cases = {name: (prefs, run_lines(run)) for name, (prefs, run) in EDGE_CASES.items()}
    cases = {f"edge_cases/{name}": case for name, case in cases.items()}
    cases["synthetic/synth_consistent"] = synthetic(rng, duplicates=True)
    cases["synthetic/synth_cyclic_nodup"] = synthetic(rng, duplicates=False)
    for name, (prefs, run) in cases.items():
        write_lines(HERE / f"{name}.prefs", [line.replace(" ", "\t") for line in prefs])
        write_lines(HERE / f"{name}.run", run)
        for flags, suffix in ((["-q"], "expected_q"), (["-q", "-i"], "expected_q_i")):
            calls.append((flags, HERE / f"{name}.prefs", HERE / f"{name}.run", HERE / f"{name}.{suffix}.txt"))
    return calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True, help="git directory of a jelsas/Pairwise-Preference-Evaluation mirror")
    parser.add_argument("--python2", default="python2", help="a Python 2.7 interpreter")
    args = parser.parse_args()
    source = subprocess.run(
        ["git", "--git-dir", args.repo, "show", f"{COMMIT}:pairwise_pref_eval.py"], check=True, capture_output=True
    ).stdout
    tool = Path(tempfile.mkdtemp(prefix="pairwise_pref_eval_")) / "pairwise_pref_eval.py"
    tool.write_bytes(source)
    for flags, prefs, run, output in write_inputs():
        outputs = set()
        for seed in ("0", "1", "2"):
            argv = [args.python2, "-R", str(tool), *flags, str(prefs), str(run)]
            env = {**os.environ, "PYTHONHASHSEED": seed}
            outputs.add(subprocess.run(argv, check=True, capture_output=True, text=True, env=env).stdout)
        assert len(outputs) == 1, f"the tool's output on {prefs.name} depends on the hash seed"
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(outputs.pop())


if __name__ == "__main__":
    main()
