"""Record Clarke's ``compatibility.py`` and Luo's ``greedy_pgc.py`` on generated inputs, for
``tests/measures/test_compatibility.py`` and ``tests/measures/test_pgc.py`` (fixture tier).

Inputs beside this script (seed 2021): ``qrels.txt`` (graded 0..3, 6 topics of 25 judged docs), ``fqrels.txt``
(the same docs with float values, as the preference-derived qrels of the compatibility papers), three runs
``run1.txt``..``run3.txt`` of 40 docs with tied scores, and ``prefs.txt``, Greedy PGC's ``topic winner loser``
lines: judged pairs with repeated pairs (parallel edges) and reversed ones (cycles). Every preference-graph node of a
topic is in every run, but one, so the script's candidate ties (broken by ``set`` order when ranks are equal) cannot
arise.

Outputs: ``compat/<qrels>.<run>.p<p>[.nonorm].csv``, the stdout of ``compatibility.py -p P QRELS RUN`` for
p = 0.95 and 0.8, as published (NORMALIZE=True) and with NORMALIZE set to False (the CIKM/ICTIR 2020 numbers: a
one-word change made at run time in the temporary copy); ``greedy_pgc/<run>.csv``, the stdout of
``greedy_pgc.py prefs.txt RUN`` run in this folder (the script prints the run path as given, here the bare file
name), under PYTHONHASHSEED 0..4 (the script stops if they differ).

The tools come from local git mirrors of github.com/claclark/Compatibility (HEAD bd47d75, no licence stated) and
github.com/chengxiluo/Greedy-Preference-Graph-Compatibility (HEAD 1379e9d, no licence stated), copied into a
temporary folder at run time; no code of theirs is kept here. Python 3.11::

    python tests/data/pgc/make_reference.py --compatibility /work/.mirror/claclark+Compatibility/repo \
        --greedy-pgc /work/.mirror/chengxiluo+Greedy-Preference-Graph-Compatibility/repo
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

from synthetic import doc_ids, graded_qrels, write_lines, write_qrels, write_run  # noqa: E402

QRELS = ("qrels.txt", "fqrels.txt")
RUNS = ("run1.txt", "run2.txt", "run3.txt")
COMPAT_CASES = [(p, normalize) for p in (0.95, 0.8) for normalize in (True, False)]


def tool(repo: str, path: str, edit: tuple[str, str] | None = None) -> Path:
    """``path`` at the mirror's HEAD, copied to a temporary file (with ``edit`` = (old, new) applied)."""
    source = subprocess.run(["git", "--git-dir", repo, "show", f"HEAD:{path}"], check=True, capture_output=True)
    text = source.stdout.decode()
    if edit:
        assert text.count(edit[0]) == 1, edit
        text = text.replace(*edit)
    copy = Path(tempfile.mkdtemp(prefix="reference_")) / Path(path).name
    copy.write_text(text)
    return copy


def generate(rng: np.random.Generator) -> None:
    topics = [f"{t}_{s}" for t in (31, 32) for s in (1, 2, 3)]
    qrels = graded_qrels(rng, topics, 25)
    write_qrels(HERE / "qrels.txt", qrels)
    floats = {t: {d: g + float(rng.integers(0, 8)) / 8 for d, g in docs.items()} for t, docs in qrels.items()}
    write_lines(HERE / "fqrels.txt", [f"{t} Q0 {d} {v:.3f}" for t, docs in floats.items() for d, v in docs.items()])
    prefs, nodes = [], {}
    for topic, grades in qrels.items():
        docs = sorted(grades)[:14]  # the graph's nodes; the last one is left out of every run
        nodes[topic] = docs
        for _ in range(30):
            a, b = rng.choice(len(docs), 2, replace=False)
            winner, loser = sorted((docs[a], docs[b]), key=lambda d: -grades[d] + rng.normal(0, 0.8))
            prefs.append(f"{topic} {winner} {loser}")
    write_lines(HERE / "prefs.txt", prefs)
    for index, name in enumerate(RUNS):
        run = {}
        for topic, grades in qrels.items():
            judged = [d for d in grades if d != nodes[topic][-1]]
            pool = sorted(set(nodes[topic][:-1]) | set(rng.choice(judged, 12, replace=False)) | set(doc_ids(rng, 15)))
            quality = (1.2, 0.6, 0.1)[index]
            scores = np.round(quality * np.array([grades.get(d, 0.0) for d in pool]) + rng.normal(0, 1, len(pool)), 1)
            run[topic] = list(zip(pool, scores.tolist(), strict=True))
        write_run(HERE / name, run, name.removesuffix(".txt"), decimals=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compatibility", required=True, help="git directory of a claclark/Compatibility mirror")
    parser.add_argument("--greedy-pgc", required=True, help="git directory of a Greedy-PGC mirror")
    args = parser.parse_args()
    generate(np.random.default_rng(2021))
    compat = {True: tool(args.compatibility, "compatibility.py")}
    compat[False] = tool(args.compatibility, "compatibility.py", ("NORMALIZE = True", "NORMALIZE = False"))
    for qrels in QRELS:
        for run in RUNS:
            for p, normalize in COMPAT_CASES:
                argv = [sys.executable, str(compat[normalize]), "-p", str(p), qrels, run]
                out = subprocess.run(argv, check=True, capture_output=True, text=True, cwd=HERE).stdout
                name = f"{qrels.removesuffix('.txt')}.{run.removesuffix('.txt')}.p{p}{'' if normalize else '.nonorm'}"
                write_lines(HERE / "compat" / f"{name}.csv", out.splitlines())
    greedy = tool(args.greedy_pgc, "greedy_pgc.py")
    for run in RUNS:
        outputs = {
            subprocess.run(
                [sys.executable, str(greedy), "prefs.txt", run],
                check=True,
                capture_output=True,
                text=True,
                cwd=HERE,
                env={**os.environ, "PYTHONHASHSEED": str(seed)},
            ).stdout
            for seed in range(5)
        }
        assert len(outputs) == 1, f"greedy_pgc.py's output on {run} depends on the hash seed"
        write_lines(HERE / "greedy_pgc" / f"{run.removesuffix('.txt')}.csv", outputs.pop().splitlines())


if __name__ == "__main__":
    main()
