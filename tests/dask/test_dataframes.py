"""ir_pref_measures.dask on a 2-worker LocalCluster (processes): the local path's values, bit for bit."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from conftest import data_path
from hypothesis import given, settings
from hypothesis import strategies as st

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import ir_pref_measures  # noqa: E402
from ir_pref_measures import InputError  # noqa: E402
from ir_pref_measures import compare as local_compare  # noqa: E402
from ir_pref_measures import dask as cluster  # noqa: E402
from ir_pref_measures.engine import evaluate as local_evaluate  # noqa: E402
from ir_pref_measures.loading import sources  # noqa: E402
from ir_pref_measures.measures.names import parse_measure as parse  # noqa: E402

DL19 = "msmarco-passage/trec-dl-2019/judged"
RUNS = ("ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50")  # DL 2019 runs: no scores from nothing
MEASURES = ["nDCG@10", "ppref@10", "APpref", "PGC", "Compatibility"]


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as local_cluster,
        distributed.Client(local_cluster) as dask_client,
    ):
        yield dask_client


def _run(name: str) -> str:
    return str(data_path("dl_llm_prefs_arabzadeh", "runs", f"input.{name}.txt.gz"))


def _qrels() -> str:
    return str(data_path("dl_llm_prefs_arabzadeh", "qrels.dl19-passage.txt"))


def _local(judgments, run, measures) -> pd.DataFrame:
    """The local path of the ``eval`` command, as a frame."""
    metrics = local_evaluate([parse(m) for m in measures], run, qrels=judgments.qrels(), judgments=judgments)
    return pd.DataFrame(
        {
            "query_id": [m.query_id for m in metrics],
            "measure": [str(m.measure) for m in metrics],
            "value": [m.value for m in metrics],
        }
    )


def _local_means(local: pd.DataFrame, measures) -> list[float]:
    """Means as the ``eval`` command takes them: ir_measures' aggregators, in query id order."""
    out = []
    for name in measures:
        aggregator = parse(name).aggregator()
        for value in local.loc[local["measure"] == name, "value"]:
            aggregator.add(value)
        out.append(aggregator.result())
    return out


def _assert_same(found: pd.DataFrame, local: pd.DataFrame) -> None:
    """Same rows in the same order, values bit for bit."""
    assert len(found) == len(local) > 0
    assert found["query_id"].tolist() == local["query_id"].tolist()
    assert found["measure"].tolist() == local["measure"].tolist()
    np.testing.assert_array_equal(found["value"].to_numpy(), local["value"].to_numpy())


def synthetic(n_queries: int, seed: int = 7) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Graded qrels (0-3, 3-20 docs a query) and a run (5-30 docs a query, many judged, tied scores), which
    misses a range of judged queries longer than a quarter of them."""
    rng = np.random.default_rng(seed)
    query_ids = np.array([f"q{i:05d}" for i in range(n_queries)], dtype=object)
    judged = rng.integers(3, 21, n_queries)
    q = np.repeat(np.arange(n_queries), judged)
    doc = np.concatenate([rng.permutation(40)[:k] for k in judged])
    qrels = pd.DataFrame(
        {"query_id": query_ids[q], "doc_id": [f"d{d}" for d in doc], "relevance": rng.integers(0, 4, len(q))}
    )
    retrieved = rng.integers(5, 31, n_queries)
    rq = np.repeat(np.arange(n_queries), retrieved)
    rdoc = np.concatenate([rng.permutation(40)[:k] for k in retrieved])
    run = pd.DataFrame(
        {"query_id": query_ids[rq], "doc_id": [f"d{d}" for d in rdoc], "score": rng.integers(0, 12, len(rq)) / 4}
    )
    missing = (rq >= n_queries // 2) & (rq < n_queries // 2 + n_queries // 4 + 50)
    run = run[~missing]  # judged queries missing from the run: more than a partition's worth of them
    return qrels, run.reset_index(drop=True)


def test_import_leaves_dask_alone():
    code = "import sys, ir_pref_measures; assert 'dask' not in sys.modules and 'distributed' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=data_path())


def test_input_error_pickles():
    error = InputError("bad score", path="run.txt", line_no=3, line="q1 Q0 d1 1 x tag", expected="a number")
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is InputError and str(again) == str(error)
    assert (again.path, again.line_no, again.line, again.expected) == ("run.txt", 3, error.line, "a number")


def test_dl19_files_equal_the_local_path(client):
    qrels, run = _qrels(), _run("ICT-BERT2")
    local = _local(sources.judgments(qrels, format="qrels"), sources.ranking(run), MEASURES)
    values, means = dask.compute(
        cluster.evaluate(qrels, run, MEASURES, npartitions=3),
        cluster.evaluate(qrels, run, MEASURES, npartitions=4, aggregate=True),
    )
    _assert_same(values, local)
    assert means["measure"].tolist() == MEASURES
    np.testing.assert_allclose(means["value"].to_numpy(), _local_means(local, MEASURES), rtol=0, atol=1e-12)


def test_dl19_dataset_and_preferences_equal_the_local_path(client, irds_home):
    prefs = str(data_path("dl_llm_prefs_arabzadeh", "llm_pref_judgments", "DL2019", "judge.03"))
    run = _run("p_bm25")
    judgments = ir_pref_measures.combine(sources.judgments(DL19), sources.judgments(prefs))
    local = _local(judgments, sources.ranking(run), MEASURES)
    _assert_same(cluster.evaluate([DL19, prefs], run, MEASURES, npartitions=3).compute(), local)


def test_synthetic_dask_frames_equal_the_local_path(client):
    qrels, run = synthetic(2000)
    local = _local(ir_pref_measures.Judgments.from_qrels(qrels), sources.ranking(run), MEASURES)
    lazy = {}
    for n in (3, 4):
        frames = dd.from_pandas(qrels, npartitions=n), dd.from_pandas(run, npartitions=n)
        lazy[n] = cluster.evaluate(frames[0], frames[1], MEASURES, npartitions=n)
    found = dict(zip(lazy, dask.compute(*lazy.values()), strict=True))
    for n in lazy:
        _assert_same(found[n], local)
    counts = found[4].groupby("query_id").size()
    assert len(counts) == 2000 and (counts == len(MEASURES)).all()  # the missing ones at the default, none twice
    assert (found[4].loc[found[4]["query_id"] == "q01100", "value"] == 0).all()


@settings(max_examples=6, deadline=None)
@given(npartitions=st.integers(1, 6), input_partitions=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_any_partitioning_and_row_order_give_the_local_values(client, npartitions, input_partitions, seed):
    qrels, run = synthetic(120, seed=seed)
    measures = ["nDCG@10", "ppref@10", "PGC"]
    local = _local(ir_pref_measures.Judgments.from_qrels(qrels), sources.ranking(run), measures)
    shuffled = [frame.sample(frac=1, random_state=seed) for frame in (qrels, run)]
    frames = [dd.from_pandas(frame, npartitions=input_partitions, sort=False) for frame in shuffled]
    _assert_same(cluster.evaluate(*frames, measures, npartitions=npartitions).compute(), local)


def test_compare_equals_compare(client):
    runs = {name: _run(name) for name in RUNS}
    local = local_compare(runs, _qrels(), perquery=True)
    rows, means = dask.compute(
        cluster.compare(runs, _qrels(), npartitions=3), cluster.compare(runs, _qrels(), npartitions=4, aggregate=True)
    )
    expected = local[local["query_id"] != "all"].reset_index(drop=True)
    pd.testing.assert_frame_equal(rows.reset_index(drop=True), expected, check_exact=True)
    summary = local[local["query_id"] == "all"].reset_index(drop=True)
    pd.testing.assert_frame_equal(means.reset_index(drop=True), summary, rtol=0, atol=1e-12)


def test_compare_with_a_baseline_and_a_run_missing_queries(client):
    qrels, run = synthetic(300, seed=3)
    other = run[run["query_id"] < "q00150"]  # no query of the later partitions: there, its worst case
    runs = {"a": run, "b": other, "c": run.assign(score=-run["score"])}
    local = local_compare(runs, qrels, baseline="b", perquery=True, measures=["rpp", "lexiprecision", "ndcg@10"])
    rows = cluster.compare(runs, qrels, baseline="b", measures=["rpp", "lexiprecision", "ndcg@10"], npartitions=4)
    expected = local[local["query_id"] != "all"].reset_index(drop=True)
    pd.testing.assert_frame_equal(rows.compute().reset_index(drop=True), expected, check_exact=True)


def test_experiment_on_the_cluster(client):
    runs = {name: _run(name) for name in RUNS}
    measures = ["nDCG@10", "APpref", "PGC", "rpp", "lexiprecision"]
    qrels = _qrels()
    local = ir_pref_measures.Experiment(runs, qrels, measures, perquery=True)  # the table is made from these
    found = ir_pref_measures.Experiment(runs, qrels, measures, perquery=True, client=client)
    pd.testing.assert_frame_equal(found, local, check_exact=True)


def test_a_bad_line_read_on_a_worker_is_the_local_input_error(client, tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq1 Q0 d3 3 high t\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    with pytest.raises(InputError) as local:
        sources.ranking(str(path))
    with pytest.raises(InputError) as remote:
        cluster.evaluate(str(qrels), str(path), ["nDCG@10"]).compute()
    assert str(remote.value) == str(local.value)
    assert (remote.value.path, remote.value.line_no) == (str(path), 3)


def test_a_folder_without_parquet_files_is_no_run(client, tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "runs").mkdir()
    with pytest.raises(InputError) as error:
        cluster.evaluate(str(qrels), str(tmp_path / "runs"), ["nDCG@10"]).compute()
    assert error.value.path == str(tmp_path / "runs") and "directory" in str(error.value)


def test_parquet_with_pyterrier_columns(client, tmp_path):
    run = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "label": [0, 1]})
    run.to_parquet(tmp_path / "run.parquet")
    found = cluster.evaluate(qrels, str(tmp_path / "run.parquet"), ["nDCG@10"]).compute()
    local = ir_pref_measures.engine.evaluate(
        [parse("nDCG@10")],
        run.rename(columns={"qid": "query_id", "docno": "doc_id"}),
        qrels=qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}),
    )
    assert found["value"].tolist() == [m.value for m in local]


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "{qrels}", "{run}", "nDCG@10", "APpref", "PGC", "-q"],
        ["compare", "-R", "{qrels}", "-q", "{run}", "{run2}"],
        ["experiment", "{qrels}", "{run}", "{run2}", "-m", "nDCG@10", "ppref@10", "rpp", "--baseline", "ICT-CKNRM_B50"],
    ],
)
def test_the_commands_on_a_scheduler_print_what_they_print_locally(client, capsys, argv):
    from ir_pref_measures.commands import main

    paths = {"qrels": _qrels(), "run": _run("ICT-BERT2"), "run2": _run("ICT-CKNRM_B50")}
    argv = [part.format(**paths) for part in argv]
    assert main(argv) == 0, capsys.readouterr().err
    local = capsys.readouterr().out
    assert main([*argv, "--dask", client.scheduler.address]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out == local


def test_dask_local_reports_a_bad_line_without_a_worker_traceback(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 x t\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")
    with pytest.raises(InputError) as local:
        sources.ranking(str(run))
    argv = ["-m", "ir_pref_measures", "eval", str(qrels), str(run), "nDCG@10", "--dask", "local"]
    found = subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=tmp_path)
    assert found.returncode == 2
    assert found.stderr == f"ir-pref-measures eval: {local.value}\n"  # the command's message, nothing else
    assert f"{run}:2: score 'x' is not a number" in found.stderr


def test_a_worker_killed_mid_run(client):
    qrels, run = synthetic(2000, seed=11)
    measures = ["nDCG@10", "ppref@10", "APpref"]
    local = _local(ir_pref_measures.Judgments.from_qrels(qrels), sources.ranking(run), measures)
    frames = dd.from_pandas(qrels, npartitions=4), dd.from_pandas(run, npartitions=4)
    future = client.compute(cluster.evaluate(frames[0], frames[1], measures, npartitions=16))
    deadline = time.monotonic() + 60
    victim = None
    while victim is None and time.monotonic() < deadline and not future.done():
        busy = [w for w, keys in client.processing().items() if any("_evaluate_partition" in str(k) for k in keys)]
        victim = busy[0] if busy else None
        time.sleep(0.01)
    assert victim is not None, "the evaluation finished before a worker could be killed"
    pid = client.run(os.getpid, workers=[victim])[victim]
    os.kill(pid, signal.SIGKILL)
    _assert_same(future.result(timeout=120), local)  # the last test of the module: no need to wait for a new worker
