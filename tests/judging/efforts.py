"""An effort for the LLM judge's tests: graded qrels, query and document texts, a plan made by the command line."""

from __future__ import annotations

import gzip
from pathlib import Path

from conftest import run_cli


def make_effort(folder: Path, selector: str, docs: dict[str, int]) -> tuple[str, list[str]]:
    """An effort of ``selector`` over ``docs`` graded docs per query; the texts' options of the LLM judge."""
    with open(folder / "qrels.txt", "w") as qrels, open(folder / "docs.tsv", "w") as texts:
        for q, n in docs.items():
            qrels.writelines(f"{q} 0 {q}d{d} {1 + d % 3}\n" for d in range(n))
            texts.writelines(f"{q}d{d}\tpassage {d} of {q}\n" for d in range(n))
    (folder / "queries.tsv").write_text("".join(f"{q}\tquestion {q}\n" for q in docs))
    store = str(folder / "effort.sqlite")
    _, err, status = run_cli(["judge", "plan", store, "--selector", selector, "--qrels", str(folder / "qrels.txt")])
    assert status == 0, err
    return store, [f"queries={folder / 'queries.tsv'}", f"documents={folder / 'docs.tsv'}"]


def dl2019_runs(data, folder: Path, names, queries: int | None = None) -> tuple[list[str], str]:
    """The DL 2019 runs ``names`` of the test data on its judged queries (the first ``queries`` of them in id
    order, else all), written to ``folder`` as a lab evaluates them; with the qrels' path."""
    qrels = data("dl_llm_prefs_arabzadeh", "qrels.dl19-passage.txt")
    judged = sorted({line.split()[0] for line in qrels.read_text().splitlines() if line.strip()})[:queries]
    paths = []
    for name in names:
        with gzip.open(data("dl_llm_prefs_arabzadeh", "runs", f"input.{name}.txt.gz"), "rt") as f:
            lines = [line for line in f if line.split()[0] in judged]
        path = folder / name
        path.write_text("".join(lines))
        paths.append(str(path))
    return paths, str(qrels)
