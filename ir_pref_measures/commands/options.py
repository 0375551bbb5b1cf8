"""Option types and checks shared by the commands: a bad value is a usage error (exit status 2) before any
work starts."""

from __future__ import annotations

import argparse
import os

from ir_pref_measures.errors import InputError


def positive_int(text: str) -> int:
    """An integer >= 1 (a depth, a cutoff, a number of repeats)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def probability(text: str) -> float:
    """A number strictly between 0 and 1 (a significance level)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must lie strictly between 0 and 1")
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
