"""Run PyTerrier's own Experiment tests against ``pt.Experiment`` and against ``ir_pref_measures.Experiment``.

    python tests/pyterrier_suite/run.py PYTERRIER_CHECKOUT [--impl ours|pyterrier|both] [pytest options]

``PYTERRIER_CHECKOUT``: a folder holding PyTerrier's ``tests/`` at the tag of the installed version (see
docs/experiments.md, "PyTerrier's own tests"). Terrier is replaced by the stand-ins of :mod:`standins` for both
implementations (no Java, no download). Prints pytest's summary per implementation; the exit status is pytest's
for the last implementation run.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

FILES = ("tests/test_experiment_linear.py", "tests/test_experiment_tree.py", "tests/test_experiment_other.py")
HERE = Path(__file__).resolve().parent


def run(checkout: str | os.PathLike, impl: str, extra: list[str] = ()) -> tuple[int, dict[str, int], str]:
    """pytest on PyTerrier's three files with ``pt.Experiment`` being ``impl`` ("ours" or "pyterrier"): the exit
    status, the counts of pytest's summary line (passed, failed, skipped, ...) and the output."""
    checkout = Path(checkout).resolve()
    env = dict(os.environ, IPM_PT_TESTS=str(checkout), IPM_PT_EXPERIMENT=impl)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    command = [sys.executable, "-m", "pytest", "-p", "standins", "-p", "no:cacheprovider", "-q", "-rfEs",
               "--rootdir", str(checkout), *extra, *FILES]  # fmt: skip
    done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True)
    output = done.stdout + done.stderr
    summary = output.strip().splitlines()[-1] if output.strip() else ""
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)", summary)}
    return done.returncode, counts, output


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", help="a folder with PyTerrier's tests/ (at the installed version's tag)")
    parser.add_argument("--impl", choices=("ours", "pyterrier", "both"), default="both")
    parser.add_argument("-v", "--verbose", action="store_true", help="print pytest's whole output")
    args, extra = parser.parse_known_args(argv)
    status = 0
    for impl in ("pyterrier", "ours") if args.impl == "both" else (args.impl,):
        status, counts, output = run(args.checkout, impl, extra)
        if args.verbose:
            print(output)
        print(f"{impl}: " + ", ".join(f"{n} {word}" for word, n in counts.items()))
    return status


if __name__ == "__main__":
    sys.exit(main())
