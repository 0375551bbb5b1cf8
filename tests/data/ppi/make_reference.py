"""Record ppi-python's outputs on generated inputs, for tests/stats/test_ppi.py and tests/leaderboards/test_ppi.py.

Run from the repository root with ppi-python installed (``pip install ppi-python==0.2.3``):

    python tests/data/ppi/make_reference.py

It writes ``tests/data/ppi/reference.json``: each case holds its inputs (as generated here) and ppi-python's outputs:
``ppi_mean_ci`` / ``ppi_mean_pointestimate`` (tuned ``lam=None``, PPI ``lam=1``, classical ``lam=0``, a fixed
``lam``; with and without weights; one-sided intervals with a fixed ``lam``: ppi-python's tuned branch drops the
``alternative``), and ``ppi_logistic_pointestimate`` / ``ppi_logistic_ci`` on Bradley-Terry designs with system 0 as
the reference (columns ``e_a - e_b`` without system 0's).
"""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np
import ppi_py

OUT = Path(__file__).with_name("reference.json")


def listed(x) -> list:
    return np.asarray(x, dtype=np.float64).tolist()


def mean_cases(rng: np.random.Generator) -> list[dict]:
    cases = []
    for n, big_n, d, rho, weighted in [
        (40, 300, 1, 0.8, False),
        (25, 400, 1, 0.3, False),
        (60, 200, 3, 0.9, False),
        (30, 500, 1, 0.7, True),
        (12, 40, 2, -0.5, True),
        (80, 300, 1, 0.0, False),
    ]:
        truth = rng.normal(0.5, 1.0, size=(n + big_n, d))
        prediction = rho * truth + np.sqrt(1 - rho**2) * rng.normal(size=(n + big_n, d)) + rng.normal(0, 0.3, size=d)
        y, yhat, yhat_u = truth[:n], prediction[:n], prediction[n:]
        if d == 1:
            y, yhat, yhat_u = y[:, 0], yhat[:, 0], yhat_u[:, 0]
        w = rng.uniform(0.2, 3.0, n) if weighted else None
        w_u = rng.uniform(0.2, 3.0, big_n) if weighted else None
        case = {
            "y": listed(y),
            "yhat": listed(yhat),
            "yhat_unlabelled": listed(yhat_u),
            "w": None if w is None else listed(w),
            "w_unlabelled": None if w_u is None else listed(w_u),
            "results": [],
        }
        for lam, alternative, confidence in [
            (None, "two-sided", 0.9),
            (1.0, "two-sided", 0.95),
            (0.0, "two-sided", 0.9),
            (0.37, "larger", 0.9),
            (0.8, "smaller", 0.8),
        ]:
            mode = {"lam_optim_mode": "element"} if d > 1 else {}
            lower, upper = ppi_py.ppi_mean_ci(
                y, yhat, yhat_u, alpha=1 - confidence, alternative=alternative, lam=lam, w=w, w_unlabeled=w_u, **mode
            )
            estimate = ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam, w=w, w_unlabeled=w_u, **mode)
            case["results"].append(
                {
                    "lam": lam,
                    "alternative": alternative,
                    "confidence": confidence,
                    "estimate": listed(np.ravel(estimate)),
                    "lower": listed(np.ravel(lower)),
                    "upper": listed(np.ravel(upper)),
                }
            )
        cases.append(case)
    return cases


def design(a: np.ndarray, b: np.ndarray, m: int) -> np.ndarray:
    x = np.zeros((len(a), m))
    x[np.arange(len(a)), a] += 1.0
    x[np.arange(len(a)), b] -= 1.0
    return x[:, 1:]


def bradley_terry_cases(rng: np.random.Generator) -> list[dict]:
    cases = []
    for m, n, big_n, agreement in [(4, 200, 800, 0.7), (6, 300, 600, 0.85)]:
        beta = rng.normal(0, 0.7, m)
        beta -= beta.mean()

        def battles(k, m=m, beta=beta, agreement=agreement):
            a = rng.integers(0, m, k)
            b = (a + rng.integers(1, m, k)) % m
            y = (rng.random(k) < 1 / (1 + np.exp(beta[b] - beta[a]))).astype(np.float64)
            biased = (a == m - 1).astype(np.float64)  # the LLM favours the last system
            return a, b, y, np.where(rng.random(k) < agreement, y, biased)

        a, b, y, f = battles(n)
        ua, ub, _, uf = battles(big_n)
        case = {
            "systems": m,
            "a": a.tolist(),
            "b": b.tolist(),
            "y": listed(y),
            "f": listed(f),
            "a_unlabelled": ua.tolist(),
            "b_unlabelled": ub.tolist(),
            "f_unlabelled": listed(uf),
            "results": [],
        }
        for lam in (1.0, 0.5, 0.0):
            args = (design(a, b, m), y, f, design(ua, ub, m), uf)
            estimate = ppi_py.ppi_logistic_pointestimate(*args, lam=lam)
            lower, upper = ppi_py.ppi_logistic_ci(*args, lam=lam, alpha=0.1)
            case["results"].append(
                {
                    "lam": lam,
                    "confidence": 0.9,
                    "estimate": listed(estimate),
                    "lower": listed(lower),
                    "upper": listed(upper),
                }
            )
        cases.append(case)
    return cases


def main() -> None:
    rng = np.random.default_rng(20240)
    reference = {
        "ppi-python": version("ppi-python"),
        "mean": mean_cases(rng),
        "bradley_terry": bradley_terry_cases(rng),
    }
    OUT.write_text(json.dumps(reference) + "\n")
    print(f"wrote {OUT}: {len(reference['mean'])} mean cases, {len(reference['bradley_terry'])} Bradley-Terry cases")


if __name__ == "__main__":
    main()
