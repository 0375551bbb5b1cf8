"""The progress bar of long evaluations (tqdm), shown on a terminal only, and only when the work takes a while."""

from __future__ import annotations

PROGRESS_DELAY = 2.0  # seconds before the progress bar shows (only on a terminal)


def progress(total: int, desc: str, verbose: bool = False):
    """A progress bar of ``total`` steps on stderr: only on a terminal (anywhere with ``verbose``), only after
    ``PROGRESS_DELAY`` seconds, gone when done."""
    from tqdm.auto import tqdm

    shown = False if verbose else None  # None: tqdm's own test, a terminal
    return tqdm(total=total, desc=desc, unit="step", delay=PROGRESS_DELAY, disable=shown, leave=False)
