"""Run names from run files: one rule for every command and the API.

A run file is named by its file name without the folder, every ``input.`` (TREC's submission prefix), every
``.gz`` and then its last extension: ``runs/input.ICT-BERT2.txt.gz`` -> ``ICT-BERT2``. pref_eval's own rule
(:func:`pref_eval_id`: ``input.`` and ``.gz`` removed, the extension kept) is kept for the ``compare`` command,
whose output reproduces ``pref_eval.py`` byte for byte.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ir_pref_measures.errors import InputError


def pref_eval_id(path: str | os.PathLike) -> str:
    """``pref_eval``'s run id: the file name with every ``input.`` and ``.gz`` removed."""
    return os.path.basename(os.fspath(path)).replace("input.", "").replace(".gz", "")


def run_name(path: str | os.PathLike) -> str:
    """The name of a run file: :func:`pref_eval_id` without its last extension (``a.b.run`` -> ``a.b``); a name
    that is all extension (``.run``) keeps it."""
    stem, extension = os.path.splitext(pref_eval_id(path))
    return stem if stem and extension else stem + extension


def named_paths(paths: Iterable, names: Iterable[str] | None = None) -> dict[str, object]:
    """Runs by name: ``names`` in order, or each run file's :func:`run_name`. Two runs with one name, or a
    number of names other than the number of runs, are an :class:`InputError`."""
    paths = list(paths)
    chosen = [run_name(p) for p in paths] if names is None else [str(n) for n in names]
    if len(chosen) != len(paths):
        raise InputError(f"{len(chosen)} names for {len(paths)} runs")
    named: dict[str, object] = {}
    for name, path in zip(chosen, paths, strict=True):
        if not name:
            raise InputError(f"an empty run name for {_label(path)}")
        if name in named:
            raise InputError(
                f"runs {_label(named[name])} and {_label(path)} are both named {name!r}",
                expected="distinct names (give --names / names=)" if names is None else "distinct names",
            )
        named[name] = path
    return named


def _label(run) -> str:
    return repr(os.fspath(run)) if isinstance(run, str | os.PathLike) else f"a {type(run).__name__}"


def renamed_report(report: str, name: str | None, path: str | os.PathLike) -> str:
    """A drop-in's CSV report (``runid,topic,value`` lines after a header, the last line ``runid,<mean
    label>,<mean>``) with another run id: ``name``, or if it is empty the :func:`run_name` of ``path``; ``None``
    keeps the tool's own."""
    lines = report.splitlines(keepends=True)
    if name is None or len(lines) < 2:
        return report
    name = name or run_name(path)
    old = lines[-1].rsplit(",", 2)[0] + ","
    return "".join([lines[0], *(name + "," + line[len(old) :] for line in lines[1:])])
