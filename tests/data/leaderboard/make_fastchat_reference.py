"""Record FastChat's Bradley-Terry and online Elo ratings on our battle sets (run by hand; FastChat is no dependency).

FastChat's ``fastchat/serve/monitor/rating_systems.py`` (lm-sys/FastChat; the commit is printed into
``fastchat_commit.txt``) is extracted from a git mirror of the repository into a temporary folder and imported as it
is; it needs numpy, scipy, pandas and tqdm. Battle sets:

* ``generated_*``: battles drawn (seeded, below) from known Bradley-Terry strengths with ties, written here as
  ``<set>.battles.gz`` (``qid system_a system_b winner``);
* ``dl19_rpp``, ``dl21_rpp``: per query, every pair of the DL runs of the reference test data, won by the sign of
  graded RPP (``compare(..., measures=["rpp"], perquery=True)``); the tests rebuild these battles from the runs.

Outputs: ``fastchat_bt.csv`` (``compute_bt``) and ``fastchat_elo.csv`` (``compute_elo``, battles in file order),
columns ``set, system, rating``.

    python tests/data/leaderboard/make_fastchat_reference.py [MIRROR_GIT_DIR] [TESTDATA_DIR]
"""

from __future__ import annotations

import gzip
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
MIRROR = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/lm-sys+FastChat/repo")
TESTDATA = Path(sys.argv[2] if len(sys.argv) > 2 else ROOT.parent / "shared" / "testdata")
SOURCE = "fastchat/serve/monitor/rating_systems.py"
RUNS = {
    "dl19_rpp": ("dl19", ("ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50")),
    "dl21_rpp": ("dl21", ("p_bm25", "uogTrPot5", "NLE_P_v1")),
}
GENERATED = {  # name: (systems, battles, queries, share of ties, pairs kept, seed)
    "generated_small": (6, 3000, 40, 0.1, 1.0, 1),
    "generated_many": (20, 20000, 200, 0.15, 1.0, 2),
    "generated_sparse": (12, 2000, 30, 0.05, 0.3, 3),
}


def fastchat():
    commit = subprocess.run(["git", "-C", MIRROR, "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    text = subprocess.run(["git", "-C", MIRROR, "show", f"HEAD:{SOURCE}"], capture_output=True, check=True).stdout
    folder = Path(tempfile.mkdtemp())
    (folder / "rating_systems.py").write_bytes(text)
    spec = importlib.util.spec_from_file_location("rating_systems", folder / "rating_systems.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, commit.stdout.strip()


def generated(systems: int, n: int, queries: int, ties: float, kept: float, seed: int) -> pd.DataFrame:
    """Battles from Bradley-Terry strengths ``beta ~ N(0, 1)``: a pair drawn among the kept pairs (a ring of all
    systems always kept, so the graph is connected), a tie with probability ``ties``, else a wins with
    probability ``1 / (1 + exp(beta_b - beta_a))``."""
    rng = np.random.default_rng(seed)
    beta = rng.normal(0.0, 1.0, systems)
    i, j = np.triu_indices(systems, k=1)
    ring = (j == i + 1) | ((i == 0) & (j == systems - 1))
    keep = ring | (rng.random(len(i)) < kept)
    i, j = i[keep], j[keep]
    pair = rng.integers(0, len(i), n)
    swap = rng.random(n) < 0.5
    a, b = np.where(swap, j[pair], i[pair]), np.where(swap, i[pair], j[pair])
    u = rng.random(n)
    p = 1.0 / (1.0 + np.exp(beta[b] - beta[a]))
    winner = np.where(u < ties, "tie", np.where(rng.random(n) < p, "a", "b"))
    names = np.array([f"sys{k:02d}" for k in range(systems)], dtype=object)
    return pd.DataFrame(
        {
            "query_id": rng.integers(1, queries + 1, n).astype(str),
            "system_a": names[a],
            "system_b": names[b],
            "winner": winner,
        }
    )


def rpp_battles(year: str, runs: tuple[str, ...]) -> pd.DataFrame:
    from ir_pref_measures import battles_from_compare, compare

    folder = TESTDATA / "dl_llm_prefs_arabzadeh"
    table = compare(
        {r: folder / "runs" / f"input.{r}.txt.gz" for r in runs},
        folder / f"qrels.{year}-passage.txt",
        measures=["rpp"],
        perquery=True,
    )
    return battles_from_compare(table, "rpp")


def main() -> None:
    module, commit = fastchat()
    sets = {}
    for name, parameters in GENERATED.items():
        battles = generated(*parameters)
        text = battles.to_csv(sep=" ", header=False, index=False).encode()
        (HERE / f"{name}.battles.gz").write_bytes(gzip.compress(text, compresslevel=9, mtime=0))  # same bytes each run
        sets[name] = battles
    for name, (year, runs) in RUNS.items():
        sets[name] = rpp_battles(year, runs)
    bt, elo = [], []
    for name, battles in sets.items():
        frame = pd.DataFrame(
            {
                "model_a": battles["system_a"],
                "model_b": battles["system_b"],
                "winner": battles["winner"].map({"a": "model_a", "b": "model_b", "tie": "tie"}),
            }
        )
        for out, ratings in ((bt, module.compute_bt(frame)), (elo, pd.Series(module.compute_elo(frame)))):
            out.append(pd.DataFrame({"set": name, "system": ratings.index, "rating": ratings.to_numpy()}))
    for file, parts in (("fastchat_bt.csv", bt), ("fastchat_elo.csv", elo)):
        table = pd.concat(parts, ignore_index=True).sort_values(["set", "system"])
        table.to_csv(HERE / file, index=False, float_format="%.10f")
    (HERE / "fastchat_commit.txt").write_text(f"lm-sys/FastChat {commit} {SOURCE}\n")


if __name__ == "__main__":
    main()
