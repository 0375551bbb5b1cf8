"""The judging commands never overwrite an input, never make a store where none was asked for, say every store
error in one line naming the file, check every option before any work and accept every documented boundary; topic
set size design is finite and statsmodels-equal from two topics; the ``all``/``random`` pair order is kept lazily
(the same questions); the API key never reaches the store.

Most cases run the command in-process (:func:`conftest.run_cli`: any exception but an ``InputError`` fails the test);
those where the exit status and the one line on standard error matter run it in a fresh process.
"""

from __future__ import annotations

import collections
import hashlib
import json
import math
import sqlite3
import subprocess
import sys
import threading
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from conftest import run_cli

from ir_pref_measures import stats as tss
from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import AllPairs, Store, database
from ir_pref_measures.judging.redact import MASK, redact, redacted
from ir_pref_measures.judging.selectors.base import all_pairs, query_rng, shown
from ir_pref_measures.judging.selectors.pairs import NUMPY_ORDER_PAIRS, LazyShuffle, PairOrder

# -- inputs --------------------------------------------------------------------------------------------------------


def _digest(path: Path) -> str | None:
    """The file's bytes as a digest (``None`` when missing): an input is unchanged when this is."""
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


@pytest.fixture
def effort(tmp_path, monkeypatch):
    """A folder with qrels, two runs, recorded judgments, texts, an unrelated SQLite file, an empty file, and two
    efforts: ``e.sqlite`` (all pairs of the qrels' candidates, five answers) and ``r.sqlite`` (pooled runs)."""
    monkeypatch.chdir(tmp_path)
    Path("qrels.txt").write_text("".join(f"q{q} 0 d{d} {(d + q) % 4}\n" for q in range(3) for d in range(8)))
    Path("a.run").write_text("".join(f"q{q} Q0 d{d} 0 {8 - d} a\n" for q in range(3) for d in range(8)))
    Path("b.run").write_text("".join(f"q{q} Q0 d{d} 0 {8 - (d * 5) % 8} b\n" for q in range(3) for d in range(8)))
    Path("prefs.txt").write_text("".join(f"q{q} d{d} d{d + 1}\n" for q in range(3) for d in range(7)))
    Path("texts.tsv").write_text("q0\tquery\n")
    Path("other_qrels.txt").write_text("".join(f"q{q} 0 d{d} 1\n" for q in range(10, 13) for d in range(8)))
    Path("other_prefs.txt").write_text("".join(f"q{q} d{d} d{d + 1}\n" for q in range(10, 13) for d in range(7)))
    with sqlite3.connect("other.sqlite") as db:
        db.execute("CREATE TABLE contacts (name TEXT)")
    Path("empty.sqlite").write_bytes(b"")
    for argv in (
        ["judge", "plan", "e.sqlite", "--selector", "all", "--qrels", "qrels.txt"],
        ["judge", "run", "e.sqlite", "--qrels", "qrels.txt", "--budget", "5"],
        ["judge", "plan", "r.sqlite", "--selector", "random", "--runs", "a.run", "b.run", "--depth", "4"],
    ):
        _, err, status = run_cli(argv)
        assert status == 0, err
    return tmp_path


def _listing(folder: Path) -> list[str]:
    """The files of ``folder`` but SQLite's own (a WAL store's ``-wal`` and ``-shm`` come and go)."""
    return sorted(p.name for p in folder.iterdir() if not p.name.endswith(("-wal", "-shm")))


FILES = ["qrels.txt", "a.run", "b.run", "prefs.txt", "texts.tsv", "other.sqlite", "empty.sqlite", "e.sqlite"]
FILES += ["r.sqlite", "other_qrels.txt", "other_prefs.txt"]
SIMULATE = ["judge", "simulate", "--runs", "a.run", "b.run", "--qrels", "qrels.txt", "--seeds", "1"]
FILES_JUDGE = ["--judge", "files", "--answers", "answers.txt"]

# (case, command line, words of the one line on stderr); each refused with status 2, no file changed or made
REFUSED = [
    ("requests onto the store", ["judge", "run", "e.sqlite", "--judge", "files", "--requests", "e.sqlite",
                                 "--answers", "answers.txt"], "is the input the store"),
    ("requests onto the store by another name", ["judge", "run", "e.sqlite", *FILES_JUDGE, "--requests",
                                                 "./sub/../e.sqlite"], "is the input the store"),
    ("requests onto the effort's qrels", ["judge", "run", "e.sqlite", *FILES_JUDGE, "--requests", "qrels.txt"],
     "--qrels of the effort"),
    ("requests onto the effort's run", ["judge", "run", "r.sqlite", *FILES_JUDGE, "--requests", "b.run"],
     "--runs of the effort"),
    ("requests onto the answers", ["judge", "run", "e.sqlite", "--judge", "files", "--requests", "prefs.txt",
                                   "--answers", "prefs.txt"], "--requests and --answers name one file"),
    ("requests onto answers not yet written", ["judge", "run", "e.sqlite", "--judge", "files", "--requests",
                                               "new.txt", "--answers", "./new.txt"], "name one file"),
    ("requests into a missing folder", ["judge", "run", "e.sqlite", *FILES_JUDGE, "--requests", "nowhere/r.txt"],
     "does not exist"),
    ("export onto the effort's qrels", ["judge", "export", "e.sqlite", "-o", "qrels.txt"], "--qrels of the effort"),
    ("export onto the effort's run", ["judge", "export", "r.sqlite", "-o", "a.run"], "--runs of the effort"),
    ("export onto the store", ["judge", "export", "e.sqlite", "-o", "e.sqlite"], "is the input the store"),
    ("simulate onto --truth", [*SIMULATE, "--truth", "prefs.txt", "-o", "prefs.txt"], "is the input --truth"),
    ("simulate onto --judgments", [*SIMULATE, "--judge", "replay", "--judgments", "prefs.txt", "-o", "prefs.txt"],
     "is the input --judgments"),
    ("simulate's plot onto a run", [*SIMULATE, "--plot", "a.run"], "cannot write a plot of this file type"),
    ("simulate's plot onto --qrels", [*SIMULATE, "--plot", "qrels.png", "-o", "qrels.txt"], "is the input --qrels"),
    ("plan onto the qrels", ["judge", "plan", "qrels.txt", "--selector", "all", "--qrels", "qrels.txt"],
     "not a SQLite file"),
    ("plan onto another program's SQLite", ["judge", "plan", "other.sqlite", "--selector", "all", "--qrels",
                                            "qrels.txt"], "a SQLite file of another program"),
    ("run on another program's SQLite", ["judge", "run", "other.sqlite", "--qrels", "qrels.txt"],
     "a SQLite file of another program"),
    ("status of another program's SQLite", ["judge", "status", "other.sqlite"], "a SQLite file of another program"),
    ("status of an empty file", ["judge", "status", "empty.sqlite"], "an empty file, not a judging store"),
    ("export of an empty file", ["judge", "export", "empty.sqlite"], "an empty file, not a judging store"),
    ("status of a missing store", ["judge", "status", "missing.sqlite"], "no such judging store"),
    ("export of a missing store", ["judge", "export", "missing.sqlite", "-o", "out.txt"], "no such judging store"),
    ("serve a missing store", ["judge", "serve", "missing.sqlite", "--assessors", "a", "--queries", "texts.tsv",
                               "--docs", "texts.tsv"], "no such judging store"),
    ("serve an empty file", ["judge", "serve", "empty.sqlite", "--assessors", "a", "--queries", "texts.tsv",
                             "--docs", "texts.tsv"], "an empty file"),
    ("another effort", ["judge", "plan", "e.sqlite", "--selector", "random", "--qrels", "qrels.txt"],
     "made with other settings"),
    # options the chosen judge or selector would ignore, or values that would crash later
    ("batch with topk", ["judge", "plan", "n.sqlite", "--selector", "topk", "--qrels", "qrels.txt", "--batch", "3"],
     "--batch is an option of"),
    ("batch with insertion", ["judge", "plan", "n.sqlite", "--selector", "insertion", "--qrels", "qrels.txt",
                              "--batch", "3"], "--batch is an option of"),
    ("a negative seed", ["judge", "plan", "n.sqlite", "--selector", "all", "--qrels", "qrels.txt", "--seed=-1"],
     "must be at least 0"),
    ("a negative judge seed", ["judge", "run", "e.sqlite", "--qrels", "qrels.txt", "--judge-seed=-1"],
     "must be at least 0"),
    ("judge seed with the files judge", ["judge", "run", "e.sqlite", *FILES_JUDGE, "--requests", "r.txt",
                                         "--judge-seed", "3"], "--judge-seed is an option of the simulated and replay"),
    ("qrels with the files judge", ["judge", "run", "e.sqlite", *FILES_JUDGE, "--requests", "r.txt", "--qrels",
                                    "qrels.txt"], "--qrels is an option of the simulated and replay"),
    ("qrels with the replay judge's coin", ["judge", "run", "e.sqlite", "--judge", "replay", "--judgments",
                                            "prefs.txt", "--qrels", "qrels.txt"], "only with --fallback qrels"),
    ("an option the simulated judge has not", ["judge", "run", "e.sqlite", "--qrels", "qrels.txt", "--option",
                                               "model=x"], "the simulated judge has no option 'model'"),
    ("a flag given as an option", ["judge", "run", "e.sqlite", "--qrels", "qrels.txt", "--option", "noise=0.1"],
     "as --noise"),
    ("the simulated judge with qrels of other queries", ["judge", "run", "e.sqlite", "--qrels", "other_qrels.txt"],
     "the simulated judge knows nothing of 3 of the 3 queries to judge (e.g. q0, q1, q2): every answer would be a tie"),
    ("the replay judge with judgments of other queries", ["judge", "run", "e.sqlite", "--judge", "replay",
                                                          "--judgments", "pairs:other_prefs.txt"],
     "the replay judge knows nothing of 3 of the 3 queries to judge (e.g. q0, q1, q2): every answer would be a coin"),
    ("a port out of range", ["judge", "serve", "e.sqlite", "--assessors", "a", "--queries", "texts.tsv", "--docs",
                             "texts.tsv", "--port", "70000"], "ports run from 1 to 65535"),
    ("prefs format read for --truth", [*SIMULATE, "--truth", "prefs.txt", "--prefs-format", "winner"],
     "winner preferences"),
    ("prefs format without --truth or replay", [*SIMULATE, "--prefs-format", "pairs"],
     "--prefs-format is an option of the replay judge"),
    ("a budget share above 1", [*SIMULATE, "--budgets", "1.5"], "must be a share of the pairs in (0, 1]"),
    ("a noise above 1", ["judge", "run", "e.sqlite", "--qrels", "qrels.txt", "--noise", "1.5"], "between 0 and 1"),
    ("an overlap above 1", ["judge", "serve", "e.sqlite", "--assessors", "a", "--queries", "texts.tsv", "--docs",
                            "texts.tsv", "--overlap", "1.01"], "between 0 and 1"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "words"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_refused_before_any_work_and_nothing_changed(effort, argv, words):
    before = {name: _digest(effort / name) for name in FILES}
    listing = _listing(effort)
    out, err, status = run_cli(argv)
    assert status == 2, (out, err)
    assert words in err and "Traceback" not in err
    assert {name: _digest(effort / name) for name in FILES} == before
    assert _listing(effort) == listing  # nothing made: no store, no output, no requests


# in a fresh process: the exit status and one line on standard error, no traceback
FRESH = [
    ["judge", "run", "e.sqlite", "--judge", "files", "--requests", "e.sqlite", "--answers", "answers.txt"],
    ["judge", "export", "e.sqlite", "-o", "qrels.txt"],
    ["judge", "status", "empty.sqlite"],
    ["judge", "serve", "missing.sqlite", "--assessors", "a", "--queries", "texts.tsv", "--docs", "texts.tsv"],
    ["judge", "run", "e.sqlite", "--qrels", "qrels.txt", "--option", "model=x"],
    ["judge", "run", "e.sqlite", *FILES_JUDGE, "--requests", "nowhere/r.txt"],
    [*SIMULATE, "--plot", "x.txt"],
]


@pytest.mark.parametrize("argv", FRESH, ids=[" ".join(a[1:3]) + " " + a[-1] for a in FRESH])
def test_one_line_and_status_2_in_a_fresh_process(effort, argv):
    done = subprocess.run([sys.executable, "-m", "ir_pref_measures", *argv], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("  expected:")]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert not (effort / "missing.sqlite").exists()


def test_a_judge_that_knows_half_of_the_queries_is_warned_of(effort):
    Path("half.txt").write_text("".join(f"q{q} 0 d{d} {d % 3}\n" for q in (0, 10, 11) for d in range(8)))
    _, err, status = run_cli(["judge", "run", "e.sqlite", "--qrels", "half.txt", "--budget", "8"])
    assert status == 0
    assert (
        "the simulated judge knows nothing of 2 of the 3 queries to judge (e.g. q1, q2): its answers there are a tie"
        in err
    )


def test_the_plot_is_checked_before_the_simulation(effort):
    """A plot of a file type matplotlib cannot write is refused before anything is simulated or written."""
    _, err, status = run_cli([*SIMULATE, "--plot", "x.txt", "-o", "table.csv"])
    assert status == 2 and "cannot write a plot" in err and not (effort / "table.csv").exists()


# -- store errors: one line naming the file ------------------------------------------------------------------------


def _damage(path: Path) -> None:
    """Overwrite the start of every page after the first: SQLite reads 'database disk image is malformed'."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = db.execute("PRAGMA page_size").fetchone()[0]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
    with open(path, "r+b") as handle:
        for page in range(1, pages):
            handle.seek(page * size + 8)
            handle.write(b"\x13" * 300)


@pytest.mark.parametrize(
    "argv",
    [
        ["judge", "status", "e.sqlite"],
        ["judge", "export", "e.sqlite"],
        ["judge", "run", "e.sqlite", "--qrels", "qrels.txt"],
        ["judge", "plan", "e.sqlite", "--selector", "all", "--qrels", "qrels.txt"],
    ],
    ids=["status", "export", "run", "plan"],
)
def test_a_damaged_store_is_one_line_naming_it_and_left_as_it_was(effort, argv):
    _damage(effort / "e.sqlite")
    before = _digest(effort / "e.sqlite")
    _, err, status = run_cli(argv)
    assert status == 2 and "e.sqlite: the judging store is damaged (database disk image is malformed)" in err
    assert len(err.strip().splitlines()) == 1 and _digest(effort / "e.sqlite") == before


def test_a_store_locked_past_the_timeout_is_one_line(effort, monkeypatch):
    monkeypatch.setattr(database, "BUSY_TIMEOUT", 0.2)
    holder = sqlite3.connect(effort / "e.sqlite", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    try:
        _, err, status = run_cli(["judge", "run", "e.sqlite", "--qrels", "qrels.txt"])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert status == 2 and "e.sqlite: the judging store stayed locked by another process for more than 0.2 s" in err


def test_a_read_only_store_is_one_line(effort, monkeypatch):
    """A store that cannot be written (here: SQLite's query_only, as root ignores file modes) is one line."""
    connect = sqlite3.connect

    def read_only(*args, **kwargs):
        db = connect(*args, **kwargs)
        if not str(args[0]).startswith("file:"):
            db.execute("PRAGMA query_only = 1")
        return db

    before = _digest(effort / "e.sqlite")
    monkeypatch.setattr(sqlite3, "connect", read_only)
    _, err, status = run_cli(["judge", "run", "e.sqlite", "--qrels", "qrels.txt"])
    monkeypatch.undo()
    assert status == 2 and "e.sqlite: the judging store cannot be written (read-only)" in err
    assert "readonly" in err and len(err.strip().splitlines()) == 1 and _digest(effort / "e.sqlite") == before


def test_a_write_refused_inside_a_run_is_one_line(effort, monkeypatch):
    """A store that turns read-only after it is opened: the runner's write is one line naming the file."""
    real = database.Database.transaction

    def refuse(self):
        self._db.execute("PRAGMA query_only = 1")
        return real(self)

    with Store(effort / "e.sqlite") as store:
        monkeypatch.setattr(database.Database, "transaction", refuse)
        with pytest.raises(InputError, match="cannot be written .read-only. .attempt to write a readonly database"):
            store.ask([], 0, "x")


def test_the_api_makes_no_store_for_a_reader(tmp_path):
    from ir_pref_measures.judging import export, status

    for path in (tmp_path / "missing.sqlite", tmp_path / "empty.sqlite"):
        if path.name.startswith("empty"):
            path.write_bytes(b"")
        for read in (status, lambda p: export(p, "log")):
            with pytest.raises(InputError):
                read(path)
        assert not path.exists() or path.stat().st_size == 0
    with sqlite3.connect(tmp_path / "other.sqlite") as db:
        db.execute("CREATE TABLE t (x)")
    with pytest.raises(InputError, match="another program"):
        Store(tmp_path / "other.sqlite")
    with sqlite3.connect(tmp_path / "other.sqlite") as db:
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["t"]


# -- boundary values accepted --------------------------------------------------------------------------------------

ACCEPTED = [
    ("noise 0, tie rate 1, position bias 1", ["judge", "run", "e.sqlite", "--qrels", "qrels.txt", "--noise", "0",
                                              "--tie-rate", "1", "--position-bias", "1", "--budget", "8"]),
    ("noise 1", ["judge", "run", "e.sqlite", "--qrels", "qrels.txt", "--noise", "1", "--budget", "8"]),
    ("simulate budget 1 noise 0", [*SIMULATE, "--budgets", "1", "--noise", "0", "--selectors", "random", "topk"]),
    ("simulate truth in a named format", [*SIMULATE, "--truth", "prefs.txt", "--prefs-format", "pairs",
                                          "--budgets", "0.5", "--selectors", "random"]),
    ("batch with all", ["judge", "plan", "n.sqlite", "--selector", "all", "--qrels", "qrels.txt", "--batch", "3"]),
    ("seed 0", ["judge", "plan", "m.sqlite", "--selector", "random", "--qrels", "qrels.txt", "--seed", "0"]),
    ("files judge alone", ["judge", "run", "e.sqlite", *FILES_JUDGE, "--requests", "questions.txt"]),
    ("replay with qrels fallback", ["judge", "run", "e.sqlite", "--judge", "replay", "--judgments", "prefs.txt",
                                    "--fallback", "qrels", "--qrels", "qrels.txt", "--budget", "8"]),
]  # fmt: skip


@pytest.mark.parametrize("argv", [c[1] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_documented_boundaries_are_accepted(effort, argv):
    _, err, status = run_cli(argv)
    assert status == 0, err


def test_the_files_judge_writes_its_requests_and_reads_none_back(effort):
    _, err, status = run_cli(["judge", "run", "e.sqlite", *FILES_JUDGE, "--requests", "questions.txt"])
    assert status == 0, err
    assert len((effort / "questions.txt").read_text().splitlines()) == 40  # 45 pairs, 5 answered
    assert not (effort / "answers.txt").exists()


@pytest.mark.parametrize("overlap", ["0", "1"])
def test_serve_takes_an_overlap_of_0_and_1(overlap):
    from ir_pref_measures.commands import parser

    serve = ["judge", "serve", "s.sqlite", "--assessors", "a", "--queries", "q", "--docs", "d"]
    args = parser("judge").parse_args([*serve, "--overlap", overlap, "--port", "65535"])
    assert args.overlap == float(overlap) and args.port == 65535


@pytest.mark.parametrize("overlap", [0.0, 1.0])
def test_the_desk_takes_an_overlap_of_0_and_1(tmp_path, overlap):
    pytest.importorskip("starlette")
    from ir_pref_measures.judging import QueryText, Texts, web

    texts = Texts({"q": QueryText("q?")}, {"a": "A", "b": "B", "c": "C"})
    with Store(tmp_path / "s.sqlite") as store:
        desk = web.open_desk(store, AllPairs({"q": ["a", "b", "c"]}, 1), ["x", "y"], texts, seed=1, overlap=overlap)
        assert desk.overlap == overlap


@pytest.mark.parametrize("lam", ["0", "1"])
def test_ppi_takes_lam_0_and_1(tmp_path, lam):
    rng = np.random.default_rng(4)
    names = np.array(["x", "y", "z"])
    files = []
    for name, k in (("labelled", 150), ("unlabelled", 600)):
        a = rng.integers(0, 3, k)
        b = (a + rng.integers(1, 3, k)) % 3
        y = rng.random(k) < np.where(a < b, 0.7, 0.3)
        f = np.where(rng.random(k) < 0.2, ~y, y)
        for who, won in (("people", y), ("llm", f)):
            path = tmp_path / f"{name}.{who}"
            path.write_text("".join(f"q{i} {names[a[i]]} {names[b[i]]} {'a' if won[i] else 'b'}\n" for i in range(k)))
            files.append(str(path))
    _, err, status = run_cli(["ppi", "--battles", files[0], files[1], files[3], "--lam", lam])
    assert status == 0, err


def test_lam_0_is_the_people_only_interval_and_lam_1_plain_ppi():
    rng = np.random.default_rng(7)
    y = rng.normal(0.5, 0.2, 40)
    yhat = y + rng.normal(0.05, 0.1, 40)
    unlabelled = rng.normal(0.55, 0.2, 400)
    people = tss.classical_mean(y)
    zero = tss.ppi_mean(y, yhat, unlabelled, lam=0)
    for got, want in ((zero.estimate, people.estimate), (zero.lower, people.lower), (zero.upper, people.upper)):
        assert np.allclose(got, want, rtol=0, atol=1e-12)
    one = tss.ppi_mean(y, yhat, unlabelled, lam=1)
    estimate = unlabelled.mean() + (y - yhat).mean()
    se = math.sqrt(unlabelled.var() / 400 + (y - yhat).var() / 40)
    z = 1.959963984540054
    assert abs(float(one.estimate[0]) - estimate) < 1e-12
    assert abs(float(one.lower[0]) - (estimate - z * se)) < 1e-12
    assert abs(float(one.upper[0]) - (estimate + z * se)) < 1e-12


# -- topic set size ------------------------------------------------------------------------------------------------


@pytest.fixture
def statsmodels_power():
    """statsmodels' ``TTestPower`` with its lower tail made finite: statsmodels 0.15 calls ``scipy.special.nctdtr``,
    which returns NaN there (df = 1, noncentrality 8), as ours did; the reference's own formula otherwise."""
    power = pytest.importorskip("statsmodels.stats.power")
    from scipy import stats

    original = power.nct_cdf

    def finite(x, df, nc):
        value = original(x, df, nc)
        return np.where(np.isfinite(value), value, stats.nct.sf(-x, df, -nc))

    power.nct_cdf = finite
    yield power
    power.nct_cdf = original


GRID = [(a, b, v) for a in (0.05, 0.01) for b in (0.2, 0.1) for v in (0.01, 0.02, 0.05)]


@pytest.mark.parametrize(("alpha", "beta", "variance"), GRID)
def test_topic_set_size_is_finite_and_statsmodels_equal_from_two_topics(statsmodels_power, alpha, beta, variance):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NaN warning, no integration warning
        for n in range(2, 11):
            found = tss.t_test_detectable(n, variance, alpha=alpha, beta=beta)
            assert math.isfinite(found) and found > 0
            effect = found / math.sqrt(2 * variance)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                power = statsmodels_power.TTestPower().power(effect_size=effect, nobs=n, alpha=alpha)
                solved = statsmodels_power.tt_solve_power(effect_size=None, nobs=n, alpha=alpha, power=1 - beta)
            assert abs(power - (1 - beta)) < 1e-9
            assert tss.t_test_power(n, found, variance, alpha) == pytest.approx(power, abs=1e-12)
            assert found == pytest.approx(solved * math.sqrt(2 * variance), rel=1e-5)  # statsmodels' xtol
            for difference, topics in ((found * (1 + 1e-7), n), (found * (1 - 1e-7), n + 1)):
                assert tss.t_test_topics(difference, variance, alpha=alpha, beta=beta) == topics
            assert math.isfinite(tss.anova_detectable(n, 3, variance, alpha=alpha, beta=beta))


def test_the_cases_of_the_report():
    assert tss.t_test_topics(10, 0.03) == 2
    assert 0.9999 < tss.t_test_power(2, 10, 0.03) <= 1
    assert math.isfinite(tss.t_test_detectable(2, 0.02)) and math.isfinite(tss.t_test_detectable(3, 0.02))
    assert math.isfinite(tss.t_test_detectable(100_000, 0.02))
    assert tss.anova_power(2, 2, 0.05, 1e-34) == 1.0 and tss.anova_topics(2, 0.05, 1e-34) == 2


@pytest.mark.parametrize("variance", ["0.02", "0.03"])
def test_topicsize_for_two_topics(variance):
    out, err, status = run_cli(["topicsize", "--variance", variance, "--topics", "2", "--format", "csv"])
    assert status == 0, err
    assert "nan" not in out.lower()


def test_identical_runs_are_told_the_truth_in_words(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {(d * q + q) % 4}\n" for q in range(6) for d in range(8)))
    for name in ("a", "c"):
        (tmp_path / f"{name}.run").write_text(
            "".join(f"q{q} Q0 d{d} 0 {8 - d} {name}\n" for q in range(6) for d in range(8))
        )
    runs = [str(tmp_path / "a.run"), str(tmp_path / "c.run")]
    for way in (["--difference", "0.05"], ["--topics", "5"]):
        _, err, status = run_cli(["topicsize", "--runs", *runs, "--qrels", str(qrels), *way])
        assert status == 2 and "differ by the same amount on every topic" in err and "10000000" not in err


# -- the all/random order, lazily ----------------------------------------------------------------------------------


def _eager(query_id, docs, seed):
    """The order as it was made before: every pair listed, permuted, then shown by a coin each."""
    rng = query_rng(seed, query_id, 0)
    pairs = all_pairs(docs)
    return shown(query_id, [pairs[i] for i in rng.permutation(len(pairs))], rng)


@pytest.mark.parametrize("docs", [0, 1, 2, 3, 9, 60, 250])
def test_the_lazy_order_is_the_eager_one(docs):
    names = [f"d{i}" for i in range(docs)][::-1]
    for seed in (0, 5):
        expected = _eager("q7", names, seed)
        order = PairOrder("q7", names, query_rng(seed, "q7", 0))
        assert len(order) == len(expected) and list(order) == expected and order == expected
        assert [order[i] for i in range(len(expected))] == expected  # asked one by one: the same coins
        assert order[2:11] == expected[2:11] and order[-3:] == expected[-3:]
        selector = AllPairs({"q7": names}, seed, batch=4)
        asked, rounds = [], 0
        while chunk := selector.next_round("q7", [[None]] * rounds):
            asked += chunk
            rounds += 1
        assert asked == expected


MEMORY = """
import resource, sys
from ir_pref_measures.judging import AllPairs
docs = [f"d{i:05d}" for i in range(int(sys.argv[1]))]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
selector = AllPairs({"q": docs}, 3, 50)
pairs = selector.next_round("q", [])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(len(pairs), (after - before) * 1024)
"""


def test_the_order_costs_four_bytes_a_pair_not_a_list_of_pairs():
    docs = 3000  # 4,498,500 pairs: 18 MB of indices; a list of pairs took ~700 MB
    done = subprocess.run([sys.executable, "-c", MEMORY, str(docs)], capture_output=True, text=True, check=True)
    asked, grown = map(int, done.stdout.split())
    pairs = docs * (docs - 1) // 2
    assert asked == 50 and grown < 4 * pairs + 16 * 2**20


@pytest.mark.parametrize("size", [1, 2, 3, 7, 100, 4096, 4097, 9000])
def test_the_lazy_shuffle_is_a_permutation_whatever_the_reading_order(size):
    values = LazyShuffle(size, np.random.default_rng(size))[np.arange(size)]
    assert sorted(values.tolist()) == list(range(size))
    backwards = LazyShuffle(size, np.random.default_rng(size))
    read = [int(backwards[np.array([i])][0]) for i in reversed(range(size))][::-1]
    assert read == values.tolist()  # the last position first: the same permutation


def test_the_lazy_shuffle_is_uniform():
    """Every one of the 24 orders of 4 values about equally often: chi-square over 24,000 shuffles."""
    rng = np.random.default_rng(11)
    counts = collections.Counter(tuple(LazyShuffle(4, rng)[np.arange(4)].tolist()) for _ in range(24_000))
    assert len(counts) == 24
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert chi2 < scipy.stats.chi2.ppf(0.999, 23)


def test_a_pool_beyond_numpy_order_is_ordered_lazily_and_costs_what_is_asked():
    docs = [f"d{i:05d}" for i in range(10_000)]
    assert len(docs) * (len(docs) - 1) // 2 > NUMPY_ORDER_PAIRS
    order = PairOrder("q", docs, query_rng(3, "q", 0))
    first = order[:5000]
    assert len({frozenset((p.first, p.second)) for p in first}) == 5000
    assert all(p.first != p.second and p.query_id == "q" for p in first)
    assert order[:5000] == PairOrder("q", docs, query_rng(3, "q", 0))[:5000]  # seeded
    assert order[:50] != PairOrder("q", docs, query_rng(4, "q", 0))[:50]
    shown_first = sum(p.first < p.second for p in first) / len(first)
    assert 0.45 < shown_first < 0.55  # the coins
    done = subprocess.run([sys.executable, "-c", MEMORY, str(len(docs))], capture_output=True, text=True, check=True)
    asked, grown = map(int, done.stdout.split())
    assert asked == 50 and grown < 16 * 2**20  # 200 MB of indices with numpy's permutation


# -- secrets -------------------------------------------------------------------------------------------------------

KEY = "sk-proj-Zx81rT2abcDEF0123456789"


def test_redact_masks_every_form_and_a_cut_piece():
    assert redact(f"Incorrect API key provided: {KEY}.", KEY) == f"Incorrect API key provided: {MASK}."
    assert KEY not in redact(json.dumps({"message": f"bad key {KEY}"}), KEY)
    assert redact(f"HTTP 400: key {KEY[:12]}", KEY) == f"HTTP 400: key {MASK}"  # cut at 200 characters
    assert redact("nothing secret", KEY) == "nothing secret" and redact("text", None) == "text"
    assert redacted({"reason": KEY, "tokens_in": 3}, KEY) == {"reason": MASK, "tokens_in": 3}


class _Refuses(BaseHTTPRequestHandler):
    """A chat endpoint that answers every request with a 400 whose body repeats the key it was sent."""

    def do_POST(self):  # noqa: N802 (the http.server name)
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        body = json.dumps({"error": {"message": f"Incorrect request for key {key}: bad model", "type": "x"}}).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_400_that_repeats_the_key_stores_no_key(effort):
    pytest.importorskip("openai")
    (effort / "queries.tsv").write_text("".join(f"q{q}\tquery {q}\n" for q in range(3)))
    (effort / "docs.tsv").write_text("".join(f"d{d}\tpassage {d}\n" for d in range(8)))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refuses)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        options = ["model=m", f"base_url={url}", f"api_key={KEY}", "queries=queries.tsv", "documents=docs.tsv"]
        out, err, status = run_cli(
            [
                "judge",
                "run",
                "e.sqlite",
                "--judge",
                "llm",
                "--budget",
                "7",
                *[x for o in options for x in ("--option", o)],
            ]
        )
    finally:
        server.shutdown()
        server.server_close()
    assert status == 0, err
    assert KEY not in out + err
    with sqlite3.connect(effort / "e.sqlite") as db:
        rows = db.execute("SELECT reason, raw FROM answers WHERE judge = 'llm'").fetchall()
    assert rows and all("HTTP 400" in reason and MASK in reason for reason, _ in rows)
    assert not any(KEY in reason or KEY in raw or KEY[:8] in reason for reason, raw in rows)
    assert KEY.encode() not in (effort / "e.sqlite").read_bytes()
    wal = effort / "e.sqlite-wal"
    assert not wal.exists() or KEY.encode() not in wal.read_bytes()
