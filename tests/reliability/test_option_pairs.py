"""Every pair of options of ``experiment``, ``leaderboard``, ``judges`` and ``compare`` either works or is refused
with a message; none is silently ignored.

Each command has a base invocation on inputs built here and a list of options (each with a value that changes the
output on these inputs). For every option alone and every pair: the command ends with status 0, or with status 2
and a message on stderr (a usage error or an :class:`InputError`), never another exception. When it works, each
of its options must show: the output (stdout, stderr and the files written) differs from the output without that
option (when that one works too).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli

QUERIES = [f"q{i:02d}" for i in range(12)]  # enough queries that 200 random permutations are not all of them


def _inputs(folder: Path) -> dict[str, str]:
    """Qrels, three runs, a battle file and two judges' preference files, seeded."""
    rng = np.random.default_rng(11)
    docs = [f"d{i}" for i in range(8)]
    paths = {}
    qrels = [f"{q} 0 {d} {rng.integers(0, 4)}\n" for q in QUERIES for d in docs]
    paths["qrels"] = _write(folder / "qrels.txt", "".join(qrels))
    for r in range(3):
        lines = []
        for q in QUERIES:
            scores = rng.normal(size=len(docs)) + np.linspace(r * 0.3, 0, len(docs))
            order = np.argsort(-scores)
            lines += [f"{q} Q0 {docs[k]} {i + 1} {scores[k]:.6f} r{r}\n" for i, k in enumerate(order)]
        paths[f"run{r}"] = _write(folder / f"run{r}.txt", "".join(lines))
    systems = ["s1", "s2", "s3", "s4"]
    battles = []
    for q in QUERIES:
        for a, b in itertools.combinations(systems, 2):
            winner = rng.choice([a, b, "tie"], p=[0.45, 0.35, 0.2])
            battles.append(f"{q} {a} {b} {winner}\n")
    paths["battles"] = _write(folder / "battles.txt", "".join(battles))
    carterette, pairs = [], []
    for q in QUERIES:
        for a, b in itertools.combinations(docs[:5], 2):
            carterette.append(f"{q} {a} {b} {rng.choice([-1, 0, 1])}\n")
            pairs.append(f"{q} {a} {b}\n" if rng.random() < 0.6 else f"{q} {b} {a}\n")
        carterette += [f"{q} d0 d1 -1\n", f"{q} d0 d1 0\n", f"{q} d0 d1 0\n"]  # plurality: a tie; net: d0
    paths["judge_a"] = _write(folder / "judge_a.txt", "".join(carterette))
    paths["judge_b"] = _write(folder / "judge_b.txt", "".join(pairs))
    return paths


def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


RUNS = ["{run0}", "{run1}", "{run2}"]
COMMANDS = {
    "experiment": (
        ["experiment", "{qrels}", *RUNS, "-m", "nDCG@10", "P@5"],
        {
            "baseline": ["--baseline", "run0"],
            "test": ["--test", "permutation"],
            "samples": ["--samples", "200"],
            "seed": ["--seed", "3"],
            "ci": ["--ci", "0.9"],
            "effect-size": ["--effect-size"],
            "correction": ["--correction", "holm"],
            "alpha": ["--alpha", "0.5"],
            "all-pairs": ["--all-pairs"],
            "anova": ["--anova"],
            "perquery": ["--perquery"],
            "topk": ["--topk", "3"],
            "format": ["--format", "csv"],
            "round": ["--round", "2"],
            "names": ["--names", "x", "y", "z"],
            "output": ["-o", "{out}/table.txt"],
        },
    ),
    "leaderboard": (
        ["leaderboard", "{battles}"],
        {
            "method": ["--method", "elo"],
            "prior": ["--prior", "0.5"],
            "anchor": ["--anchor", "s1=1200"],
            "rounds": ["--rounds", "50"],
            "resample": ["--resample", "queries"],
            "level": ["--level", "0.8"],
            "seed": ["--seed", "4"],
            "k": ["--k", "8"],
            "format": ["--format", "csv"],
            "digits": ["--digits", "2"],
            "win-rates": ["--win-rates"],
            "plot": ["--plot", "{out}/forest.png"],
            "heatmap": ["--heatmap", "{out}/heat.png"],
            "measure": ["--measure", "lexiprecision"],
        },
    ),
    "judges": (
        ["judges", "A={judge_a}", "B={judge_b}", "C={qrels}"],
        {
            "show": ["--show", "agreement"],
            "format": ["--format", "markdown"],
            "digits": ["--digits", "2"],
            "samples": ["--samples", "100"],
            "seed": ["--seed", "5"],
            "confidence": ["--confidence", "0.8"],
            "runs": ["--runs", *RUNS],
            "measure": ["--measure", "ppref@5"],
            "reference": ["--reference", "B"],
            "heatmap": ["--heatmap", "{out}/heat.png"],
            "statistic": ["--statistic", "alpha"],
            "aligned": ["--aligned", "{out}/aligned.csv"],
            "majority": ["--majority", "net"],
        },
    ),
    "compare": (
        ["compare", "-R", "{qrels}", *RUNS],
        {
            "measure": ["-m", "lexiprecision", "-m", "rpp"],
            "measure-set": ["-M", "preferences"],
            "binary": ["-b", "2"],
            "floor": ["-f", "2"],
            "perquery": ["-q"],
            "nosummary": ["-n"],
            "topk": ["--topk", "3"],
            "graded-rpp": ["--graded-rpp"],
        },
    ),
}

_CACHE: dict[tuple[str, tuple[str, ...]], tuple[int, str]] = {}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> tuple[dict[str, str], Path]:
    folder = tmp_path_factory.mktemp("option_pairs")
    return _inputs(folder), folder


def _outcome(command: str, chosen: tuple[str, ...], inputs) -> tuple[int, str]:
    """(status, everything the command produced: stdout, stderr and the files it wrote), computed once."""
    key = (command, chosen)
    if key not in _CACHE:
        paths, folder = inputs
        out = folder / ("out-" + "-".join((command, *chosen)))
        out.mkdir()
        base, options = COMMANDS[command]
        argv = [*base, *(token for name in chosen for token in options[name])]
        argv = [token.format(out=out, **paths) for token in argv]
        status, text = _run(argv)
        files = "".join(f"\n--- {p.name}\n{p.read_bytes()!r}" for p in sorted(out.iterdir()))
        _CACHE[key] = (status, text.replace(str(out), "OUT") + files)
    return _CACHE[key]


def _run(argv: list[str]) -> tuple[int, str]:
    out, err, status = run_cli(argv)
    return status, f"{out}\n=== stderr\n{err}"


def _combinations() -> list[tuple[str, tuple[str, ...]]]:
    cases = []
    for command, (_, options) in COMMANDS.items():
        names = sorted(options)
        cases += [(command, (name,)) for name in names]
        cases += [(command, pair) for pair in itertools.combinations(names, 2)]
    return cases


@pytest.mark.parametrize(("command", "chosen"), _combinations(), ids=lambda v: v if isinstance(v, str) else "+".join(v))
def test_every_option_pair_works_or_is_refused(command, chosen, inputs):
    status, text = _outcome(command, chosen, inputs)
    assert status in (0, 2), text
    if status == 2:
        message = text.split("=== stderr\n", 1)[1]
        assert message.strip(), "refused without a message"
        return
    for left_out in chosen:
        rest = tuple(name for name in chosen if name != left_out)
        other_status, other_text = _outcome(command, rest, inputs)
        if other_status == 0:
            assert text != other_text, f"--{left_out} is silently ignored together with {rest or 'nothing'}"
