"""The runs of an experiment read one after the other: ``stream_runs`` holds a bounded number of runs."""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest

from ir_pref_measures import engine
from ir_pref_measures.errors import InputError
from ir_pref_measures.experiment.runs import read_runs, stream_runs


def write_runs(folder, count: int, queries: int = 20, docs: int = 30) -> dict[str, str]:
    """``count`` seeded TREC run files (scores with ties) in ``folder``, by name."""
    rng = np.random.default_rng(7)
    paths = {}
    for r in range(count):
        lines = [
            f"q{q} Q0 d{q}_{d} {rank} {score:.1f} r{r}"
            for q in range(queries)
            for rank, (d, score) in enumerate(
                zip(rng.permutation(docs * 2)[:docs], np.sort(rng.integers(0, 9, docs))[::-1], strict=True), 1
            )
        ]
        paths[f"r{r}"] = str(folder / f"r{r}.txt")
        (folder / f"r{r}.txt").write_text("\n".join(lines) + "\n")
    return paths


@pytest.fixture
def two_threads():
    engine.set_n_jobs(2)
    yield 2
    engine.set_n_jobs(None)


def test_the_stream_holds_at_most_two_runs_more_than_its_threads(tmp_path, two_threads):
    paths = write_runs(tmp_path, 12)
    alive: weakref.WeakSet = weakref.WeakSet()
    lock = threading.Lock()
    most = []

    def work(name, ranking):
        with lock:
            gc.collect()
            alive.add(ranking)
            most.append(len(alive))
        return ranking.query_ids[0]

    firsts = [first for _, first in stream_runs(paths, work)]
    assert firsts == ["q0"] * 12
    assert len(most) == 12
    # in flight: one per thread and one more; and the run the caller holds (here a query id only)
    assert max(most) <= two_threads + 2


def test_streamed_runs_are_the_runs_read_at_once_in_order(tmp_path, two_threads):
    paths = write_runs(tmp_path, 5)
    held = read_runs(paths)
    assert list(held) == list(paths)
    for name, ranking in stream_runs(paths, topk=3):
        assert list(ranking.query_ids) == list(held[name].query_ids)
        assert np.diff(ranking.offsets).max() == 3
        assert ranking.doc_text.to_pylist() == [
            doc for q in range(len(held[name].query_ids)) for doc in held[name].doc_text.to_pylist()[
                held[name].offsets[q] : held[name].offsets[q] + 3
            ]
        ]  # fmt: skip


def test_the_first_bad_run_in_order_is_reported(tmp_path, two_threads):
    paths = write_runs(tmp_path, 4)
    (tmp_path / "r2.txt").write_text("q1 Q0 d1\n")
    (tmp_path / "r3.txt").write_text("q1 Q0\n")
    with pytest.raises(InputError, match="r2.txt:1: 3 fields"):
        list(stream_runs(paths))


def _counting_reads(monkeypatch, barrier: threading.Barrier | None = None) -> list[int]:
    """Wrap the reading of a run so that the number of runs being read at each start is recorded (``barrier``: each
    read also waits there for another one)."""
    from ir_pref_measures.experiment import runs

    reading, lock, counts = [0], threading.Lock(), []
    read = runs.sources.ranking

    def ranking(source):
        with lock:
            reading[0] += 1
            counts.append(reading[0])
        try:
            if barrier is not None:
                barrier.wait()
            return read(source)
        finally:
            with lock:
                reading[0] -= 1

    monkeypatch.setattr(runs.sources, "ranking", ranking)
    return counts


def test_runs_worked_on_are_read_one_at_a_time(tmp_path, two_threads, monkeypatch):
    paths = write_runs(tmp_path, 8)
    counts = _counting_reads(monkeypatch)

    def work(name, ranking):
        return len(ranking.query_ids)

    assert [n for _, n in stream_runs(paths, work)] == [20] * 8
    assert counts == [1] * 8


def test_runs_read_to_be_held_are_read_on_every_thread_at_once(tmp_path, two_threads, monkeypatch):
    paths = write_runs(tmp_path, 4)
    counts = _counting_reads(monkeypatch, threading.Barrier(2, timeout=30))  # a read alone would break the barrier
    assert list(read_runs(paths)) == list(paths)
    assert max(counts) == 2
