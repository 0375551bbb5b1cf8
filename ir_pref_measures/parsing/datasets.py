"""ir_datasets glue: qrels and topics by dataset ID (``irds:msmarco-passage/trec-dl-2019/judged``).

The ``irds:`` prefix (PyTerrier's) is optional here; :mod:`ir_pref_measures.loading.sources`, the only caller, decides
what a string names. Errors
are :class:`~ir_pref_measures.errors.InputError`: an unknown ID (with the closest known IDs), a dataset
without qrels or queries, and a file that is neither in the local cache nor downloadable (naming the
file ir_datasets looked for under ``IR_DATASETS_HOME`` and how to seed it). ir_datasets reads
``IR_DATASETS_HOME`` when it is first imported, so set it before. That folder is checked before the import
(:func:`import_ir_datasets`): a file, a path below a file, or a folder that cannot be created or read is an error naming
the variable and the path; a read-only cache is read as it is (ir_datasets creates folders for its datasets
when imported; in a read-only cache the missing ones stay missing, which matters only to those datasets).
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import os
import pathlib
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ir_pref_measures.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

PREFIX = "irds:"
HOME = "IR_DATASETS_HOME"
NOT_WRITABLE = (errno.EROFS, errno.EACCES, errno.EPERM)


def is_dataset_id(source) -> bool:
    """True for a string with the ``irds:`` prefix."""
    return isinstance(source, str) and source.startswith(PREFIX)


def dataset_name(dataset_id: str) -> str:
    """The ID without the ``irds:`` prefix."""
    return dataset_id[len(PREFIX) :] if dataset_id.startswith(PREFIX) else dataset_id


def _home() -> tuple[pathlib.Path, str]:
    """ir_datasets' cache folder and how it was named (``IR_DATASETS_HOME=...``, or the default's)."""
    value = os.environ.get(HOME)
    if value is None:
        path = pathlib.Path.home() / ".ir_datasets"
        return path, f"the ir_datasets cache {path} ({HOME} is not set)"
    return pathlib.Path(value), f"{HOME}={value}"


def check_home() -> pathlib.Path:
    """ir_datasets' cache folder, created if missing; an :class:`InputError` naming the variable and the path
    if it is a file, lies below a file, or cannot be created or read."""
    path, named = _home()
    if os.environ.get(HOME) == "":
        raise InputError(f"{HOME} is set but empty (it names ir_datasets' cache folder)")
    if os.path.lexists(path) and not os.path.isdir(path):
        raise InputError(f"{named}: is {'a broken link' if os.path.islink(path) else 'a file'}, not a folder")
    if not os.path.isdir(path):
        below = next((p for p in path.absolute().parents if os.path.lexists(p)), None)
        if below is not None and not os.path.isdir(below):
            raise InputError(f"{named}: {below} is a file, not a folder")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(f"{named}: the folder does not exist and cannot be created ({error.strerror})") from None
    if not os.access(path, os.R_OK | os.X_OK):
        raise InputError(f"{named}: the folder cannot be read (permission denied)")
    return path


def import_ir_datasets():
    """``ir_datasets``, imported on first use after :func:`check_home`; in a read-only cache, the dataset
    folders its import would create are left out."""
    if "ir_datasets" in sys.modules:
        return sys.modules["ir_datasets"]
    path = check_home()
    with _read_only(path) if not os.access(path, os.W_OK) else contextlib.nullcontext():
        import ir_datasets
    return ir_datasets


@contextlib.contextmanager
def _read_only(path: pathlib.Path) -> Iterator[None]:
    """While ir_datasets is imported: a folder below ``path`` that cannot be created is left out (its import
    creates one per dataset up front; a dataset whose folder is missing fails when used, naming its files)."""
    original = pathlib.Path.mkdir
    root = os.path.realpath(path)

    def mkdir(self, mode=0o777, parents=False, exist_ok=False):
        try:
            original(self, mode, parents, exist_ok)
        except OSError as error:
            inside = os.path.commonpath([root, os.path.realpath(self)]) == root
            if error.errno not in (*NOT_WRITABLE, errno.ENOENT) or not inside:  # ENOENT: a parent left out
                raise

    setattr(pathlib.Path, "mkdir", mkdir)  # noqa: B010 (a method replaced while ir_datasets is imported)
    try:
        yield
    finally:
        setattr(pathlib.Path, "mkdir", original)  # noqa: B010


def load(dataset_id: str):
    """The ir_datasets dataset of ``dataset_id``; an unknown ID names the closest known ones."""
    try:
        ir_datasets = import_ir_datasets()
    except InputError as error:
        raise InputError(f"{dataset_id!r} cannot be looked up as an ir_datasets ID: {error}") from None

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
    rows = _materialise(dataset_id, "qrels", dataset.qrels_handler, dataset.qrels_iter)
    import pandas as pd

    return pd.DataFrame(
        {
            "query_id": [str(r.query_id) for r in rows],
            "doc_id": [str(r.doc_id) for r in rows],
            "relevance": [r.relevance for r in rows],
        }
    )


def topics(dataset_id: str) -> pd.DataFrame:
    """The dataset's queries as PyTerrier topics: ``qid, query`` (the query's default text field).

    Parameters
    ----------
    dataset_id : str
        An ir_datasets ID (``irds:`` in front is optional).

    Returns
    -------
    pandas.DataFrame
        ``qid, query``.
    """
    dataset = load(dataset_id)
    if not dataset.has_queries():
        raise InputError(f"ir_datasets ID {dataset_name(dataset_id)!r} provides no queries")
    rows = _materialise(dataset_id, "queries", dataset.queries_handler, dataset.queries_iter)
    import pandas as pd

    return pd.DataFrame({"qid": [str(r.query_id) for r in rows], "query": [r.default_text() for r in rows]})


def _materialise(dataset_id: str, what: str, handler: Callable, iterate: Callable) -> list:
    """All items of ``iterate()``; a failed download becomes an error naming the missing cache files (those of
    ``handler()``; a handler may create its folder, which fails in a read-only cache)."""
    try:
        handler()
        return list(iterate())
    except Exception as error:  # ir_datasets raises bare exceptions (RuntimeError, requests errors) offline
        home = import_ir_datasets().util.home_path()
        try:
            missing = [path for path in cache_files(handler()) if not os.path.exists(path)]
        except Exception:  # the handler itself failed
            missing = []
        looked = "; ".join(missing) if missing else f"(no file found to name; the error was: {error})"
        refused = _not_writable(error)
        if refused is not None:
            remedy = f"point {HOME} at a writable copy of the cache"
            if missing:
                remedy = f"ir_datasets looked for: {looked}. Copy the dataset's files to those paths, or {remedy}"
            raise InputError(
                f"the {what} of ir_datasets ID {dataset_name(dataset_id)!r} are not in the local cache, and "
                f"ir_datasets cannot write there: {HOME} ({home}) is not writable "
                f"({refused.strerror}: {refused.filename}). {remedy[0].upper()}{remedy[1:]}"
            ) from error
        raise InputError(
            f"the {what} of ir_datasets ID {dataset_name(dataset_id)!r} are not in the local cache and could not "
            f"be downloaded ({type(error).__name__}). ir_datasets looked for: {looked}. "
            f"To work offline, copy the dataset's files to those paths under IR_DATASETS_HOME "
            f"(now {home}), set IR_DATASETS_HOME before ir_datasets is imported, or run once with network access"
        ) from error


def _not_writable(error: BaseException | None) -> OSError | None:
    """The "read-only" or "permission denied" error behind ``error`` (its causes included), if any."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno in NOT_WRITABLE:
            return error
        error = error.__cause__ or error.__context__
    return None


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
