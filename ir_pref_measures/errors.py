"""The one exception type for bad input, the one for a command stopped by a service or an interrupt, and where a
warning about the input points (:func:`user_stacklevel`); the warning of a renamed public name (:func:`renamed`)."""

from __future__ import annotations

import os
import sys
import types
import warnings

LINE_LIMIT = 200  # characters of an offending line shown in a message


class InputError(ValueError):
    """Bad input: names the file, the line number, the line and what was expected.

    Any of ``path``, ``line_no`` and ``line`` may be missing when the problem is not tied to one line
    (an empty file, a run with no query in common with the judgments).
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | os.PathLike | None = None,
        line_no: int | None = None,
        line: str | None = None,
        expected: str | None = None,
    ) -> None:
        self.message = message
        self.path = None if path is None else str(path)
        self.line_no = line_no
        self.line = line
        self.expected = expected
        where = self.path or ""
        if line_no is not None:
            where = f"{where}:{line_no}" if where else f"line {line_no}"
        text = f"{where}: {message}" if where else message
        if line is not None:
            line = line.rstrip("\r\n")
            shown = line if len(line) <= LINE_LIMIT else f"{line[:LINE_LIMIT]}... ({len(line)} characters)"
            text += f"\n  line: {shown!r}"
        if expected:
            text += f"\n  expected: {expected}"
        super().__init__(text)


class Stopped(RuntimeError):
    """A command stopped before its end by something other than its input: a service it needs refuses or cannot be
    reached, or the user interrupted it. The message is one line; ``status`` is the exit status (1; 130 for an
    interrupt)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def user_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` that names the first caller outside ``ir_pref_measures``: a warning
    points at the user's line however deep in the package it is raised (Python 3.12's ``skip_file_prefixes``)."""
    frame: types.FrameType | None = sys._getframe(1)  # the function that warns
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "ir_pref_measures":
        frame = frame.f_back
        level += 1
    return level


_RENAMED: set[str] = set()  # the old names that warned in this process


def renamed(old: str, new: str) -> None:
    """Warn (``DeprecationWarning``) that the public name ``old`` is ``new`` now, once per process: a renamed name
    keeps its old spelling, for the same object, for one release."""
    if old not in _RENAMED:
        _RENAMED.add(old)
        warnings.warn(f"{old} is deprecated: it is {new} now", DeprecationWarning, stacklevel=user_stacklevel())
