"""Write the generated topic x system matrices of the Tukey tests (``topic,system,score``, seeded).

Scores look like an IR measure's: a per-topic difficulty plus a per-system effect plus noise, clipped to [0, 1] and
rounded to 4 decimals (so ties occur). Run from this folder: ``python make_matrices.py``; then ``Rscript
make_reference.R`` records R's ANOVA and Tukey HSD outputs for them.
"""

import numpy as np
import pandas as pd

SIZES = {  # name: (systems, topics, seed)
    "gen_3x20": (3, 20, 1),
    "gen_5x50": (5, 50, 2),
    "gen_20x100": (20, 100, 3),
    "gen_8x10": (8, 10, 4),
    "gen_12x60": (12, 60, 5),
    "gen_20x100b": (20, 100, 6),
}

for name, (systems, topics, seed) in SIZES.items():
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(2, 3, size=(topics, 1))
    effect = rng.normal(0, 0.05, size=(1, systems))
    scores = np.clip(difficulty + effect + rng.normal(0, 0.15, size=(topics, systems)), 0, 1).round(4)
    frame = pd.DataFrame(
        {
            "topic": np.repeat([f"T{t:03d}" for t in range(topics)], systems),
            "system": np.tile([f"S{s:02d}" for s in range(systems)], topics),
            "score": scores.ravel(),
        }
    )
    frame.to_csv(f"{name}.csv", index=False)
