"""The preference formats: which judgment format a file is in, and reading preference files into one form.

The in-memory form is always the ``carterette`` one: columns ``query_id, doc_id_a, doc_id_b, preference`` with
``-1`` = a preferred, ``1`` = b preferred, ``0`` = duplicates, ``-2`` = a bad (b is ``NA``), ``2`` = b bad (a is
``NA``). Every file is read under the rules of :mod:`ir_pref_measures.parsing.formats`.

============  =============================  ==============================================
name          line                           source
============  =============================  ==============================================
carterette    ``qid src tgt pref``           Carterette et al. 2008; ``pairwise_pref_eval.py``
winner        ``qid docA docB winnerDoc``    CAsT 2019 top-k prefs; dueling bandits DL 2021
pairs         ``qid winner loser``           Greedy PGC input; GPT-4o DL preferences
qrels         ``qid 0 doc value``            float-valued qrels, larger = preferred
============  =============================  ==============================================

The format is named by the caller or detected from the lines (:func:`detect_format`): a file that fits ``qrels`` is
qrels; otherwise a file that fits several preference formats needs the format named. trec_eval's ``prefs`` judgments
(``qid jg jsg docno rel_level``, and qrels read as ``qrels_prefs``) are read here too (:func:`read_trec_prefs`,
:func:`read_qrels_prefs`). So is Clarke's judging log of LLM judgments, ``@ qid docA docB J``
(:func:`judging_log_columns`, :func:`read_judging_log`), which the judge analyses read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ir_pref_measures.choices import PREFERENCE_FORMATS
from ir_pref_measures.errors import InputError
from ir_pref_measures.model.columns import Columns, is_number
from ir_pref_measures.model.ids import arrow, as_numpy
from ir_pref_measures.model.pairs import CARTERETTE_NOTE, CARTERETTE_NUMBERS, NA
from ir_pref_measures.parsing.files import RawFile, Source, fields, load, text_lines
from ir_pref_measures.parsing.formats import QRELS, Layout, fail_at, read_columns, read_table, swapped

if TYPE_CHECKING:  # pandas is imported where a DataFrame is made
    import pandas as pd

FORMATS_EXPECTED = (
    "one of: qrels 'qid 0 doc grade', carterette 'qid src tgt pref', winner 'qid docA docB winnerDoc', "
    "pairs 'qid winner loser'"
)
CARTERETTE_VALUES = tuple(map(str, CARTERETTE_NUMBERS))  # as text, for format detection

CARTERETTE = Layout(
    "carterette preferences",
    ("query_id", "doc_id_a", "doc_id_b", "preference"),
    ("preference",),
    note="; " + CARTERETTE_NOTE,
)
WINNER = Layout("winner preferences", ("query_id", "doc_id_a", "doc_id_b", "winner"))
PAIRS = Layout("pairs preferences", ("query_id", "winner", "loser"))
TREC_PREFS = Layout("trec_eval prefs", ("query_id", "jg", "jsg", "doc_id", "level"), ("level",), exact=("level",))


def _detect_one(parts: Sequence[str]) -> set[str]:
    if len(parts) == 3:
        return {"pairs"}
    if len(parts) != 4:
        return set()
    qid, a, b, last = parts
    found = set()
    if last in CARTERETTE_VALUES:
        found.add("carterette")
    if last in (a, b):
        found.add("winner")
    if a in ("0", "Q0") and is_number(last):
        found.add("qrels")
    return found


def detect_format(source: Source | RawFile, preference_format: str | None = None, sample: int = 10_000) -> str:
    """Name the judgment format of ``source`` (``qrels`` or a preference format) from its first ``sample``
    data lines. A file that fits ``qrels`` is qrels (binary and 0-2 graded qrels fit ``carterette`` too, but
    only with a doc named ``0`` on every line); any other file is in ``preference_format`` when it is given;
    otherwise a tie raises :class:`InputError` asking for the format.

    Parameters
    ----------
    source
        A path (gzip or not) or an open text or binary file.
    preference_format : str, optional
        The preference format to take when the file is not qrels and several fit.
    sample : int
        The number of data lines read.

    Returns
    -------
    str
        ``qrels``, ``carterette``, ``winner`` or ``pairs``.
    """
    raw = load(source)
    candidates = set(PREFERENCE_FORMATS)
    seen = 0
    for line_no, line in text_lines(raw):
        parts = fields(line)
        fits = _detect_one(parts)
        if not fits & candidates:
            raw.fail(
                "this line fits no preference format"
                + (f" that the lines before it fit ({', '.join(sorted(candidates))})" if seen else "")
                + swapped(parts),
                line_no=line_no,
                expected=FORMATS_EXPECTED,
            )
        candidates &= fits
        seen += 1
        if seen >= sample:
            break
    if not seen:
        raw.fail("the file has no data lines", expected=FORMATS_EXPECTED)
    if "qrels" in candidates:
        return "qrels"
    if preference_format is not None:
        return preference_format
    if len(candidates) > 1:
        raw.fail(
            f"the judgment format is ambiguous: the lines fit {', '.join(sorted(candidates))}; pass format= "
            "(on the command line: --prefs-format, or FORMAT:PATH)",
            expected=FORMATS_EXPECTED,
        )
    return candidates.pop()


def read_preferences(source: Source | RawFile, format: str | None = None) -> pd.DataFrame:
    """Read a preference file into ``query_id, doc_id_a, doc_id_b, preference, line`` (carterette values).

    ``format`` is one of ``carterette``, ``winner``, ``pairs`` (``qrels`` files hold grades, not pairs: read them
    with :func:`~ir_pref_measures.parsing.formats.read_qrels`). Without ``format`` it is detected when unambiguous.

    Parameters
    ----------
    source
        A path (gzip or not) or an open text or binary file.
    format : {"carterette", "winner", "pairs"}, optional
        The file's format; detected when unambiguous.

    Returns
    -------
    pandas.DataFrame
        ``query_id, doc_id_a, doc_id_b, preference, line``: preference -1 (a preferred), 1 (b preferred), 0
        (duplicates), -2 (a bad, b ``NA``), 2 (a ``NA``, b bad).
    """
    return preference_columns(source, format).frame()


def preference_columns(source: Source | RawFile, format: str | None = None) -> Columns:
    """:func:`read_preferences` as :class:`Columns` (no pandas): ``query_id, doc_id_a, doc_id_b`` (Arrow strings)
    and ``preference`` (int8, carterette values)."""
    raw = load(source)
    if format is None:
        format = detect_format(raw)
    if format == "carterette":
        return _carterette(raw)
    if format == "winner":
        columns = read_columns(raw, WINNER)
        a, b, winner = (columns.fields[c] for c in ("doc_id_a", "doc_id_b", "winner"))
        fail_at(
            columns,
            as_numpy(pc.and_(pc.not_equal(winner, a), pc.not_equal(winner, b))),
            lambda r: f"winner {winner[r].as_py()!r} is neither {a[r].as_py()!r} nor {b[r].as_py()!r}",
            WINNER,
        )
        preference = np.where(as_numpy(pc.equal(winner, a)), -1, 1).astype(np.int8)
        return _preferences_of(columns, a, b, preference)
    if format == "pairs":
        columns = read_columns(raw, PAIRS)
        winner, loser = columns.fields["winner"], columns.fields["loser"]
        return _preferences_of(columns, winner, loser, np.full(len(columns), -1, dtype=np.int8))
    if format == "qrels":
        raise InputError(f"{raw.name} holds graded qrels, not preference pairs", expected="a preference file")
    raise InputError(f"unknown preference format {format!r}", expected=f"one of {', '.join(PREFERENCE_FORMATS)}")


def _carterette(raw: RawFile) -> Columns:
    columns = read_columns(raw, CARTERETTE)
    values = columns.fields["preference"]
    fail_at(
        columns, ~np.isin(values, CARTERETTE_NUMBERS), lambda r: f"unknown preference value '{values[r]:g}'", CARTERETTE
    )
    preference = values.astype(np.int8)
    a, b = columns.fields["doc_id_a"], columns.fields["doc_id_b"]
    for value, marked_doc, other, message in (
        (-2, b, a, "preference -2 marks {} bad, so the second doc must be NA"),
        (2, a, b, "preference 2 marks {} bad, so the first doc must be NA"),
    ):
        marked = np.flatnonzero(preference == value)
        not_na = np.zeros(len(columns), dtype=bool)
        not_na[marked] = [doc.upper() != NA for doc in marked_doc.take(arrow(marked)).to_pylist()]
        fail_at(columns, not_na, lambda r, m=message, o=other: m.format(repr(o[r].as_py())), CARTERETTE)
    return _preferences_of(columns, a, b, preference)


def _preferences_of(columns: Columns, a: pa.Array, b: pa.Array, preference: np.ndarray) -> Columns:
    fields = {"query_id": columns.fields["query_id"], "doc_id_a": a, "doc_id_b": b, "preference": preference}
    return Columns(columns.name, fields, columns.lines, columns.raw)


def read_trec_prefs(source: Source | RawFile) -> pd.DataFrame:
    """trec_eval's ``prefs`` judgments ``qid jg jsg docno rel_level`` (``get_prefs.c``) -> ``query_id, jg, jsg,
    doc_id, level, line``: jg is a judgment group (one user or information need), jsg a sub-group in it."""
    return read_table(source, TREC_PREFS)


def read_qrels_prefs(source: Source | RawFile) -> pd.DataFrame:
    """A TREC qrels file read as trec_eval's ``qrels_prefs`` (``get_qrels_prefs.c``): the second column is the
    judgment group, every line in sub-group ``0``. Columns as :func:`read_trec_prefs`."""
    frame = read_table(source, QRELS).rename(columns={"iteration": "jg", "relevance": "level"})
    frame.insert(2, "jsg", "0")
    return frame[["query_id", "jg", "jsg", "doc_id", "level", "line"]]


JUDGING_LOG = Layout(
    "judging log",
    ("mark", "query_id", "doc_id_a", "doc_id_b", "verdict"),
    note="; mark '@'; verdict ! (docA, the first listed, won), = (a tie) or ? (no usable answer)",
)
VERDICTS = {"!": 1, "=": 0, "?": -1}  # the verdict codes of judging_log_columns
UNUSABLE = -1


def is_judging_log(source: Source | RawFile) -> bool:
    """True when the first data line of ``source`` starts with the field ``@`` (Clarke's judging log)."""
    for _, line in text_lines(load(source)):
        return fields(line)[:1] == ["@"]
    return False


def judging_log_columns(source: Source | RawFile) -> Columns:
    """Clarke's judging log (``@ topic docA docB J``, one LLM judgment a line, docA shown first) as
    :class:`Columns`: ``query_id, doc_id_a, doc_id_b`` and ``verdict`` (int8: ``1`` = ``!``, docA won; ``0`` = ``=``,
    a tie; ``-1`` = ``?``, no usable answer, kept so that it is counted, never read as a tie). A line whose first
    field is not ``@`` or whose verdict is another text is an error naming it."""
    columns = read_columns(source, JUDGING_LOG)
    mark, verdict = columns.fields.pop("mark"), columns.fields.pop("verdict")
    starts = as_numpy(pc.not_equal(mark, "@"))
    fail_at(columns, starts, lambda r: f"the line starts with {mark[r].as_py()!r}", JUDGING_LOG)
    known = pa.array(list(VERDICTS))
    fail_at(
        columns,
        ~as_numpy(pc.is_in(verdict, known)),
        lambda r: f"unknown verdict {verdict[r].as_py()!r}",
        JUDGING_LOG,
    )
    codes = np.array(list(VERDICTS.values()), dtype=np.int8)[as_numpy(pc.index_in(verdict, known))]
    columns.fields["verdict"] = codes
    return columns


def judging_log_preferences(source: Source | RawFile) -> tuple[Columns, int]:
    """A judging log's judgments as :func:`preference_columns` (``preference``: ``-1`` where docA won, ``0`` a
    tie) and the number of lines without a usable answer (``?``), which are no judgment."""
    columns = judging_log_columns(source)
    verdict = columns.fields.pop("verdict")
    usable = verdict != UNUSABLE
    keep = pa.array(usable)
    fields = {name: values.filter(keep) for name, values in columns.fields.items()}
    fields["preference"] = (-verdict[usable]).astype(np.int8)
    lines = np.flatnonzero(usable) + 1 if columns.lines is None else columns.lines[usable]
    return Columns(columns.name, fields, lines, columns.raw), int((~usable).sum())


def read_judging_log(source: Source | RawFile) -> pd.DataFrame:
    """:func:`judging_log_columns` as a DataFrame: ``query_id, doc_id_a, doc_id_b, verdict, line``."""
    return judging_log_columns(source).frame()
