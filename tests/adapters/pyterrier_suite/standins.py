"""Stand-ins for what PyTerrier's Experiment tests need from Terrier (its jar cannot be downloaded offline).

Loaded as a pytest plugin (``-p tests.pyterrier_suite.standins``) by :mod:`tests.pyterrier_suite.run` when PyTerrier's
own ``tests/test_experiment_*.py`` run: Java is never started, ``pt.IndexFactory.of`` gives a placeholder,
``pt.terrier.Retriever(index, wmodel=W)`` is a Transformer returning fixed results (named ``TerrierRetr(W)`` like
the real one), and ``pt.get_dataset("vaswani")`` reads the topics and qrels of the tests' own fixture folder. With
``IPM_PT_EXPERIMENT=ours``, ``pt.Experiment`` is ``ir_pref_measures.Experiment``; the same stand-ins serve both.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import pandas as pd
import pyterrier as pt

FIXTURES = Path(os.environ.get("IPM_PT_TESTS", ".")) / "tests" / "fixtures" / "vaswani_npl"
POOL = [str(d) for d in range(1, 61)]  # unjudged documents every stand-in also retrieves
# the top documents Terrier's BM25 and DPH retrieve for the queries of test_differing_queries
KNOWN = {"chemical": ["10703", "1056"], "reactions": ["9374"]}
# tests whose expected values are Terrier's own scores: skipped for both implementations
NEED_TERRIER = {
    "test_one_row_round": "expects Terrier's MAP and nDCG values",
    "test_perquery_round": "expects Terrier's AP value",
}


class StandInIndex:
    """What ``pt.IndexFactory.of`` returns here: a placeholder the stand-in retriever accepts."""

    def __init__(self, location=None):
        self.location = location


class StandInRetriever(pt.Transformer):
    """``pt.terrier.Retriever`` without Terrier: per topic, the judged documents of the vaswani fixture and 60
    others, scored by a hash of (weighting model, qid, docno); deterministic, different per ``wmodel``."""

    def __init__(self, index=None, wmodel="DPH", num_results=1000, **kwargs):
        self.index, self.wmodel, self.num_results = index, wmodel, num_results

    def __str__(self):
        return f"TerrierRetr({self.wmodel})"

    def __repr__(self):
        return str(self)

    def __eq__(self, other):
        return isinstance(other, StandInRetriever) and (self.index, self.wmodel) == (other.index, other.wmodel)

    def __hash__(self):
        return hash((id(self.index), self.wmodel))

    def transform(self, topics: pd.DataFrame) -> pd.DataFrame:
        judged = _qrels().groupby("qid")["docno"].apply(list).to_dict()
        rows = []
        for qid, query in zip(topics["qid"], topics["query"], strict=True):
            docs = dict.fromkeys([*judged.get(str(qid), []), *POOL])
            scores = [(zlib.crc32(f"{self.wmodel}/{qid}/{d}".encode()) / 2**32, d) for d in docs]
            scores += [(2.0 - i / 10, d) for i, d in enumerate(KNOWN.get(query, []))]
            scores = list({d: (s, d) for s, d in scores}.values())
            ranked = sorted(scores, reverse=True)[: self.num_results]
            rows += [(qid, query, d, d, s, r) for r, (s, d) in enumerate(ranked)]
        return pd.DataFrame(rows, columns=["qid", "query", "docno", "docid", "score", "rank"])


class Vaswani:
    """``pt.get_dataset("vaswani")`` offline: the tests' fixture topics and qrels."""

    def get_topics(self, variant=None):
        return pt.io.read_topics(str(FIXTURES / "query-text.trec"))

    def get_qrels(self, variant=None):
        return _qrels()


def _qrels() -> pd.DataFrame:
    return pt.io.read_qrels(str(FIXTURES / "qrels"))


def _get_dataset(original):
    def get_dataset(name, *args, **kwargs):
        return Vaswani() if name == "vaswani" else original(name, *args, **kwargs)

    return get_dataset


def pytest_configure(config):
    pt.java.init = lambda *a, **k: None
    pt.java.set_log_level = lambda *a, **k: None
    pt.java.started = lambda: True
    pt.IndexFactory.of = staticmethod(lambda location, *a, **k: StandInIndex(location))
    pt.terrier.Retriever = StandInRetriever
    pt.get_dataset = pt.datasets.get_dataset = _get_dataset(pt.datasets.get_dataset)
    if os.environ.get("IPM_PT_EXPERIMENT") == "ours":
        import ir_pref_measures

        pt.Experiment = ir_pref_measures.Experiment


def pytest_collection_modifyitems(config, items):
    import pytest

    for item in items:
        if item.name in NEED_TERRIER:
            item.add_marker(pytest.mark.skip(reason=f"needs Terrier: {NEED_TERRIER[item.name]}"))
