"""High-precision Tukey HSD p-values for the 20 x 100 matrix, where R's ``ptukey`` is accurate to ~1e-7 only.

Independent of the package and of scipy: the ANOVA in mpmath arithmetic from ``gen_20x100.csv``, then
P(Q >= q) for the studentized range with k systems and nu = (k - 1)(n - 1) df by direct quadrature of its
definition, P(Q < q) = int f_s(s) P_k(q s) ds, P_k(w) = k int phi(z) (Phi(z) - Phi(z - w))^(k - 1) dz, s ~
chi_nu / sqrt(nu). Writes ``gen_20x100.precise.csv`` (run, vs, p adj) for every 19th pair, 20 digits.
Run from this folder with mpmath installed (``pip install mpmath``): ``python make_precise.py``.
"""

import csv
from collections import defaultdict

import mpmath as mp

mp.mp.dps = 20
scores = defaultdict(dict)
with open("gen_20x100.csv") as f:
    for row in csv.DictReader(f):
        scores[row["system"]][row["topic"]] = mp.mpf(row["score"])
systems = sorted(scores)
topics = sorted(scores[systems[0]])
k, n = len(systems), len(topics)
nu = (k - 1) * (n - 1)
grand = mp.fsum(scores[s][t] for s in systems for t in topics) / (k * n)
system_mean = {s: mp.fsum(scores[s].values()) / n for s in systems}
topic_mean = {t: mp.fsum(scores[s][t] for s in systems) / k for t in topics}
residual = mp.fsum((scores[s][t] - system_mean[s] - topic_mean[t] + grand) ** 2 for s in systems for t in topics) / nu
log_c = mp.log(2) + (mp.mpf(nu) / 2) * mp.log(mp.mpf(nu) / 2) - mp.loggamma(mp.mpf(nu) / 2)


def p_range(w):
    nodes = [-mp.inf, -4, -2, 0, 2, 4, 8, mp.inf]
    return k * mp.quad(lambda z: mp.npdf(z) * (mp.ncdf(z) - mp.ncdf(z - w)) ** (k - 1), nodes)


def sf(q):
    density = lambda s: mp.exp(log_c + (nu - 1) * mp.log(s) - nu * s * s / 2)  # noqa: E731
    return 1 - mp.quad(lambda s: density(s) * p_range(q * s), [0.8, 0.9, 0.95, 1, 1.05, 1.1, 1.2])


pairs = [(i, j) for i in range(k) for j in range(i + 1, k)][::19]
with open("gen_20x100.precise.csv", "w", newline="") as f:
    out = csv.writer(f)
    out.writerow(["run", "vs", "p adj"])
    for i, j in pairs:
        q = abs(system_mean[systems[j]] - system_mean[systems[i]]) / mp.sqrt(residual / n)
        out.writerow([systems[j], systems[i], mp.nstr(sf(q), 20)])
        f.flush()
