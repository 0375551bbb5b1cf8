"""People through files, as ``prefj.py`` works: the questions written to a requests file, the answers read from
a judgments file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.protocol import Answer, Pair
from ir_pref_measures.judging.rules import FLIPPED


class FilesJudge:
    """People through files, as ``prefj.py`` works: each call writes the questions still unanswered to
    ``requests`` (``topic first second`` lines, in the order shown) and answers those that ``judgments`` answers.

    A judgment line is ``topic a b`` (``a`` preferred, ``prefj.py``'s form) or ``topic a b X`` with ``X`` the
    preferred doc, ``=`` (a tie), ``?`` (no judgment possible) or ``bad:DOC`` (that doc is not relevant at all).
    A question not answered yet gets no answer: the run waits for it. ``assessor`` is stored with each answer."""

    def __init__(self, requests: str | os.PathLike, judgments: str | os.PathLike, assessor: str = "", name="files"):
        self.requests, self.judgments, self.assessor, self.name = requests, judgments, assessor, name

    def read(self) -> dict[tuple[str, frozenset[str]], tuple[Pair, str]]:
        """The judgments file as ``{(topic, {a, b}): (pair as written, answer)}`` (a later line wins)."""
        from ir_pref_measures.parsing.formats import fields, text_lines

        if not os.path.exists(self.judgments):
            return {}
        read = {}
        for line_no, line in text_lines(self.judgments):
            parts = fields(line)
            if len(parts) not in (3, 4) or parts[1] == parts[2]:
                raise InputError(
                    "not a judgment",
                    path=self.judgments,
                    line_no=line_no,
                    line=line,
                    expected="'topic a b' (a preferred) or 'topic a b X', X = a, b, '=', '?' or 'bad:DOC'",
                )
            topic, a, b = parts[:3]
            mark = parts[3] if len(parts) == 4 else a
            marks = {
                a: "first",
                b: "second",
                "=": "tie",
                "?": "unusable",
                f"bad:{a}": "bad-first",
                f"bad:{b}": "bad-second",
            }
            if mark not in marks:
                raise InputError(
                    f"{mark!r} is neither doc of the pair, '=', '?' nor 'bad:DOC'",
                    path=self.judgments,
                    line_no=line_no,
                    line=line,
                )
            answer = marks[mark]
            read[(topic, frozenset((a, b)))] = (Pair(topic, a, b), answer)
        return read

    def judge(self, pairs: Sequence[Pair]) -> list[Answer]:
        read = self.read()
        answers, waiting = [], []
        for pair in pairs:
            found = read.get((pair.query_id, frozenset((pair.first, pair.second))))
            if found is None:
                waiting.append(pair)
            else:
                written, answer = found
                if written != pair:  # written the other way round: the answer as the question was shown
                    answer = FLIPPED.get(answer, answer)
                answers.append(Answer(pair, answer, self.name, assessor=self.assessor))
        _replace(self.requests, "".join(f"{p.query_id} {p.first} {p.second}\n" for p in waiting))
        return answers


def _replace(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it onto ``path``: never half a file."""
    folder = os.path.dirname(os.path.abspath(path))
    with tempfile.NamedTemporaryFile("w", dir=folder, prefix=".requests.", delete=False, encoding="utf-8") as out:
        out.write(text)
    os.replace(out.name, path)
