"""The texts a judge reads: query texts (title, and description and narrative where the source has them) and
document texts, from an ir_datasets ID (``queries_iter``, ``docs_store``), from files or from mappings.

Files: TSV, one ``id TAB text`` a line (split at the first tab; trailing white space dropped, as Arabzadeh and
Clarke's ``judge.py`` reads its questions and passages), or JSONL, one JSON object a line with the id under
``query_id`` / ``doc_id`` / ``docno`` / ``id`` and the text under ``text`` / ``title`` / ``contents`` / ``body``
(queries may add ``description`` and ``narrative``). The format is named by the extension (``.jsonl``, ``.json``,
optionally ``.gz``), else by a first data line that starts with ``{``. An id given twice with different texts is an
error naming both lines. A text that is missing is not an error here: :meth:`Texts.missing` names it, and a judge
records an ``unusable`` answer with that reason instead of asking.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ir_pref_measures.errors import InputError
from ir_pref_measures.judging.protocol import Pair
from ir_pref_measures.parsing import datasets
from ir_pref_measures.parsing.files import RawFile
from ir_pref_measures.parsing.formats import load

MISSING = "missing text"  # the start of every reason given for a missing text
ID_KEYS = ("query_id", "doc_id", "docno", "id")
TEXT_KEYS = ("text", "title", "contents", "body")
TOPIC_FIELDS = ("description", "narrative")


@dataclass(frozen=True)
class QueryText:
    """A query as a judge shows it: ``title`` (the query's text) and, where the source has them, ``description``
    and ``narrative`` (TREC topics)."""

    title: str
    description: str = ""
    narrative: str = ""


@dataclass(frozen=True)
class Texts:
    """Query and document texts by id. ``documents`` is a mapping, or a function returning ``None`` for an
    unknown id (an ir_datasets ``docs_store`` is read lazily through one)."""

    queries: Mapping[str, QueryText]
    documents: Mapping[str, str] | Callable[[str], str | None]

    def query(self, query_id: str) -> QueryText | None:
        return self.queries.get(query_id)

    def document(self, doc_id: str) -> str | None:
        if callable(self.documents):
            return self.documents(doc_id)
        return self.documents.get(doc_id)

    def missing(self, pair: Pair) -> str:
        """Why ``pair`` cannot be shown (``"missing text: query '3', document 'd7'"``), or ``""``."""
        absent = [f"query {pair.query_id!r}"] if self.query(pair.query_id) is None else []
        absent += [
            f"document {doc!r}" for doc in dict.fromkeys((pair.first, pair.second)) if self.document(doc) is None
        ]
        return f"{MISSING}: {', '.join(absent)}" if absent else ""


def load_texts(queries, documents) -> Texts:
    """:class:`Texts` from ``queries`` and ``documents``, each a file path (TSV or JSONL), an ir_datasets ID
    (``irds:`` prefix optional where no file has that name) or a mapping (query id -> text or :class:`QueryText`;
    doc id -> text)."""
    return Texts(query_texts(queries), document_texts(documents))


def query_texts(source) -> dict[str, QueryText]:
    """Query texts by id from a file, an ir_datasets ID or a mapping (see :func:`load_texts`)."""
    if isinstance(source, Mapping):
        return {str(k): v if isinstance(v, QueryText) else QueryText(str(v)) for k, v in source.items()}
    if _is_file(source):
        return {key: QueryText(*fields) for key, fields in _read_file(source, TOPIC_FIELDS).items()}
    dataset = datasets.load(source)
    if not dataset.has_queries():
        raise InputError(f"ir_datasets ID {datasets.dataset_name(source)!r} provides no queries")
    rows = datasets._materialise(source, "queries", dataset.queries_handler, dataset.queries_iter)
    return {str(row.query_id): _topic(row) for row in rows}


def document_texts(source) -> Mapping[str, str] | Callable[[str], str | None]:
    """Document texts by id from a file or a mapping, or a lookup in an ir_datasets ``docs_store`` (see
    :func:`load_texts`)."""
    if isinstance(source, Mapping):
        return {str(k): str(v) for k, v in source.items()}
    if _is_file(source):
        return {key: fields[0] for key, fields in _read_file(source, ()).items()}
    dataset = datasets.load(source)
    if not dataset.has_docs():
        raise InputError(f"ir_datasets ID {datasets.dataset_name(source)!r} provides no documents")
    store = dataset.docs_store()
    name = datasets.dataset_name(source)

    @functools.lru_cache(maxsize=1 << 16)  # a pair's texts are read to check, to ask and to write the log line
    def lookup(doc_id: str) -> str | None:
        try:
            doc = store.get(doc_id)
        except KeyError:
            return None
        except Exception as error:  # the store itself is unavailable (not downloaded, offline): not a missing text
            raise InputError(f"the documents of ir_datasets ID {name!r} cannot be read ({error})") from error
        return None if doc is None else doc.default_text()

    return lookup


def _topic(row) -> QueryText:
    """A query row of ir_datasets as a :class:`QueryText`: ``title`` (TREC topics) or the default text."""
    title = getattr(row, "title", None) or row.default_text()
    return QueryText(title, *(str(getattr(row, name, "") or "") for name in TOPIC_FIELDS))


def _is_file(source) -> bool:
    if isinstance(source, os.PathLike):
        return True
    return isinstance(source, str) and not datasets.is_dataset_id(source) and os.path.exists(source)


def _is_jsonl(path: str, first_line: str) -> bool:
    name = path.removesuffix(".gz")
    return name.endswith((".jsonl", ".json")) or (not name.endswith(".tsv") and first_line.lstrip().startswith("{"))


def _read_file(path, extra: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """``id -> (text, *extra fields)`` of a TSV or JSONL file; an id given twice with different texts is an
    error naming both lines."""
    raw = load(path)
    try:
        text = raw.data.decode("utf-8")
    except UnicodeDecodeError as error:
        raw.fail(f"not UTF-8: byte 0x{raw.data[error.start]:02x} cannot be decoded", expected="UTF-8 text")
    lines = [(no, line) for no, line in enumerate(text.split("\n"), start=1) if line.strip() and line[0] != "#"]
    if not lines:
        raise InputError("no texts in the file", path=raw.name, expected="lines of 'id TAB text' or JSON objects")
    jsonl = _is_jsonl(raw.name, lines[0][1])
    found: dict[str, tuple[str, ...]] = {}
    first_seen: dict[str, int] = {}
    for line_no, line in lines:
        key, fields = _json_line(raw, line_no, line, extra) if jsonl else _tsv_line(raw, line_no, line, extra)
        if key in found and found[key] != fields:
            raw.fail(f"id {key!r} has another text on line {first_seen[key]}", line_no=line_no)
        found.setdefault(key, fields)
        first_seen.setdefault(key, line_no)
    return found


def _tsv_line(raw, line_no: int, line: str, extra: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    key, tab, text = line.rstrip().partition("\t")
    if not tab or not key.strip() or not text.strip():
        raw.fail("not an id and a text", line_no=line_no, expected="id TAB text")
    return key.strip(), (text, *("" for _ in extra))


def _json_line(raw: RawFile, line_no: int, line: str, extra: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    expected = f"a JSON object with an id ({', '.join(ID_KEYS)}) and a text ({', '.join(TEXT_KEYS)})"
    try:
        row = json.loads(line)
    except json.JSONDecodeError as error:
        raw.fail(f"not JSON ({error.msg})", line_no=line_no, expected=expected)
    key = next((row[k] for k in ID_KEYS if isinstance(row, dict) and row.get(k) not in (None, "")), None)
    text = next((row[k] for k in TEXT_KEYS if key is not None and isinstance(row.get(k), str) and row[k]), None)
    if key is None or text is None:
        raw.fail("no id or no text", line_no=line_no, expected=expected)
    return str(key), (text, *(str(row.get(name) or "") for name in extra))
