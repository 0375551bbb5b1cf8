"""The input layer: every judgment, run and topic source is resolved, read and validated here, once.

A *source* is a string or an object:

* a string is resolved by :func:`~ir_pref_measures.loading.locations.resolve`, the one place that decides "file or
  ir_datasets ID?": ``irds:<id>`` is an ir_datasets ID; ``<format>:<path>`` is a file in that format (``qrels``,
  ``carterette``, ``winner``, ``pairs``, ``log`` (Clarke's judging log ``@ topic docA docB !|=|?``, also detected
  by its ``@``), and trec_eval's ``prefs`` and ``qrels_prefs``, never detected);
  an existing path is a file (its format detected when it is not named); anything else is taken for an
  ir_datasets ID (an unknown one names the closest known IDs);
* a :class:`~ir_pref_measures.model.judgments.Judgments` or :class:`~ir_pref_measures.model.rankings.Ranking` is
  used as it is;
* a pandas DataFrame in ir_measures' columns (``query_id, doc_id, relevance`` / ``score``) or PyTerrier's
  (``qid, docno, label``), or a preference table (``query_id, doc_id_a, doc_id_b, preference``);
* a dict ``{query_id: {doc_id: value}}``, or an iterable of namedtuples with those fields (ir_measures'
  ``Qrel`` and ``ScoredDoc``).

Files follow the rules of :mod:`ir_pref_measures.parsing.formats`; tables and dicts the same ones: ids are text
without control characters and never missing; grades and scores are finite numbers; a doc graded twice in
a query, or listed twice in a query of a run, is an error. Every mistake is an
:class:`~ir_pref_measures.errors.InputError`.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ir_pref_measures.choices import TREC_EVAL_FORMATS
from ir_pref_measures.errors import InputError, user_stacklevel
from ir_pref_measures.loading.locations import GLOB_CHARACTERS as GLOB_CHARACTERS
from ir_pref_measures.loading.locations import JUDGMENT_FORMATS as JUDGMENT_FORMATS
from ir_pref_measures.loading.locations import Location, is_union, judgment_file, resolve
from ir_pref_measures.loading.locations import file_format as file_format
from ir_pref_measures.loading.locations import locations as locations
from ir_pref_measures.loading.locations import paths as paths
from ir_pref_measures.model.ids import is_pandas
from ir_pref_measures.model.judgments import DEFAULT_GROUP, Judgments, combine
from ir_pref_measures.model.rankings import Ranking
from ir_pref_measures.parsing import datasets as irds
from ir_pref_measures.parsing import formats, preferences
from ir_pref_measures.parsing.files import RawFile, load

DEFAULT_SET = "judgments"  # the name of the judgment set when one unnamed set is given

if TYPE_CHECKING:  # pandas (and the table converters) are imported when a table is given or made
    import pandas as pd


def is_frame(source) -> bool:
    """True for a pandas DataFrame (:func:`~ir_pref_measures.model.ids.is_pandas`: pandas is not imported)."""
    return is_pandas(source, "DataFrame")


def is_records(source) -> bool:
    """True for one table given as Python objects, which a caller taking several sources (a mapping name -> source,
    a list of sources) must not split: a dict ``{query_id: {doc_id: value}}`` (dicts of values, not of sources), or
    a list of namedtuples (``Qrel``, ``ScoredDoc``, preferences)."""
    if isinstance(source, Mapping):
        inner = [value for value in source.values() if isinstance(value, Mapping)]
        return (
            len(inner) == len(source) > 0
            and any(inner)
            and not any(isinstance(v, Mapping) or is_pandas(v, "NDFrame") for d in inner for v in d.values())
        )
    if not isinstance(source, list | tuple) or not source or hasattr(source, "_fields"):
        return False
    kinds = set(map(type, source))
    if len(kinds) == 1 and hasattr(next(iter(kinds)), "_fields"):  # namedtuples of one class: the class decides
        source = source[:1]
    return all(
        (hasattr(item, "doc_id") or hasattr(item, "doc_id_a")) and not is_pandas(item, "NDFrame") for item in source
    )


# -- judgments ---------------------------------------------------------------------------------------------


def judgments(
    source,
    *,
    format: str | None = None,
    preference_format: str | None = None,
    group: str | None = None,
    repeated: str = "error",
) -> Judgments:
    """Judgments from any source (see the module docstring). ``format`` names the format of a file (else it
    is detected: a file that fits the qrels format is qrels); ``preference_format`` is the format of a file
    that is not qrels, where several preference formats fit. ``group``: the name of the judgment group the
    judgments form (default :data:`~ir_pref_measures.model.judgments.DEFAULT_GROUP`); trec_eval's ``prefs`` and
    ``qrels_prefs`` files name their groups themselves (the jg column), and a :class:`Judgments` keeps its
    groups unless it holds one (then it is renamed). ``repeated``: a doc graded twice in a query of graded qrels
    is an error, or with ``"max"`` takes the largest grade (:meth:`Judgments.from_qrels`). Several sources, as a
    list or as a string ``A+B`` (unless a file has that name), give their union (:func:`combined`), as
    ``Experiment`` and the commands take them.

    Parameters
    ----------
    source
        A path, an ir_datasets ID (``irds:<id>``), a DataFrame, a dict ``{query_id: {doc_id: grade}}``, ir_measures'
        Qrel namedtuples, a :class:`Judgments`, or a list of those (their union).
    format, preference_format : str, optional
        The format of a file; the preference format when several fit.
    group : str, optional
        The name of the judgment group.
    repeated : {"error", "max"}
        What a doc graded twice in a query means.

    Returns
    -------
    Judgments
        The judgments, encoded.
    """
    if is_union(source):
        found = joined(source, preference_format)
    elif isinstance(source, list | tuple) and source and not is_records(source):
        found = combined(*source, preference_format=preference_format)
    else:
        found = _judgments(source, format, preference_format, group, repeated)
    if group is not None and found.groups != [group]:
        found = found.renamed(group)
    return found


def _judgments(source, format, preference_format, group, repeated) -> Judgments:
    if isinstance(source, Judgments):
        return source
    if isinstance(source, str | os.PathLike):
        return read_source(source, format, preference_format, group=group, repeated=repeated)
    named = {} if group is None else {"group": group}
    graded = {**named, "repeated": repeated}
    if is_frame(source):
        if "doc_id_a" in source.columns:
            return Judgments.from_preferences(source, **named)
        return Judgments.from_qrels(source, **graded)
    if isinstance(source, Iterable) and not isinstance(source, Mapping | str | bytes):
        rows = list(source)
        if rows and hasattr(rows[0], "doc_id_a"):
            return Judgments.from_preferences(rows, **named)
        return Judgments.from_qrels(rows, **graded)
    return Judgments.from_qrels(source, **graded)


def read_source(
    source: str | os.PathLike,
    format: str | None = None,
    preference_format: str | None = None,
    *,
    group: str | None = None,
    repeated: str = "error",
) -> Judgments:
    """The judgments a string names, resolved once (:func:`resolve`): an ir_datasets ID's qrels, or a file in its
    named format (``format`` if its name does not say it), else in the format its lines show
    (``preference_format``: where several preference formats fit). ``group`` and ``repeated`` as
    :func:`judgments` takes them."""
    found = judgment_file(source, format, preference_format)
    named = {} if group is None else {"group": group}
    graded_group = DEFAULT_GROUP if group is None else group
    if (dataset := found.location.dataset) is not None:  # validated as every table is (a grade twice: ``repeated``)
        return Judgments.from_qrels(irds.qrels(dataset), group=graded_group, repeated=repeated)
    if found.kind in TREC_EVAL_FORMATS:
        if group is not None:
            raise InputError(f"{found.location.path}: a {found.kind} file names its judgment groups (its jg column)")
        from ir_pref_measures.loading.groups import read_judgments

        return Judgments.from_trec_prefs(read_judgments(found.location.file, found.kind), checked=True)
    if found.kind == "log":
        return _judging_log(found.read_from, named)
    if found.kind == "qrels":
        graded = formats.read_columns(found.read_from, formats.QRELS)
        return Judgments.from_qrels(graded, group=graded_group, repeated=repeated)
    columns = preferences.preference_columns(found.read_from, found.kind)
    return Judgments.from_preferences(columns, checked=True, **named)


def _judging_log(source, named: dict) -> Judgments:
    return Judgments.from_preferences(_judging_log_columns(source), checked=True, **named)


def _judging_log_columns(source) -> formats.Columns:
    """Clarke's judging log (``@ topic docA docB J``): ``!`` a preference for docA, ``=`` a tie; a warning counts
    the lines without a usable answer (``?``), which are no judgment."""
    columns, unusable = preferences.judging_log_preferences(source)
    if unusable:
        warnings.warn(
            f"{columns.name}: {unusable} of {len(columns) + unusable} lines have no usable answer (?): not judgments",
            stacklevel=user_stacklevel(),
        )
    return columns


def preference_rows(source: str | os.PathLike, format: str | None = None) -> pd.DataFrame:
    """A file of preference judgments named as every judgment source names one (``FORMAT:PATH`` or a path whose
    format is detected, Clarke's judging log included; ``format``: the format where detection cannot tell) as
    :func:`~ir_pref_measures.parsing.preferences.read_preferences` reads it: one row per judgment, repeated
    judgments of a pair kept."""
    found = judgment_file(source, format, format)
    if found.kind == "dataset" or found.location.format in ("qrels", *TREC_EVAL_FORMATS):
        raise InputError(f"{source}: graded or trec_eval judgments, not a file of preference judgments")
    if found.kind == "log":
        return _judging_log_columns(found.read_from).frame()
    return preferences.read_preferences(found.read_from, found.kind)


def read_recorded(source, format: str | None = None) -> dict[str, dict[tuple[str, str], list[str]]]:
    """Recorded preference judgments (a file named as every judgment source, ``FORMAT:PATH``, a judging log, or a
    table, in any preference format the package reads) as the replay judge
    (:class:`~ir_pref_measures.judging.judges.replay.ReplayJudge`) wants them: per query and unordered pair
    ``(a, b)``, ``a < b``, the outcomes in file order. Bad marks (carterette ``-2`` / ``2``) name one doc only: they
    are no pair judgment and are left out."""
    if isinstance(source, str | os.PathLike):
        frame = preference_rows(source, format)
    else:
        frame = preferences.read_preferences(source, format)
    recorded: dict[str, dict[tuple[str, str], list[str]]] = {}
    columns = (frame[c] for c in ("query_id", "doc_id_a", "doc_id_b", "preference"))
    for q, x, y, preference in zip(*columns, strict=True):
        if abs(int(preference)) == 2:
            continue
        winner = None if preference == 0 else (x if preference == -1 else y)
        a, b = sorted((str(x), str(y)))
        outcome = "tie" if winner is None else ("a" if winner == a else "b")
        recorded.setdefault(str(q), {}).setdefault((a, b), []).append(outcome)
    return recorded


def groups(sources: Mapping[str, object], *, format: str | None = None) -> Judgments:
    """One judgment set whose groups are the ``sources``, ``{group name: source}`` (e.g. one group per judge
    file): each source is read as :func:`judgments` reads it (``format``: the files' format, detected when
    unambiguous) and becomes the group of its name; the union is what the ppref family and PGC use,
    :meth:`Judgments.group` one judge's judgments, and trec_eval's ``prefs_*`` measures average over groups.

    Parameters
    ----------
    sources : Mapping[str, object]
        Group name -> a judgment source (as :func:`judgments` takes it).
    format : str, optional
        The files' format.

    Returns
    -------
    Judgments
        One judgment set with one group per source.
    """
    if isinstance(sources, str | os.PathLike) or not isinstance(sources, Mapping):
        raise InputError("give the judgment groups as a mapping {group name: source}")
    if not sources:
        raise InputError("no judgment groups given")
    parts = []
    for name, source in sources.items():
        if not isinstance(name, str) or not name or any(c.isspace() for c in name):
            raise InputError(f"a judgment group name must be a non-empty string without spaces, not {name!r}")
        parts.append(judgments(source, format=format, group=name))
    return union(parts)


def combined(*sources, preference_format: str | None = None) -> Judgments:
    """The union of the judgments of several sources (:func:`~ir_pref_measures.model.judgments.combine`);
    ``preference_format``: the format of the preference files among them, where detection cannot tell."""
    parts = [judgments(s, preference_format=preference_format) for s in sources if s is not None]
    return union(parts)


def load_combined(qrels, prefs, *, format: str | None = None) -> Judgments:
    """Judgments from graded qrels (a file, an ir_datasets ID, or a table), a preference source (``format``:
    its format, detected when unambiguous), or the union of both.

    Parameters
    ----------
    qrels
        Graded qrels: a path, an ir_datasets ID or a table; ``None`` for preferences alone.
    prefs
        A preference source (a path or a table); ``None`` for qrels alone.
    format : str, optional
        The preference file's format (``carterette``, ``winner``, ``pairs``).

    Returns
    -------
    Judgments
        The union of the two (:func:`~ir_pref_measures.model.judgments.combine`).
    """
    parts = [] if qrels is None else [judgments(qrels, format="qrels")]
    if prefs is not None:
        parts.append(judgments(prefs, format=format))
    return union(parts)


def split_name(spec: str) -> tuple[str | None, str]:
    """``NAME=SOURCE`` -> ``(NAME, SOURCE)``; a bare source (or an existing file whose name holds ``=``) ->
    ``(None, SOURCE)``."""
    name, sep, source = spec.partition("=")
    if not sep or os.path.lexists(spec) or not name:
        return None, spec
    return name, source


def grouped(specs: Iterable[str], *, preference_format: str | None = None) -> Judgments:
    """The union of ``[NAME=]SOURCE`` specs (the command line's judgments and ``--prefs``): a named source is
    the judgment group ``NAME`` (:func:`groups`), the unnamed ones together the default group; a name given
    twice is an error."""
    named: dict[str, str] = {}
    unnamed = []
    for spec in specs:
        name, source = split_name(spec)
        if name is None:
            unnamed.append(source)
        elif name in named:
            raise InputError(f"the judgment group {name!r} is named twice")
        else:
            named[name] = source
    parts = [combined(*unnamed, preference_format=preference_format)] if unnamed else []
    if named:
        parts.append(groups(named, format=preference_format))
    return union(parts)


def joined(spec: str, preference_format: str | None = None) -> Judgments:
    """The judgments of ``SOURCE[+SOURCE...]``: ``+`` joins sources into their union (:func:`combined`), unless
    the whole text names an existing file."""
    parts = spec.split("+") if is_union(spec) else [spec]
    return combined(*parts, preference_format=preference_format)


def named_judgments(specs: Sequence[str], preference_format: str | None = None) -> Judgments:
    """The union of the judgments that a command line names, each spec a path, ``FORMAT:PATH``, an ir_datasets ID
    or ``SOURCE+SOURCE...`` (:func:`joined`)."""
    return union([joined(spec, preference_format) for spec in specs])


def union(parts: Sequence[Judgments]) -> Judgments:
    """The one judgment set of ``parts``, or their union (:func:`~ir_pref_measures.model.judgments.combine`)."""
    if not parts:
        raise InputError("no judgments: give graded qrels, preferences, or both")
    return parts[0] if len(parts) == 1 else combine(*parts)


def judgment_sets(specs: Iterable[str], format: str | None = None) -> dict[str, Judgments]:
    """Named judgment sets from ``[NAME=]SOURCE[+SOURCE...]`` (the command line's ``-j``; :func:`joined`); an
    unnamed set is called :data:`DEFAULT_SET`; a name given twice is an error."""
    sets: dict[str, Judgments] = {}
    for spec in specs:
        name, _, sources = spec.rpartition("=")
        name = name or DEFAULT_SET
        if name in sets:
            raise InputError(f"the judgment set {name!r} is named twice")
        sets[name] = joined(sources, preference_format=format)
    if not sets:
        raise InputError("no judgments: give -j NAME=SOURCE (or -j SOURCE)")
    return sets


def qrels_table(source, *, repeated: str = "error") -> pd.DataFrame:
    """Graded qrels as ``query_id, doc_id, relevance`` (and ``line`` for a file), validated: from a file
    (TREC qrels), an ir_datasets ID, or a table (:func:`ir_pref_measures.model.tables.qrels`). A (query, doc)
    graded twice is an error, or with ``repeated="keep"`` left for the caller (``compare``: pref_eval's rule
    for qrels with subtopic lines, the largest grade)."""
    from ir_pref_measures.model import tables

    if isinstance(source, str | os.PathLike):
        source = resolve(source, "qrels")
    if isinstance(source, Location) and source.path is not None:  # a file: TREC qrels
        if source.format not in (None, "qrels"):
            raise InputError(f"{source.path}: graded qrels are needed here, not {source.format} preferences")
        source = load(source.path)
    if isinstance(source, RawFile):
        table = formats.read_qrels(source)
        if repeated == "error":
            tables.reject_repeated(table, source)
        return table
    if isinstance(source, Location) and source.dataset is not None:  # an ir_datasets ID's qrels: a table
        source = irds.qrels(source.dataset)
    return tables.qrels(source, repeated=repeated)


def read_grades(qrels) -> dict[str, dict[str, float]]:
    """Graded qrels (anything :func:`qrels_table` reads) as ``{query: {doc: grade}}``."""
    table = qrels_table(qrels)
    grades: dict[str, dict[str, float]] = {}
    for q, d, g in zip(table["query_id"], table["doc_id"], table["relevance"], strict=True):
        grades.setdefault(str(q), {})[str(d)] = float(g)
    return grades


# -- runs -------------------------------------------------------------------------------------------------


def ranking(source) -> Ranking:
    """A :class:`Ranking` from a run file path, or a table (:func:`ir_pref_measures.model.tables.run`).

    Parameters
    ----------
    source
        A run file path, a DataFrame (ir_measures' or PyTerrier's columns), a dict ``{query_id: {doc_id: score}}``,
        ScoredDoc namedtuples, or a :class:`Ranking` (returned as it is).

    Returns
    -------
    Ranking
        The run under the library's tie rule (score descending, then doc id descending).
    """
    if isinstance(source, Ranking):
        return source
    if isinstance(source, str | os.PathLike):
        return Ranking.from_columns(formats.read_columns(source, formats.RUN, skip=("rank",), hashed=("doc_id",)))
    from ir_pref_measures.model import tables

    return Ranking.from_frame(tables.run(source), checked=True)


# -- topics -----------------------------------------------------------------------------------------------


def topic_ids(source) -> set[str]:
    """Query ids of topics: a DataFrame (``qid`` or ``query_id``), an ir_datasets ID, or ids."""
    from ir_pref_measures.model import tables

    if isinstance(source, str):
        location = resolve(source)
        if location.dataset is None:
            raise InputError(f"{source}: topics are named by an ir_datasets ID here, not a file")
        source = irds.topics(location.dataset)
    if is_frame(source):
        frame = tables.standard_columns(source)
        if "query_id" not in frame.columns:
            raise InputError(f"the topics have no qid or query_id column (found {list(source.columns)})")
        source = frame["query_id"]
    import pandas as pd

    ids = {str(q) for q in tables.ids(pd.Series(list(source), dtype=object), "topic id")}
    if not ids:
        raise InputError("the topics are empty")
    return ids
