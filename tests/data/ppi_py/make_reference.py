"""Record ppi_py's power analysis, cross-prediction mean and one-sided tuned intervals, for
tests/stats/test_ppi_power.py and tests/stats/test_ppi_variants.py.

ppi_py's power analysis is newer than its last release (0.2.3): run this with its GitHub HEAD importable, e.g.

    pip install ppi-python==0.2.3            # its dependencies
    git clone https://github.com/aangelopoulos/ppi_py && (cd ppi_py && git checkout bd90caa)
    PYTHONPATH=ppi_py python tests/data/ppi_py/make_reference.py

It writes ``tests/data/ppi_py/reference.json``: the commit, the inputs generated here and ppi_py's outputs of
``ppi_power`` (a grid of correlations, prices, budgets, effective sample sizes and caps ``n_max``),
``ppi_mean_power`` (pilots, with and without weights), ``crossppi_mean_ci`` and ``ppi_mean_ci`` with a one-sided
alternative and the tuned ``lam`` (the interval it returns, and the one it returns given that ``lam``).
"""

from __future__ import annotations

import itertools
import json
import subprocess
import warnings
from pathlib import Path

import numpy as np

try:  # the reference, needed to record only: a test run that collects this file has none
    import ppi_py
    from ppi_py.ppi import _calc_lam_glm
except ImportError:
    ppi_py = None

OUT = Path(__file__).with_name("reference.json")


def listed(x) -> list:
    return np.asarray(x, dtype=np.float64).tolist()


def ends(interval) -> list:
    """An interval's two ends as floats (ppi_py gives an array or a scalar infinity for each)."""
    return [float(np.ravel(end)[0]) for end in interval]


def plain(result: dict) -> dict:
    return {key: float(value) for key, value in result.items()}


def power_grid() -> list[dict]:
    cases = []
    grid = itertools.product(
        [0.0, 0.3, -0.55, 0.8, 0.95],  # ppi_corr
        [(1.0, 0.1, 0.0), (10.0, 0.5, 0.0), (5.0, 0.2, 1.0), (1.0, 0.9, 0.0)],  # cost_Y, cost_Yhat, cost_X
        [dict(budget=500.0), dict(budget=1234.5), dict(effective_n=100), dict(effective_n=37)],
        [None, 50, 120, 400, 2000],  # n_max
    )
    for corr, (cost_y, cost_yhat, cost_x), target, n_max in grid:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = ppi_py.ppi_power(corr, cost_x, cost_y, cost_yhat, n_max=n_max, **target)
        cases.append(
            {
                "ppi_corr": corr,
                "cost_Y": cost_y,
                "cost_Yhat": cost_yhat,
                "cost_X": cost_x,
                "n_max": n_max,
                **target,
                "warned": bool(caught),
                "result": plain(result),
            }
        )
    return cases


def mean_power_cases(rng: np.random.Generator) -> list[dict]:
    cases = []
    for n, rho, weighted, target, n_max in [
        (30, 0.7, False, dict(effective_n=80), None),
        (50, 0.9, False, dict(budget=300.0), None),
        (20, 0.4, True, dict(effective_n=150), 400),
        (40, 0.85, True, dict(budget=1000.0), 500),
        (15, -0.6, False, dict(effective_n=60), None),
    ]:
        y = rng.normal(0.4, 1.0, n)
        yhat = rho * y + np.sqrt(1 - rho**2) * rng.normal(size=n) + 0.2
        w = rng.uniform(0.2, 3.0, n) if weighted else None
        result = ppi_py.ppi_mean_power(y, yhat, 1.0, 0.05, n_max=n_max, w=w, **target)
        cases.append(
            {"y": listed(y), "yhat": listed(yhat), "w": None if w is None else listed(w), "cost_Y": 1.0,
             "cost_Yhat": 0.05, "n_max": n_max, **target, "result": plain(result)}
        )  # fmt: skip
    return cases


def cross_cases(rng: np.random.Generator) -> list[dict]:
    cases = []
    for n, big_n, k, alpha, alternative in [
        (40, 300, 5, 0.1, "two-sided"),
        (25, 500, 3, 0.05, "two-sided"),
        (60, 200, 10, 0.1, "larger"),
        (12, 80, 2, 0.2, "smaller"),
    ]:
        y = rng.normal(0.3, 1.0, n)
        yhat = 0.7 * y + rng.normal(0, 0.5, n) + 0.1
        yhat_u = rng.normal(0.3, 0.8, (big_n, 1)) + rng.normal(0, 0.1, (big_n, k))
        lower, upper = ppi_py.crossppi_mean_ci(y, yhat, yhat_u, alpha=alpha, alternative=alternative)
        cases.append(
            {"y": listed(y), "yhat": listed(yhat), "yhat_unlabelled": listed(yhat_u), "alpha": alpha,
             "alternative": alternative, "estimate": listed(ppi_py.crossppi_mean_pointestimate(y, yhat, yhat_u))[0],
             "lower": ends((lower, upper))[0], "upper": ends((lower, upper))[1]}
        )  # fmt: skip
    return cases


def tuned_lam(y, yhat, yhat_u) -> float:
    """The lam ppi_mean_ci tunes (its own steps, unweighted, one column)."""
    y, yhat, yhat_u = y[:, None], yhat[:, None], yhat_u[:, None]
    theta = ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u, lam=1)
    return float(
        np.asarray(_calc_lam_glm(y - theta, yhat - theta, yhat_u - theta, np.eye(1), coord=None, clip=True)).ravel()[0]
    )


def one_sided_tuned(rng: np.random.Generator) -> list[dict]:
    cases = []
    for alternative in ("larger", "smaller"):
        y = rng.normal(size=40)
        yhat = 0.8 * y + rng.normal(0, 0.4, 40)
        yhat_u = rng.normal(size=300)
        lam = tuned_lam(y, yhat, yhat_u)
        returned = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.1, alternative=alternative)
        given = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.1, alternative=alternative, lam=lam)
        cases.append({"y": listed(y), "yhat": listed(yhat), "yhat_unlabelled": listed(yhat_u),
                      "alternative": alternative, "lam": lam, "returned": ends(returned),
                      "given_lam": ends(given)})  # fmt: skip
    return cases


def main() -> None:
    if ppi_py is None:
        raise SystemExit("make_reference.py records ppi_py's outputs: make ppi_py importable (module docstring)")
    rng = np.random.default_rng(20260301)
    commit = subprocess.run(
        ["git", "-C", str(Path(ppi_py.__file__).parents[1]), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    reference = {
        "ppi_py": commit or "unknown",
        "ppi_power": power_grid(),
        "ppi_mean_power": mean_power_cases(rng),
        "crossppi_mean_ci": cross_cases(rng),
        "one_sided_tuned": one_sided_tuned(rng),
    }
    OUT.write_text(json.dumps(reference, indent=1) + "\n")


if __name__ == "__main__":
    main()
