"""Kneedle (Satopaa, Albrecht, Irwin and Raghavan, ICDCS workshops 2011) as the paper draws it: each point of
the curve scaled to the unit square, its Euclidean distance from the straight line through the first and last
scaled points, one point at a time; the knee is the farthest point on the side of the bend."""

from __future__ import annotations

import math


def knee(x, y, curve="concave"):
    """The ``x`` of the farthest point above (``concave``) or below (``convex``) the chord, ``None`` if none is."""
    x0, x1, lo, hi = x[0], x[-1], min(y), max(y)
    if hi == lo:
        return None
    points = [((a - x0) / (x1 - x0), (b - lo) / (hi - lo)) for a, b in zip(x, y, strict=True)]
    (ax, ay), (bx, by) = points[0], points[-1]
    best, at = 0.0, None
    for (px, py), original in zip(points, x, strict=True):
        # the cross product of chord and point, over the chord's length: the signed distance, positive above
        distance = ((bx - ax) * (py - ay) - (by - ay) * (px - ax)) / math.hypot(bx - ax, by - ay)
        if curve == "convex":
            distance = -distance
        if distance > best:
            best, at = distance, original
    return at
