"""Tie-aware RBO straight from Corsi and Urbano's definitions (SIGIR 2024), one depth and one item at a time: the
oracle of the tied-RBO tests."""

from __future__ import annotations

import math


def direct(x: list, y: list, p: float, ties: str) -> dict[str, float]:
    """Corsi and Urbano's definitions, one depth and one item at a time (quadratic; for tests only)."""

    def ranks(ranking):
        out, at = {}, 0
        for entry in ranking:
            group = list(entry) if isinstance(entry, set) else [entry]
            for item in group:
                out[item] = (at, at + len(group) - 1)
            at += len(group)
        return out

    def contribution(tb, d):  # depth d is 1-based; t, b 0-based
        t, b = tb
        if ties == "w":
            return 1.0 if t < d else 0.0
        return min(max((d - t) / (b - t + 1), 0.0), 1.0)

    rx, ry = ranks(x), ranks(y)
    rs, rl = (ry, rx) if len(rx) >= len(ry) else (rx, ry)  # S, the shorter (y on equal lengths), and L
    s, n = len(rs), len(rl)
    l_only = sorted((item for item in rl if item not in rs), key=lambda item: rl[item][0])

    def agreement(x_d, d, sum_s, sum_l, sq_s, sq_l):
        if ties == "w":
            return 2 * x_d / (sum_s + sum_l)
        if ties == "a":
            return x_d / d
        return x_d / math.sqrt(sq_s) / math.sqrt(sq_l)

    terms = {"ext": 0.0, "min": 0.0, "max": 0.0}
    a_s = 0.0
    for d in range(1, n + 1):
        c_s = {item: contribution(tb, d) for item, tb in rs.items()}
        c_l = {item: contribution(tb, d) for item, tb in rl.items()}
        x_d = sum(c_s[item] * c_l[item] for item in c_s if item in c_l)
        sum_l, sq_l = sum(c_l.values()), sum(v * v for v in c_l.values())
        if d <= s:
            value = agreement(x_d, d, sum(c_s.values()), sum_l, sum(v * v for v in c_s.values()), sq_l)
            for score in terms:
                terms[score] += value * p**d
            a_s = value
            continue
        unseen_max = sum(c_l[item] for item in l_only[: d - s])
        started = [c_l[item] for item in l_only if c_l[item] > 0]
        unseen_ext = (d - s) * a_s * sum(started) / len(started)
        for score, x_score in (("min", x_d), ("max", x_d + unseen_max), ("ext", x_d + unseen_ext)):
            terms[score] += agreement(x_score, d, d, sum_l, d, sq_l) * p**d
    x_l = round(x_d)
    terms["min"] += x_l * (-math.log1p(-p) - sum(p**d / d for d in range(1, n + 1)))
    f = n + s - x_l
    terms["max"] += sum((2 * d - n - s + x_l) / d * p**d for d in range(n + 1, f + 1)) + p ** (f + 1) / (1 - p)
    terms["ext"] += (x_l + (n - s) * a_s) / n * p ** (n + 1) / (1 - p)
    out = {score: (1 - p) / p * value for score, value in terms.items()}
    out["res"] = out["max"] - out["min"]
    return out
