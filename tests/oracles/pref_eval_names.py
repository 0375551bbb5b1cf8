"""The grammar of the compare command's measure names as it was first written: one regular expression per form.
The oracle of the catalog's declarations (``tests/measures/test_names.py``): every name it reads means the same."""

from __future__ import annotations

import re

import numpy as np

PREFERENCES = ("rpp", "invrpp", "dcgrpp", "lexirecall", "lexiprecision", "rrlexiprecision")
ALIASES = {"LR": "lexirecall", "sgnLR": "lexirecall", "sgnLP": "lexiprecision", "rrLP": "rrlexiprecision"}
RBO_NAME = re.compile(r"rbo(?:_([wab]))?(?:_(ext|min|max|res))?(?:@(0?\.\d+)(?:,(\d+))?)?")


def parse(name: str) -> dict | None:
    """``family`` and the parameters of ``name`` (``k``: the cutoff, or RBO's depth; ``gamma``: RBP's or RBO's
    persistence), or ``None`` for a name the grammar does not read."""
    family = ALIASES.get(name, name)
    if family in PREFERENCES or family in ("ap", "rbp", "rr", "ndcg", "rp"):
        return {"family": family, "k": np.inf, "gamma": 0.5}
    match = re.fullmatch(r"(ap|rr|ndcg|p|r)@(\d+)", name)
    if match and int(match[2]) > 0:
        return {"family": match[1], "k": float(match[2]), "gamma": 0.5}
    match = RBO_NAME.fullmatch(name)
    if match and (match[3] is None or 0.0 < float(match[3]) < 1.0) and (match[4] is None or int(match[4]) > 0):
        depth = float(match[4]) if match[4] else np.inf
        gamma = float(match[3]) if match[3] else 0.9
        return {"family": "rbo", "k": depth, "gamma": gamma, "ties": match[1] or "a", "score": match[2] or "ext"}
    match = re.fullmatch(r"rbp@(0?\.\d+|\d*\.?\d+(?:e-?\d+)?)(?:,(\d+))?", name)
    if match and 0.0 < float(match[1]) < 1.0:
        k = float(match[2]) if match[2] and int(match[2]) > 0 else np.inf
        return {"family": "rbp", "k": k, "gamma": float(match[1])}
    return None
