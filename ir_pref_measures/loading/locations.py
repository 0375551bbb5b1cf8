"""Where a string source points, decided once: a file or an ir_datasets ID, and the kind of judgments it holds.

A file's format is named or detected from its lines; :func:`judgment_file` tells the kind of judgments a source
holds, the one dispatch every reader of judgment sources follows (:mod:`~ir_pref_measures.loading.sources` reads
judgments, :mod:`~ir_pref_measures.agreement.sources` judges' votes), so that a format is added in one place.

A string is resolved by :func:`resolve`: ``irds:<id>`` is an ir_datasets ID; ``<format>:<path>`` is a file in that
format (:data:`JUDGMENT_FORMATS`; Clarke's judging log ``log`` is also detected by its ``@``, trec_eval's ``prefs``
and ``qrels_prefs`` never are); an existing path is a file; anything else is taken for an ir_datasets ID (an unknown
one names the closest known IDs). A text joining sources with ``+`` is their union (:func:`is_union`), unless a
file has that name; a glob names the files it matches (:func:`locations`).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from dataclasses import dataclass

from ir_pref_measures.choices import TREC_EVAL_FORMATS
from ir_pref_measures.errors import InputError
from ir_pref_measures.parsing import datasets as irds
from ir_pref_measures.parsing import preferences
from ir_pref_measures.parsing.files import RawFile, load

JUDGMENT_FORMATS = ("qrels", "carterette", "winner", "pairs", "log", "prefs", "qrels_prefs")
GLOB_CHARACTERS = frozenset("*?[")


@dataclass(frozen=True)
class Location:
    """A string source, resolved: a file (``path``, ``format`` if named) or an ir_datasets ID."""

    path: str | None = None
    dataset: str | None = None
    format: str | None = None

    @property
    def file(self) -> str:
        """The path of a file source (a caller that asks has ruled out an ir_datasets ID)."""
        if self.path is None:
            raise ValueError(f"{self.dataset} is an ir_datasets ID, not a file")
        return self.path


def resolve(source: str | os.PathLike, format: str | None = None) -> Location:
    """Decide what a string names: ``irds:<id>``, ``<format>:<path>``, an existing path, else an ir_datasets
    ID. ``format`` is the format of a file whose name does not say it."""
    text = os.fspath(source)
    if irds.is_dataset_id(text):
        irds.load(text)  # an unknown ID names the closest known ones
        return Location(dataset=irds.dataset_name(text))
    prefix, sep, rest = text.partition(":")
    if sep and prefix in JUDGMENT_FORMATS:
        return Location(path=rest, format=prefix)
    if os.path.lexists(text) or isinstance(source, os.PathLike):
        return Location(path=text, format=format)
    irds.load(text)  # an unknown ID: "neither an existing file nor a known ir_datasets ID", with close matches
    return Location(dataset=text)


def paths(source) -> list[str] | None:
    """The files of a path (``FORMAT:PATH`` too), a glob (sorted) or a list of paths; ``None`` for anything else (an
    ir_datasets ID, a table)."""
    if isinstance(source, os.PathLike):
        return [os.fspath(source)]
    if isinstance(source, str):
        named_format = source.partition(":")[0] in JUDGMENT_FORMATS
        return _glob(source) or ([source] if os.path.lexists(source) or named_format else None)
    if isinstance(source, Sequence) and source and all(isinstance(s, str | os.PathLike) for s in source):
        return [os.fspath(s) for s in source]
    return None


def _glob(text: str) -> list[str] | None:
    """The files a glob names (sorted), or ``None`` when ``text`` is no glob."""
    if not GLOB_CHARACTERS & set(text) or os.path.lexists(text):
        return None
    files = sorted(glob.glob(text))
    if not files:
        raise InputError(f"{text}: no file matches this pattern")
    return files


def locations(source, format: str | None = None) -> list[Location]:
    """Every file a path or a glob names (:func:`paths`), or the ir_datasets ID a string names, resolved
    (:func:`resolve`; ``format``: the format of files whose name does not say it); a list: those of each source."""
    if isinstance(source, list | tuple):
        return [location for each in source for location in locations(each, format)]
    files = paths(source)
    if files is None:  # an ir_datasets ID (an unknown one names the closest known IDs)
        return [resolve(os.fspath(source))]
    return [resolve(path, format) for path in files]


def is_union(source) -> bool:
    """``A+B``: a text joining judgment sources with ``+`` (their union), unless the whole text names a file."""
    return isinstance(source, str) and "+" in source and not os.path.lexists(source)


def file_format(location: Location, preference_format: str | None = None) -> tuple[str, str | RawFile]:
    """The format of a file of judgments (not an ir_datasets ID, not trec_eval's): the one its source names, else
    Clarke's judging log, qrels or the preference format its lines show (``preference_format`` where several fit);
    with what to read it from (its path when named, else its bytes, read once)."""
    raw: str | RawFile = location.file if location.format else load(location.file)
    if location.format == "log" or location.format is None and preferences.is_judging_log(raw):
        return "log", raw
    return location.format or preferences.detect_format(raw, preference_format), raw


@dataclass(frozen=True)
class JudgmentFile:
    """What a string judgment source holds, told once (:func:`judgment_file`): its ``kind``, ``dataset`` (an
    ir_datasets ID's qrels), a trec_eval format (``prefs``, ``qrels_prefs``: their own reader), ``log`` (Clarke's
    judging log), ``qrels``, or the preference format of a file (``carterette``, ``winner``, ``pairs``); its
    ``location`` (:func:`resolve`); and ``raw``, what to read a file of the last three kinds from (its path when its
    format is named, else its bytes, read once; ``None`` for the other kinds)."""

    kind: str
    location: Location
    raw: str | RawFile | None = None

    @property
    def read_from(self) -> str | RawFile:
        """``raw`` of a file of the kinds read from it (a caller that asks has ruled out the others)."""
        if self.raw is None:
            raise ValueError(f"a {self.kind} source is read by its own reader, not from a file's lines")
        return self.raw


def judgment_file(
    source: str | os.PathLike, format: str | None = None, preference_format: str | None = None
) -> JudgmentFile:
    """The kind of judgments the string ``source`` names (:class:`JudgmentFile`), resolved once (:func:`resolve`;
    ``format``: the format of a file whose name does not say it) and, for a file whose format is not named, read
    once to detect it (:func:`file_format`; ``preference_format``: where several preference formats fit)."""
    location = resolve(source, format)
    if location.dataset is not None:
        return JudgmentFile("dataset", location)
    if location.format in TREC_EVAL_FORMATS:
        return JudgmentFile(location.format, location)
    kind, raw = file_format(location, preference_format)
    return JudgmentFile(kind, location, raw)
