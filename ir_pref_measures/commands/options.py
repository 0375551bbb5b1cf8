"""Option types and checks shared by the commands: a bad value is a usage error (exit status 2) before any
work starts."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager

from ir_pref_measures.errors import InputError


def positive_int(text: str) -> int:
    """An integer >= 1 (a depth, a cutoff, a number of repeats)."""
    return _parsed(text, int, lambda v: v >= 1, "be at least 1")


def non_negative_int(text: str) -> int:
    """An integer >= 0 (a number of rounds, of decimal places)."""
    return _parsed(text, int, lambda v: v >= 0, "be at least 0")


def non_negative(text: str) -> float:
    """A finite number >= 0 (a prior's weight)."""
    return _parsed(text, float, lambda v: 0 <= v < float("inf"), "be a non-negative number")


def probability(text: str) -> float:
    """A number strictly between 0 and 1 (a significance level)."""
    return _parsed(text, float, lambda v: 0 < v < 1, "lie strictly between 0 and 1")


def share(text: str) -> float:
    """A number from 0 to 1, both included (a share)."""
    return _parsed(text, float, lambda v: 0 <= v <= 1, "lie between 0 and 1")


def share_below_one(text: str) -> float:
    """A number from 0 included to 1 excluded (a share that cannot be everything)."""
    return _parsed(text, float, lambda v: 0 <= v < 1, "be at least 0 and below 1")


def positive(text: str) -> float:
    """A finite number > 0 (a gap between grades)."""
    return _parsed(text, float, lambda v: 0 < v < float("inf"), "be a positive number")


def _parsed(text: str, kind: type, allowed, requirement: str):
    """``text`` as ``kind`` (int or float); argparse's error, saying what was expected, when it is not one or
    ``allowed`` rejects it."""
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
    if not allowed(value):
        raise argparse.ArgumentTypeError(f"{text!r} must {requirement}")
    return value


def check_writable(path: str | None, suffixes: tuple[str, ...] | None = None) -> None:
    """Fail before the work when ``path`` cannot be written: a missing folder, a folder, no permission, or
    (with ``suffixes``) a file type that cannot be written."""
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if suffixes is not None and not path.lower().endswith(suffixes):
        raise InputError(f"{path}: cannot write this file type", expected=f"a name ending in {', '.join(suffixes)}")
    if not os.path.isdir(folder):
        raise InputError(f"{path}: the folder {folder} does not exist")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a folder, not a file")
    if not os.access(path if os.path.exists(path) else folder, os.W_OK):
        raise InputError(f"{path}: cannot be written (permission denied)")


def positive_seconds(text: str) -> float:
    """A number of seconds > 0 (a time limit)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number of seconds")
    return value


def add_dask_option(parser: argparse.ArgumentParser) -> None:
    """``--dask local|ADDRESS``: compute on a Dask cluster (:mod:`ir_pref_measures.dask`); ``--dask-timeout``."""
    parser.add_argument(
        "--dask",
        metavar="local|ADDRESS",
        help="compute on a Dask cluster: 'local' starts one on this machine (a worker process per core), "
        "ADDRESS (tcp://host:8786) is a running scheduler's; needs pip install 'ir-pref-measures[dask]'",
    )
    parser.add_argument(
        "--dask-timeout",
        metavar="SECONDS",
        type=positive_seconds,
        help="give up on the scheduler at --dask ADDRESS if it has not answered within SECONDS (default: "
        "Dask's distributed.comm.timeouts.connect, 30 s unless configured)",
    )


@contextmanager
def dask_client(address: str | None, timeout: float | None = None) -> Iterator:
    """A ``distributed.Client`` of a new local cluster (``"local"``) or of the scheduler at ``address`` (reached
    within ``timeout`` seconds: :func:`ir_pref_measures.dask.scheduler.connect`); ``None`` without an address
    (compute in this process)."""
    if address is None:
        yield None
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise InputError("--dask needs Dask", expected="pip install 'ir-pref-measures[dask]'") from None
    if address == "local":
        import logging

        with LocalCluster(processes=True, dashboard_address=":0", silence_logs=logging.CRITICAL) as cluster:
            with Client(cluster) as client:
                yield client
        return
    from ir_pref_measures.dask.scheduler import connect

    with connect(address, timeout) as client:
        yield client


def add_run_name_options(parser: argparse.ArgumentParser, default: str) -> None:
    """``--name NAME`` / ``--file-name`` (into ``args.name``) of a drop-in whose tool names the run its own way
    (``default`` says how, for the help)."""
    names = parser.add_mutually_exclusive_group()
    names.add_argument("--name", metavar="NAME", help=f"the run id in the output (default: {default})")
    names.add_argument(
        "--file-name",
        dest="name",
        action="store_const",
        const="",
        help="the run id is the file name without folder, 'input.', '.gz' and extension (as the other commands)",
    )


def key_values(items: list[str]) -> dict[str, str]:
    """``--option KEY=VALUE`` items as a mapping (``-`` in a key read as ``_``)."""
    found = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"--option {item!r}: write KEY=VALUE")
        found[key.replace("-", "_")] = value
    return found
