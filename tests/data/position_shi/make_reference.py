"""Record the position consistency and preference fairness that Shi et al.'s own code computes, for
tests/agreement/test_position.py.

The reference is ``calculate_positional_consistency_and_preference_score`` of
``judging_the_judges/calculate_consistency_and_preference/consistency_preference_calculation.py`` in
https://github.com/Slimshilin/Position-Bias-Analyzer (L. Shi et al., "Judging the judges", 2024). Run this with
that directory importable, e.g.

    git clone https://github.com/Slimshilin/Position-Bias-Analyzer && \
        (cd Position-Bias-Analyzer && git checkout 9f8b7e8e83862cf1ffd9dd2c33f589262efc66ee)
    PYTHONPATH=Position-Bias-Analyzer/judging_the_judges/calculate_consistency_and_preference \
        python tests/data/position_shi/make_reference.py

Each case is one judge, one model against the reference model and one task: ``instances`` questions, each
asked with the model's answer shown first (``q;m;ref``) and with it shown second (``q;ref;m``). The judge's
extracted choices are ``A`` (the answer shown first), ``B`` (shown second), ``C`` (a tie) or ``N`` (none
extracted), drawn here at random with the case's probabilities (``numpy.random.default_rng(seed)``). It writes
``reference.json``: the commit, every case's choices (model first, then model second, per question) and the
reference's ``Positional Consistency`` and ``Positional Preference Score``.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd

try:  # the reference, needed to record only: a test run that collects this file has none
    from consistency_preference_calculation import calculate_positional_consistency_and_preference_score
except ImportError:
    calculate_positional_consistency_and_preference_score = None

OUT = Path(__file__).with_name("reference.json")
COMMIT = "9f8b7e8e83862cf1ffd9dd2c33f589262efc66ee"
CASES = [  # seed, instances, probabilities of A, B, C, N
    (0, 1, (1.0, 0.0, 0.0, 0.0)),
    (1, 4, (0.0, 1.0, 0.0, 0.0)),
    (2, 6, (0.0, 0.0, 1.0, 0.0)),
    (3, 10, (0.5, 0.5, 0.0, 0.0)),
    (4, 25, (0.6, 0.2, 0.2, 0.0)),
    (5, 40, (0.2, 0.5, 0.3, 0.0)),
    (6, 100, (0.45, 0.45, 0.1, 0.0)),
    (7, 300, (0.7, 0.25, 0.05, 0.0)),
    (8, 30, (0.5, 0.2, 0.1, 0.2)),
    (9, 200, (0.3, 0.4, 0.2, 0.1)),
]


def case(seed: int, instances: int, probabilities: tuple[float, float, float, float]) -> dict:
    rng = np.random.default_rng(seed)
    choices = rng.choice(["A", "B", "C", "N"], size=(instances, 2), p=probabilities)
    rows = []
    for k, (model_first, model_second) in enumerate(choices):
        rows.append({"cmp_index": f"q{k};m;ref", "task": "t", "extracted_judge": str(model_first)})
        rows.append({"cmp_index": f"q{k};ref;m", "task": "t", "extracted_judge": str(model_second)})
    with contextlib.redirect_stdout(io.StringIO()):  # the reference prints its progress
        results, _ = calculate_positional_consistency_and_preference_score(pd.DataFrame(rows), "ref")
    (row,) = results.to_dict("records")
    return {
        "seed": seed,
        "choices": ["".join(pair) for pair in choices.tolist()],
        "position consistency": float(row["Positional Consistency"]),
        "preference fairness": float(row["Positional Preference Score"]),
    }


def main() -> None:
    if calculate_positional_consistency_and_preference_score is None:
        raise SystemExit("consistency_preference_calculation is not importable (see this file's docstring)")
    cases = [case(*given) for given in CASES]
    OUT.write_text(json.dumps({"commit": COMMIT, "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
