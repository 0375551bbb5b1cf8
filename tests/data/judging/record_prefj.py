"""Record what ``prefj.py`` (github claclark/preferences, HEAD 319915d) does on the CAsT 2019 qrels with an oracle
judge, for several seeds of Python's ``random``: the numbers ``tests/judging/test_topk.py`` compares ours with.

Usage: ``python record_prefj.py PREFJ_DIR QRELS > prefj_cast2019.json``, where PREFJ_DIR holds ``prefj.py`` (a
checkout of that repository; its code is not part of this project) and QRELS is
``../shared/testdata/cast2019_qrels/2019qrels.txt``. The process is driven as its ``sim.py`` drives it (requests,
then every judgment of the round, until no request is left).

The oracle prefers the doc of the higher grade, and of two equally graded docs the one whose id sorts first. A
topic's top-k is exact when the set ``prefj.py`` returns is the oracle's first ``min(K, candidates)`` docs.
"""

import json
import random
import sys

K = 5
SEEDS = range(20)


def oracle(grades, a, b):
    return min((a, b), key=lambda d: (-grades[d], d))


def main(folder, qrels_path):
    sys.path.insert(0, folder)
    import prefj  # noqa: PLC0415 (the reference tool, from the checkout given)

    qrels = prefj.load_qrels(qrels_path)
    seeds = []
    for seed in SEEDS:
        random.seed(seed)
        judgments, exact = 0, 0
        for topic in sorted(qrels):
            grades = qrels[topic]
            process = prefj.prefj(topic, grades)
            requests = process.requests()
            while requests:
                process.add([f"{r} {oracle(grades, *r.split())}" for r in sorted(requests)])
                requests = process.requests()
            judgments += len(process.log)
            truth = sorted(process.candidates, key=lambda d: (-grades[d], d))[: min(K, len(process.candidates))]
            exact += set(process.topk) == set(truth)
        seeds.append({"seed": seed, "judgments": judgments, "exact_topics": exact, "topics": len(qrels)})
    json.dump({"tool": "prefj.py 319915d", "k": K, "seeds": seeds}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(*sys.argv[1:3])
