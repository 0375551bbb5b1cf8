"""A given list of questions: exactly these pairs, in this order (the ``list`` selector), so that a published set of
judgments can be judged again by another judge.

The list is a file of one question a line, the pair asked in the order written (the preset then asks it in both
orders when it asks both):

* ``topic a b``: a request file of ``prefj.py requests`` or of Arabzadeh and Clarke's ``judge.py`` (and
  ``judge.py``'s ``judge.NN`` outputs, its ``@`` lines without the mark);
* ``@ topic a b MARK``: Clarke's judging log (``MARK`` one of ``!``, ``=``, ``?``), as ``judge export`` writes it;
* ``topic a b winner`` (the ``winner`` format; ``winner`` is ``a`` or ``b``) or ``topic a b pref`` (the
  ``carterette`` format, ``pref`` in -2..2): a previous effort's export. A ``carterette`` bad mark (``topic a NA
  -2``) names one document, not a question: it is refused, as is any other line.

Blank lines and lines starting with ``#`` are skipped. The same question twice in one topic (in either order) is an
error naming both lines: asked again, it would get the first answer (or need ``--reask``), so the list would not be
judged as written. Each topic's questions are its one round, in the order of the file; :meth:`ListedPairs.position`
gives each question's place in the file, the order an export follows.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.protocol import Pair
from ir_pref_measures.judging.selectors.base import History

MARKS = ("!", "=", "?")
PREFERENCES = ("-2", "-1", "0", "1", "2")
EXPECTED = "topic a b; @ topic a b MARK (a judging log); topic a b winner; topic a b pref (-2..2)"


def read_pairs(path: str | os.PathLike) -> list[Pair]:
    """The questions of the list file ``path`` in the order written (module docstring)."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"the list of pairs cannot be read ({error.__class__.__name__}: {error})", path=path) from None
    pairs: list[Pair] = []
    seen: dict[tuple[str, frozenset[str]], int] = {}
    for line_no, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        pair = _pair(line.split(), path, line_no, line)
        key = (pair.query_id, frozenset((pair.first, pair.second)))
        if key in seen:
            raise InputError(
                f"the question {pair.first} {pair.second} of topic {pair.query_id} is listed twice "
                f"(first on line {seen[key]})",
                path=path,
                line_no=line_no,
                line=line,
                expected="each question once per topic",
            )
        seen[key] = line_no
        pairs.append(pair)
    if not pairs:
        raise InputError("the list of pairs holds no question", path=path, expected=EXPECTED)
    return pairs


def _pair(fields: list[str], path, line_no: int, line: str) -> Pair:
    """The question of one line's ``fields``, or an :class:`InputError` naming the line."""

    def bad(why: str) -> InputError:
        return InputError(why, path=path, line_no=line_no, line=line, expected=EXPECTED)

    if len(fields) == 5 and fields[0] == "@":
        if fields[4] not in MARKS:
            raise bad(f"a judging log line ends with one of {' '.join(MARKS)}, not {fields[4]!r}")
        fields = fields[1:4]
    elif len(fields) == 4:
        if fields[2] == "NA":
            raise bad("a bad mark names one document, not a question")
        if fields[3] not in (fields[1], fields[2], *PREFERENCES):
            raise bad(f"the fourth field is the winner ({fields[1]} or {fields[2]}) or a preference -2..2")
        fields = fields[:3]
    if len(fields) != 3:
        raise bad(f"{len(fields)} fields")
    topic, a, b = fields
    if a == b:
        raise bad(f"a question of a document against itself ({a})")
    return Pair(topic, a, b)


class ListedPairs:
    """The questions of a list (:func:`read_pairs`), each topic's in one round in the order given; ``pools`` are
    the documents each topic's questions name."""

    name = "list"

    def __init__(self, pairs: Sequence[Pair]) -> None:
        self.pairs = list(pairs)
        self._by_query: dict[str, list[Pair]] = {}
        for pair in self.pairs:
            self._by_query.setdefault(pair.query_id, []).append(pair)
        self.pools: Mapping[str, Sequence[str]] = {
            q: sorted({d for p in ps for d in (p.first, p.second)}) for q, ps in self._by_query.items()
        }
        self._positions = {_key(p): i for i, p in enumerate(self.pairs)}

    def next_round(self, query_id: str, history: History) -> list[Pair]:
        return [] if history else list(self._by_query.get(query_id, []))

    def position(self, pair: Pair) -> int:
        """The place of the question ``pair`` (either order) in the list."""
        return self._positions[_key(pair)]


def _key(pair: Pair) -> tuple[str, frozenset[str]]:
    return (pair.query_id, frozenset((pair.first, pair.second)))
