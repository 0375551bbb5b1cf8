"""Every repository path that the docs and the package's own text name exists.

A *path* here is a repository-relative name under one of the checkout's top folders (:data:`TOP`), as a reader
would type it: ``tests/measures/test_trec_prefs.py``, ``docs/``, ``benchmarks/bench_*.py`` (a wildcard must match
something). It is looked for anywhere in the text of the README, of ``docs/*.md`` and of the package's sources
(docstrings, comments and strings alike), never right after a letter, ``/`` or ``.``, so that the tail of a URL is
not taken for one of ours; a test's id after ``::`` and a line number after ``:`` are not part of it. A file of
another project is named by its file name alone.
"""

from __future__ import annotations

import re

from conftest import ROOT

TOP = ("ir_pref_measures", "adapters", "benchmarks", "docs", "tests", "tools", ".ci")
PATH = re.compile(r"(?<![\w./-])((?:" + "|".join(re.escape(top) for top in TOP) + r")/[\w./*-]*)")
SOURCES = ("README.md", "docs/*.md", "ir_pref_measures/**/*.py", "adapters/*.py")


def named_paths(text: str) -> list[str]:
    """The repository paths that ``text`` names, in order, without the sentence's closing punctuation."""
    return [match.rstrip(".,;-") for match in PATH.findall(text)]


def exists(path: str) -> bool:
    """Whether ``path`` names a file or folder of the checkout (a wildcard: at least one)."""
    return any(ROOT.glob(path.rstrip("/"))) if "*" in path else (ROOT / path).exists()


def test_a_path_is_a_name_under_a_top_folder():
    text = (
        "See `tests/measures/test_trec_prefs.py::test_x`, ``docs/``, docs/testing.md:12, benchmarks/bench_*.py. "
        "Not https://github.com/org/repo/tests/x.py, ir_pref_measures/judging (ours), nor a_tests/x.py."
    )
    assert named_paths(text) == [
        "tests/measures/test_trec_prefs.py",
        "docs/",
        "docs/testing.md",
        "benchmarks/bench_*.py",
        "ir_pref_measures/judging",
    ]
    assert [exists(path) for path in named_paths(text)] == [True] * 5
    assert not exists("tests/test_trec_prefs_measures.py") and not exists("benchmarks/none_*.py")


def test_every_path_named_in_the_docs_and_the_package_exists():
    files = sorted({path for pattern in SOURCES for path in ROOT.glob(pattern)})
    named = {
        (str(file.relative_to(ROOT)), path) for file in files for path in named_paths(file.read_text(encoding="utf-8"))
    }
    assert len(named) > 50 and ("README.md", "docs/") in named  # the pages are read
    missing = sorted(f"{file} names {path}" for file, path in named if not exists(path))
    assert not missing, "paths that do not exist:\n" + "\n".join(missing)
