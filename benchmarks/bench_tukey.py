"""Benchmark: the randomised Tukey HSD test and the Tukey HSD test on a seeded 20 systems x 100 topics matrix.

Cases, best of ``--repeat`` wall times each:

* ``randomised_tukey`` with B = 5,000 (Sakai's default) and with ``--samples`` (10,000: the Experiment default);
* the floor: drawing the B x topics x systems random numbers that B shuffles need, and nothing else
  (``rng.random``);
* the peer: the same test written the direct way, one shuffle at a time (a Python loop over the B shuffles,
  ``rng.permuted`` per shuffle), as a straightforward implementation does; its p-values are checked equal in law
  (within 3 Monte Carlo standard errors), not bit for bit, as it draws its own shuffles;
* ``tukey_hsd`` (the vectorised studentized range of ``analysis.studentized_range``), beside
  ``scipy.stats.studentized_range.sf`` on the same statistics (one adaptive integral per pair).

Prints the times, the ratios to the floor and the peer, and the peak RSS of this process; saves the rows to
``results/tukey.json`` (``--quick``: a tiny matrix, once, nothing saved).

    python benchmarks/bench_tukey.py [--systems 20] [--topics 100] [--samples 10000] [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from harness import Report, peak_rss_mb
from scipy.stats import studentized_range

from ir_pref_measures import anova
from ir_pref_measures.stats import tukey

SEED = 20250101


def matrix(systems: int, topics: int) -> np.ndarray:
    rng = np.random.default_rng(SEED)
    scores = rng.beta(2, 3, (topics, 1)) + rng.normal(0, 0.05, (1, systems)) + rng.normal(0, 0.15, (topics, systems))
    return np.clip(scores, 0, 1).round(4)


def best(function, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def direct(x: np.ndarray, samples: int, rng: np.random.Generator) -> np.ndarray:
    """The peer: one shuffle at a time."""
    i, j = np.triu_indices(x.shape[1], k=1)
    observed = np.abs(x.mean(axis=0)[j] - x.mean(axis=0)[i])
    count = np.zeros(len(i))
    for _ in range(samples):
        means = rng.permuted(x, axis=1).mean(axis=0)
        count += means.max() - means.min() >= observed
    return (count + 1) / (samples + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="5 systems x 10 topics, once, nothing saved")
    args = parser.parse_args()
    if args.quick:
        args.systems, args.topics, args.samples, args.repeat = 5, 10, 100, 1
    x = matrix(args.systems, args.topics)
    shape = f"{args.systems} systems x {args.topics} topics"
    floor, _ = best(lambda: np.random.default_rng(0).random((tukey.SAMPLES, *x.shape)), args.repeat)
    ours, result = best(lambda: tukey.randomised_tukey(x, tukey.SAMPLES, np.random.default_rng(0)), args.repeat)
    peer, theirs = best(lambda: direct(x, tukey.SAMPLES, np.random.default_rng(1)), 1)
    error = np.sqrt(result.p * (1 - result.p) / tukey.SAMPLES) + 1 / tukey.SAMPLES
    agree = bool((np.abs(result.p - theirs) <= 3 * np.sqrt(2) * error).all())
    more, _ = best(lambda: tukey.randomised_tukey(x, args.samples, np.random.default_rng(0)), args.repeat)
    hsd, _ = best(lambda: tukey.tukey_hsd(x), args.repeat)
    print(f"{shape}, {len(result.p)} pairs (best of {args.repeat}; the peer once)")
    print(f"randomised_tukey B={tukey.SAMPLES}: {ours:.3f} s")
    print(f"  floor (draw B x topics x systems random numbers): {floor:.3f} s; ratio {ours / floor:.2f}")
    print(f"  peer (one shuffle at a time): {peer:.3f} s; ratio {ours / peer:.3f} (p-values agree: {agree})")
    print(f"randomised_tukey B={args.samples}: {more:.3f} s")
    q = np.abs(result.diff) / np.sqrt(anova(x).residual_variance / x.shape[0])
    scipy_sf, _ = best(lambda: studentized_range.sf(q, x.shape[1], (x.shape[0] - 1) * (x.shape[1] - 1)), 1)
    print(f"tukey_hsd: {hsd:.3f} s; scipy's studentized_range.sf alone: {scipy_sf:.3f} s; ratio {hsd / scipy_sf:.3f}")
    print(f"peak RSS: {peak_rss_mb():.0f} MiB")
    report = Report("tukey", f"{shape}, {len(result.p)} pairs; best of {args.repeat}, the peers once", quick=args.quick)
    floor_name = "floor: draw B x topics x systems random numbers"
    report.add(floor_name, floor)
    report.add(f"randomised_tukey B={tukey.SAMPLES}", ours, floor=floor_name)
    report.add("peer: one shuffle at a time", peer, floor=floor_name)
    report.add(f"randomised_tukey B={args.samples}", more, floor=floor_name)
    scipy_name = "scipy studentized_range.sf alone"
    report.add(scipy_name, scipy_sf, floor=scipy_name)
    report.add("tukey_hsd", hsd, floor=scipy_name)
    report.save(quiet=True)


if __name__ == "__main__":
    main()
