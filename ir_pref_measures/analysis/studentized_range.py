"""The survival function of the studentized range distribution, vectorised over the statistic.

P(Q < q; k, nu) = int_0^inf f_nu(s) W_k(q s) ds, W_k(w) = k int phi(z) (Phi(z) - Phi(z - w))^(k - 1) dz,
with f_nu the density of chi_nu / sqrt(nu): the range of k standard normals over an independent estimate of their
standard deviation on nu degrees of freedom (Tukey 1953; J. Lund, R. Lund, Applied Statistics 32(2), 1983).
``scipy.stats.studentized_range`` integrates this per value (tens of milliseconds each); here both integrals are
composite Gauss-Legendre rules, one array expression for every q at once, agreeing with scipy to 1e-10 or better
when nu >= :data:`MIN_DF` (the density of s is then a narrow bump; the tests check it on a grid of k, nu and q).
Below it, scipy's integration, whose adaptive rule handles the long tail of s near 0. :func:`isf`: the quantile,
by Brent's root finding on :func:`sf`.
"""

from __future__ import annotations

import numpy as np

MIN_DF = 30
_Z_PANELS, _S_PANELS, _ORDER = 17, 8, 12
_BLOCK = 1 << 22  # cells of one (statistics x s nodes x z nodes) block: bounds memory


def _gauss_legendre(low: float, high: float, panels: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of the composite ``_ORDER``-point Gauss-Legendre rule on ``panels`` equal panels."""
    x, w = np.polynomial.legendre.leggauss(_ORDER)
    edges = np.linspace(low, high, panels + 1)
    half, middle = np.diff(edges) / 2, (edges[1:] + edges[:-1]) / 2
    return (middle[:, None] + half[:, None] * x).ravel(), (half[:, None] * w).ravel()


def sf(q, k: int, df: float) -> np.ndarray:
    """P(Q >= q) for the studentized range Q of ``k`` groups and ``df`` degrees of freedom, for each q >= 0 of
    the array ``q`` (module docstring; NaN stays NaN, infinity gives 0)."""
    from scipy import special, stats

    q = np.asarray(q, dtype=np.float64)
    if df < MIN_DF:
        return stats.studentized_range.sf(q, k, df)
    z, z_weights = _gauss_legendre(-8.7, 8.7, _Z_PANELS)  # phi(z) < 1e-16 beyond
    cdf_z, density_z = special.ndtr(z), np.exp(-z * z / 2) / np.sqrt(2 * np.pi) * z_weights
    # s = chi_nu / sqrt(nu) outside [low, high] has probability 2e-17
    low, high = stats.chi.ppf(1e-17, df) / np.sqrt(df), stats.chi.isf(1e-17, df) / np.sqrt(df)
    s, s_weights = _gauss_legendre(low, high, _S_PANELS)
    # the density up to its constant, about its mode sqrt((df - 1) / df), normalised by the rule itself
    mode = np.sqrt((df - 1) / df)
    log_density = (df - 1) * np.log(s / mode) - df * (s - mode) * (s + mode) / 2
    density_s = np.exp(log_density) * s_weights
    density_s /= density_s.sum()
    flat = q.ravel()
    out = np.full(flat.shape, np.nan)
    finite = np.flatnonzero(np.isfinite(flat))
    out[np.isposinf(flat)] = 0.0
    size = max(1, _BLOCK // (len(s) * len(z)))
    for start in range(0, len(finite), size):
        at = finite[start : start + size]
        w = (flat[at, None] * s).ravel()
        inner = np.maximum(cdf_z - special.ndtr(z - w[:, None]), 0.0) ** (k - 1)
        cdf = (k * (inner @ density_z)).reshape(len(at), len(s)) @ density_s
        out[at] = np.clip(1.0 - cdf, 0.0, 1.0)
    return out.reshape(q.shape)


def isf(alpha: float, k: int, df: float) -> float:
    """The q with P(Q >= q) = ``alpha`` (0 < alpha < 1): the critical value of the studentized range."""
    from scipy import optimize, stats

    if df < MIN_DF:
        return float(stats.studentized_range.isf(alpha, k, df))
    high = 1.0
    while sf(high, k, df) > alpha:
        high *= 2
    return float(optimize.brentq(lambda q: sf(q, k, df) - alpha, 0.0, high, xtol=1e-14, rtol=4 * np.finfo(float).eps))
