"""ir_datasets glue: qrels and topics by dataset ID (``irds:msmarco-passage/trec-dl-2019/judged``).

The ``irds:`` prefix (PyTerrier's) is optional here; :mod:`ir_pref_measures.inputs.sources`, the only caller, decides
what a string names. Errors
are :class:`~ir_pref_measures.errors.InputError`: an unknown ID (with the closest known IDs), a dataset
without qrels or queries, and a file that is neither in the local cache nor downloadable (naming the
file ir_datasets looked for under ``IR_DATASETS_HOME`` and how to seed it). ir_datasets reads
``IR_DATASETS_HOME`` when it is first imported, so set it before.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from ir_pref_measures.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

PREFIX = "irds:"


def is_dataset_id(source) -> bool:
    """True for a string with the ``irds:`` prefix."""
    return isinstance(source, str) and source.startswith(PREFIX)


def dataset_name(dataset_id: str) -> str:
    """The ID without the ``irds:`` prefix."""
    return dataset_id[len(PREFIX) :] if dataset_id.startswith(PREFIX) else dataset_id


def load(dataset_id: str):
    """The ir_datasets dataset of ``dataset_id``; an unknown ID names the closest known ones."""
    import ir_datasets

    name = dataset_name(dataset_id)
    try:
        return ir_datasets.load(name)
    except KeyError:
        close = difflib.get_close_matches(name, list(ir_datasets.registry), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        if is_dataset_id(dataset_id):
            raise InputError(f"unknown ir_datasets ID {name!r}{hint}") from None
        raise InputError(f"{dataset_id!r} is neither an existing file nor a known ir_datasets ID{hint}") from None


def qrels(dataset_id: str) -> pd.DataFrame:
    """The dataset's graded qrels as ``query_id, doc_id, relevance``."""
    dataset = load(dataset_id)
    if not dataset.has_qrels():
        raise InputError(f"ir_datasets ID {dataset_name(dataset_id)!r} provides no qrels")
    rows = _materialise(dataset_id, "qrels", dataset.qrels_handler(), dataset.qrels_iter)
    import pandas as pd

    return pd.DataFrame(
        {
            "query_id": [str(r.query_id) for r in rows],
            "doc_id": [str(r.doc_id) for r in rows],
            "relevance": [r.relevance for r in rows],
        }
    )


def topics(dataset_id: str) -> pd.DataFrame:
    """The dataset's queries as PyTerrier topics: ``qid, query`` (the query's default text field)."""
    dataset = load(dataset_id)
    if not dataset.has_queries():
        raise InputError(f"ir_datasets ID {dataset_name(dataset_id)!r} provides no queries")
    rows = _materialise(dataset_id, "queries", dataset.queries_handler(), dataset.queries_iter)
    import pandas as pd

    return pd.DataFrame({"qid": [str(r.query_id) for r in rows], "query": [r.default_text() for r in rows]})


def _materialise(dataset_id: str, what: str, handler, iterate: Callable) -> list:
    """All items of ``iterate()``; a failed download becomes an error naming the missing cache files."""
    try:
        return list(iterate())
    except Exception as error:  # ir_datasets raises bare exceptions (RuntimeError, requests errors) offline
        import ir_datasets

        home = ir_datasets.util.home_path()
        missing = [path for path in cache_files(handler) if not os.path.exists(path)]
        looked = "; ".join(missing) if missing else f"(no file found to name; the error was: {error})"
        raise InputError(
            f"the {what} of ir_datasets ID {dataset_name(dataset_id)!r} are not in the local cache and could not "
            f"be downloaded ({type(error).__name__}). ir_datasets looked for: {looked}. "
            f"To work offline, copy the dataset's files to those paths under IR_DATASETS_HOME "
            f"(now {home}), set IR_DATASETS_HOME before ir_datasets is imported, or run once with network access"
        ) from error


def cache_files(handler) -> list[str]:
    """The local files an ir_datasets handler reads: the outermost cached file of each of its sources
    (a ``Cache`` or ``LocalDownload`` path, a ``Download``'s cache path), found by walking its attributes."""
    found: list[str] = []
    seen: set[int] = set()
    stack = [handler]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, list | tuple):
            stack.extend(item)
            continue
        attributes = getattr(item, "__dict__", None)
        if attributes is None or not type(item).__module__.startswith("ir_datasets"):
            continue
        path = attributes.get("_cache_path") or attributes.get("_path")
        if isinstance(path, str | os.PathLike) and os.path.isabs(path):
            found.append(os.fspath(path))
            continue
        stack.extend(reversed(attributes.values()))
    return found
