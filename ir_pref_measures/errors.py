"""The one exception type for bad input."""

from __future__ import annotations

import os


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
            text += f"\n  line: {line.rstrip(chr(10)).rstrip(chr(13))!r}"
        if expected:
            text += f"\n  expected: {expected}"
        super().__init__(text)
