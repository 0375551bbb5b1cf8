"""Outputs never lose data (issue 27, items 1, 2, 3 and 9; DESIGN.md "Errors and outputs"), for every command:

1. an output that is an input, by any spelling (``./``, absolute, ``a/../``, symlink, hard link, ``FORMAT:PATH``,
   ``NAME=PATH``, ``A+B``, ``.gz``), or two outputs naming one file, is refused before the work: status 2, one line
   naming both, every file byte for byte as it was;
2. a file is written whole or not at all (a temporary file beside it, renamed): a failed write (``/dev/full``,
   ``prlimit --fsize``, a failing rename) is status 2, one line naming the file and the reason, the old file intact
   with its permission bits, no temporary left;
3. standard output closed before the start is status 2 before the work; a closed pipe ends with a non-zero status
   and no traceback nor "Exception ignored"; an encoding that cannot hold the results prints nothing and names the
   character; a full disk is one message;
9. every name and id is escaped for its report format: CSV and JSON read back, markdown and HTML render to the
   names, LaTeX compiles to them (when pdflatex is installed).

The inputs are the small generated files of tests/data/inputs; commands run in-process unless standard output must
be closed, broken or ASCII (then in a subprocess).
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import fixture_path
from reliability.test_bad_input import RUNS, clean_texts

from ir_pref_measures.commands import main

NON_ASCII = "q\u00e9"  # the query id replacing 31_1 in the "u" inputs


# -- the inputs ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A folder of small inputs: CAsT 2019 qrels, winner preferences, three runs and gold preferences; DL 2019
    pairs and a run; Carterette's pair; ``compare -q``'s JSON lines; and ``u*`` copies with a non-ASCII query."""
    folder = tmp_path_factory.mktemp("inputs")
    texts = {**clean_texts(), "gold": "query winner\n31_1 run1\n31_2 tie\n31_3 run2\n"}
    for name in ("qrels", "winner", "run1", "run2", "gold"):
        texts["u" + name] = re.sub(r"^31_1(?=\s)", NON_ASCII, texts[name], flags=re.M)
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "run1gz").write_bytes(gzip.compress(texts["run1"].encode()))
    out, err, status = run_cli(["compare", "-R", str(folder / "qrels"), "-q", *(str(folder / r) for r in RUNS)])
    assert status == 0, err
    (folder / "jsonl").write_text(out)
    return folder


@pytest.fixture
def work(source, tmp_path, monkeypatch) -> Path:
    """A fresh copy of the inputs, the working directory of the test."""
    for path in source.iterdir():
        shutil.copy(path, tmp_path / path.name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def snapshot(folder: Path) -> dict[str, tuple[bytes | str, int]]:
    """Every entry of ``folder``: its bytes (a link: its target) and permission bits."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            found[str(path.relative_to(folder))] = (os.readlink(path), 0)
        elif path.is_file():
            found[str(path.relative_to(folder))] = (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return found


def temporaries(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*") if ".tmp" in p.name]


def run_cli(argv: list[str]) -> tuple[str, str, int]:
    """(stdout, stderr, status) of ``main(argv)`` in this process; any exception but an argparse exit fails."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else 2
    return out.getvalue(), err.getvalue(), status


def assert_clean_error(err: str, *names: str) -> None:
    """One line on stderr, naming each of ``names``, without a traceback."""
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    for name in names:
        assert name in err, (name, err)


# -- the commands --------------------------------------------------------------------------------------------------

EXPERIMENT = ["experiment", "qrels", "run1", "run2", "-m", "nDCG@10", "P@5"]
EXPERIMENT3 = ["experiment", "qrels", "run1", "run2", "run3", "-m", "nDCG@10", "P@5"]
META_RUNS = ["meta", "runs", "-j", "qrels", "run1", "run2", "run3", "-m", "nDCG@10", "P@5"]
META_AGREEMENT = ["meta", "agreement", "gold", "--runs", "run1", "run2", "-j", "qrels", "-m", "nDCG@10", "P@5"]
META_PR = ["meta", "pr-curve", "-j", "qrels", "--depth", "10", "run1", "run2"]
TREC_EVAL = ("trec-eval", "-q", "-R", "prefs", "{trec_prefs}", "{trec_run}")
PRINTING = {  # every command printing its results on standard output
    "demo": ["demo"],
    "eval": ["eval", "-q", "qrels", "run1", "nDCG@10", "ppref@10", "--prefs", "winner", "--prefs-format", "winner"],
    "pairwise-pref-eval": ["pairwise-pref-eval", "-q", "carterette", "crun"],
    "trec-eval": list(TREC_EVAL),
    "compare": ["compare", "-R", "qrels", "-q", "run1", "run2", "run3"],
    "aggregate": ["aggregate", "-P", "jsonl", "-q"],
    "compatibility": ["compatibility", "qrels", "run1"],
    "greedy-pgc": ["greedy-pgc", "pairs", "dlrun"],
    "rbo": ["rbo", "-q", "run1", "run2"],
    "leaderboard": ["leaderboard", "--qrels", "qrels", "run1", "run2", "run3", "--prior", "0.1"],
    "judges": ["judges", "people=winner", "nist=qrels"],
    "experiment": [*EXPERIMENT, "--perquery"],
    "meta-runs": META_RUNS,
    "meta-agreement": META_AGREEMENT,
    "meta-stability": ["meta", "stability", "--prefs", "winner", "--prefs-format", "winner", "--remove", "0.5"]
    + ["--repeats", "2", "run1", "run2", "run3", "-m", "ppref@10"],
    "meta-pr-curve": META_PR,
    "topicsize": ["topicsize", "--variance", "0.02", "--difference", "0.1"],
    "judge": ["judge", "plan", "effort.sqlite", "--selector", "all", "--qrels", "qrels"],
}
# needs ten or more queries judged by both judges, more than these inputs hold; tests/commands/test_ppi.py covers it
NOT_PRINTING_HERE = {"ppi"}


def command(argv: list[str]) -> list[str]:
    case = fixture_path("trec_eval_prefs", "generated", "case0")
    names = {"trec_prefs": str(case / "prefs.txt"), "trec_run": str(case / "run.txt")}
    return [a.format(**names) for a in argv]


def test_every_command_is_covered():
    from ir_pref_measures.commands import COMMANDS

    covered = {name.split("-")[0] if name.startswith("meta") else name for name in PRINTING}
    assert covered | NOT_PRINTING_HERE == set(COMMANDS)


# -- 1. an output is never an input ---------------------------------------------------------------------------------

# (writer, its command line with {f}: the input the output names, the input file, the output option)
CLASHES = [
    ("experiment", ["experiment", "{f}", "run1", "run2", "-m", "nDCG@10"], "qrels", "-o"),
    ("experiment", ["experiment", "qrels:{f}", "run1", "run2", "-m", "nDCG@10"], "qrels", "-o"),
    ("experiment", ["experiment", "graded={f}", "run1", "run2", "-m", "nDCG@10"], "qrels", "-o"),
    ("experiment", ["experiment", "qrels", "{f}", "run2", "-m", "nDCG@10"], "run1", "-o"),
    ("experiment", ["experiment", "qrels", "run2", "{f}", "-m", "nDCG@10"], "run1gz", "-o"),
    ("experiment", [*EXPERIMENT, "--prefs", "{f}", "--prefs-format", "winner"], "winner", "-o"),
    ("experiment", [*EXPERIMENT, "--prefs", "winner:{f}"], "winner", "-o"),
    ("experiment", [*EXPERIMENT, "--prefs", "judge={f}", "--prefs-format", "winner"], "winner", "-o"),
    ("experiment", [*EXPERIMENT, "-j", "extra={f}"], "qrels", "-o"),
    ("experiment", [*EXPERIMENT, "-j", "extra=qrels+{f}"], "winner", "-o"),
    ("experiment", [*EXPERIMENT, "-j", "extra=qrels:qrels+winner:{f}"], "winner", "-o"),
    ("meta-runs", ["meta", "runs", "-j", "qrels", "{f}", "run2", "-m", "nDCG@10", "P@5"], "run1", "--plot"),
    ("meta-runs", ["meta", "runs", "-j", "{f}", "run1", "run2", "-m", "nDCG@10", "P@5"], "qrels", "--query-plot"),
    ("meta-runs", ["meta", "runs", "-j", "all=qrels+winner:{f}", "run1", "run2", "-m", "PGC"], "winner", "--plot"),
    ("meta-agreement", ["meta", "agreement", "{f}", "--runs", "run1", "run2", "-j", "qrels"], "gold", "--plot"),
    ("meta-agreement", ["meta", "agreement", "gold", "--runs", "{f}", "run2", "-j", "qrels"], "run1", "--plot"),
    ("meta-pr-curve", ["meta", "pr-curve", "-j", "g={f}", "run1", "run2"], "qrels", "--plot"),
    ("meta-pr-curve", ["meta", "pr-curve", "-j", "qrels", "run1", "{f}"], "run2", "--plot"),
]
SPELLINGS = ("same", "dot", "absolute", "dotdot", "symlink", "hardlink", "linked-folder")


def spelled(folder: Path, name: str, spelling: str, suffix: str) -> str:
    """Another name of ``folder/name`` (made in ``folder`` when it needs a link)."""
    if spelling == "same":
        return name
    if spelling == "dot":
        return "./" + name
    if spelling == "absolute":
        return str(folder / name)
    if spelling == "dotdot":
        (folder / "sub").mkdir(exist_ok=True)
        return f"sub/../{name}"
    if spelling == "symlink":
        os.symlink(name, folder / f"link{suffix}")
        return f"link{suffix}"
    if spelling == "hardlink":
        os.link(folder / name, folder / f"hard{suffix}")
        return f"hard{suffix}"
    os.symlink(folder, folder / "here")
    return f"here/{name}"


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize(
    ("writer", "argv", "slot", "option"),
    CLASHES,
    ids=[f"{writer}{option}-{next(a for a in argv if '{f}' in a)}" for writer, argv, _, option in CLASHES],
)
def test_an_output_that_is_an_input_is_refused(work, writer, argv, slot, option, spelling):
    suffix = ".csv" if option == "-o" else ".png"
    name = slot + suffix
    os.rename(slot, name)  # the suffix a plot needs
    output = spelled(work, name, spelling, suffix)
    before = snapshot(work)
    out, err, status = run_cli([a.format(f=name) for a in argv] + [option, output])
    assert status == 2 and out == ""
    assert_clean_error(err, output, name, "is the input")
    assert snapshot(work) == before and not temporaries(work)


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("exists", [False, True], ids=["new", "old"])
def test_two_outputs_naming_one_file_are_refused(work, spelling, exists):
    if exists or spelling in ("hardlink",):
        (work / "a.png").write_bytes(b"old plot")
    second = spelled(work, "a.png", spelling, ".png")
    before = snapshot(work)
    out, err, status = run_cli([*META_RUNS, "--plot", "a.png", "--query-plot", second])
    assert status == 2 and out == ""
    assert_clean_error(err, "--plot a.png", f"--query-plot {second}", "name one file")
    assert snapshot(work) == before


def test_names_alike_are_not_clashes(work):
    """A judgment set named like the output, an input's name inside the output's: both written."""
    (work / "old.csv").write_text("old\n")
    expected, _, _ = run_cli([*EXPERIMENT, "-j", "old.csv=qrels", "--format", "csv"])
    out, err, status = run_cli([*EXPERIMENT, "-j", "old.csv=qrels", "--format", "csv", "-o", "old.csv"])
    assert (out, err, status) == ("", "", 0)
    assert (work / "old.csv").read_text() == expected
    expected, _, _ = run_cli([*EXPERIMENT, "--format", "csv"])
    assert run_cli([*EXPERIMENT, "--format", "csv", "-o", "qrels.run1"]) == ("", "", 0)
    assert (work / "qrels.run1").read_text() == expected


# -- 2. files are written whole or not at all -----------------------------------------------------------------------


def test_an_output_file_replaces_the_old_one_with_its_permissions(work):
    expected, _, _ = run_cli([*EXPERIMENT, "--format", "csv"])
    (work / "out.csv").write_text("old\n")
    os.chmod(work / "out.csv", 0o640)
    os.symlink("out.csv", work / "link.csv")
    assert run_cli([*EXPERIMENT, "--format", "csv", "-o", "link.csv"]) == ("", "", 0)
    assert (work / "out.csv").read_text() == expected and os.path.islink(work / "link.csv")
    assert stat.S_IMODE((work / "out.csv").stat().st_mode) == 0o640
    assert run_cli([*EXPERIMENT, "--format", "csv", "-o", "new.csv"]) == ("", "", 0)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((work / "new.csv").stat().st_mode) == 0o666 & ~umask
    assert not temporaries(work)


@pytest.mark.parametrize("output", ["-", "/dev/stdout"])
def test_dash_and_dev_stdout_are_standard_output(work, output):
    expected, _, _ = run_cli([*EXPERIMENT, "--format", "csv"])
    assert run_cli([*EXPERIMENT, "--format", "csv", "-o", output]) == (expected, "", 0)
    assert not (work / "-").exists()


@pytest.mark.parametrize("failing", ["replace", "fsync", "write"])
def test_a_failed_write_keeps_the_old_file(work, monkeypatch, failing):
    from ir_pref_measures.commands import output

    (work / "out.csv").write_text("old\n")

    def fail(*args, **kwargs):
        raise OSError(errno.EIO, "Input/output error")

    if failing == "write":
        real_open = open

        class Broken(io.BufferedWriter):
            def write(self, data):
                super().write(data[:10])
                super().flush()
                fail()

        def opener(path, mode="r", *args, **kwargs):
            if mode == "wb" and ".tmp" in os.fspath(path):
                return Broken(real_open(path, "wb", buffering=0))
            return real_open(path, mode, *args, **kwargs)

        monkeypatch.setattr("builtins.open", opener)
    else:
        monkeypatch.setattr(output.os, failing, fail)
    out, err, status = run_cli([*EXPERIMENT, "--format", "csv", "-o", "out.csv"])
    monkeypatch.undo()
    assert status == 2 and out == ""
    assert_clean_error(err, "out.csv", "Input/output error", "left as it was")
    assert (work / "out.csv").read_text() == "old\n" and not temporaries(work)


def test_a_failed_plot_keeps_the_old_plot(work, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    (work / "a.png").write_bytes(b"old plot")

    def full(self, path, **kwargs):
        Path(path).write_bytes(b"\x89PNG half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", full)
    out, err, status = run_cli([*META_PR, "--plot", "a.png"])
    assert status == 2 and out == ""
    assert_clean_error(err, "a.png", "No space left on device")
    assert (work / "a.png").read_bytes() == b"old plot" and not temporaries(work)


def test_dev_full(work):
    out, err, status = run_cli([*EXPERIMENT, "-o", "/dev/full"])
    assert status == 2 and out == ""
    assert_clean_error(err, "/dev/full", "No space left on device")


def test_a_fifo_is_written_in_place(work):
    os.mkfifo(work / "fifo")
    reader = os.open(work / "fifo", os.O_RDONLY | os.O_NONBLOCK)  # a reader, so that opening it to write goes on
    try:
        expected, _, _ = run_cli([*EXPERIMENT, "--format", "csv"])
        assert run_cli([*EXPERIMENT, "--format", "csv", "-o", "fifo"]) == ("", "", 0)
        assert os.read(reader, 1 << 16).decode() == expected
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(work / "fifo").st_mode)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_a_folder_without_write_permission_is_refused_before_the_work(work):
    (work / "ro").mkdir()
    (work / "ro" / "out.csv").write_text("old\n")
    os.chmod(work / "ro", 0o555)
    try:
        out, err, status = run_cli([*EXPERIMENT, "-o", "ro/out.csv"])
    finally:
        os.chmod(work / "ro", 0o755)
    assert status == 2 and out == ""
    assert_clean_error(err, "ro/out.csv")
    assert (work / "ro" / "out.csv").read_text() == "old\n"


# -- subprocesses: a real file size limit, closed, broken and ASCII standard output -----------------------------------


def cli(
    argv: list[str], *, stdout=subprocess.PIPE, stderr=subprocess.PIPE, prefix=(), env=None, **kwargs
) -> subprocess.CompletedProcess:
    """The command in a subprocess (``prefix``: e.g. prlimit), stdout and stderr captured."""
    environment = os.environ | {"PYTHONIOENCODING": "utf-8"} | (env or {})
    return subprocess.run(
        [*prefix, sys.executable, "-m", "ir_pref_measures", *command(argv)],
        stdout=stdout,
        stderr=stderr,
        env=environment,
        timeout=300,
        **kwargs,
    )


def stderr_of(done: subprocess.CompletedProcess) -> str:
    err = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "Exception ignored" not in err, err
    return err


PRLIMIT = shutil.which("prlimit")
BUFFERING = {"buffered": {"PYTHONUNBUFFERED": ""}, "unbuffered": {"PYTHONUNBUFFERED": "1"}}  # Python -u or not


@pytest.mark.skipif(PRLIMIT is None, reason="prlimit (util-linux) is not installed")
@pytest.mark.parametrize("kind", ["csv", "png", "stdout", "stdout-buffered"])
def test_a_file_size_limit_keeps_the_old_file(work, kind):
    """``prlimit --fsize``: Python ignores SIGXFSZ, so the write fails with EFBIG ("File too large")."""
    if kind == "png":
        pytest.importorskip("matplotlib")
    to_stdout = kind.startswith("stdout")
    old = {"csv": "out.csv", "png": "out.png"}.get(kind, "stdout.txt")
    argv = {
        "csv": [*EXPERIMENT3, "--perquery", "--format", "csv", "-o", old],
        "png": [*META_PR, "--plot", old],
    }.get(kind, [*EXPERIMENT3, "--perquery"])
    prefix = (PRLIMIT, "--fsize=2000" if kind == "png" else "--fsize=200")
    env = BUFFERING["buffered" if kind == "stdout-buffered" else "unbuffered"]
    if to_stdout:
        with open(work / old, "w") as stdout:
            done = cli(argv, stdout=stdout, prefix=prefix, env=env)
    else:
        (work / old).write_text("old\n")
        done = cli(argv, prefix=prefix, env=env)
        assert (work / old).read_text() == "old\n" and done.stdout == b""
    assert done.returncode == 2
    err = stderr_of(done)
    assert "File too large" in err and err.count("\n") == 1, err
    assert not temporaries(work)


def _closing_stdout():
    os.close(1)


@pytest.mark.parametrize("name", PRINTING)
def test_closed_stdout_is_an_error_before_the_work(work, name):
    done = cli(PRINTING[name], stdout=None, preexec_fn=_closing_stdout)
    assert done.returncode == 2
    err = stderr_of(done)
    assert err.endswith("standard output is closed: nowhere to print the results\n") and err.count("\n") == 1


def test_closed_stdout_with_an_output_file(work):
    expected, _, _ = run_cli([*EXPERIMENT, "--format", "csv"])
    done = cli([*EXPERIMENT, "--format", "csv", "-o", "out.csv"], stdout=None, preexec_fn=_closing_stdout)
    assert done.returncode == 0 and stderr_of(done) == ""
    assert (work / "out.csv").read_text() == expected
    done = cli([*EXPERIMENT, "-o", "-"], stdout=None, preexec_fn=_closing_stdout)
    assert done.returncode == 2 and "standard output is closed" in stderr_of(done)


def test_closed_stderr_keeps_warnings_out_of_the_results(work):
    """A DepthWarning (runs of different depths) printed to a closed stderr must not land in the results."""
    lines = (work / "run2").read_text().splitlines()
    (work / "short").write_text("".join(f"{line}\n" for line in lines if int(line.split()[3]) <= 5))
    argv = ["experiment", "qrels", "run1", "short", "-m", "nDCG@10"]
    expected, warning, _ = run_cli(argv)
    assert "warning:" in warning
    done = cli(argv, stderr=None, preexec_fn=lambda: os.close(2))
    assert done.returncode == 0 and done.stdout.decode() == expected


def test_descriptor_names_write_the_open_descriptor(work):
    """``-o /dev/stderr`` and ``-o /dev/fd/N`` write the descriptor the shell opened (appending where it appends),
    never reopen it (which would empty the file behind it); ``/dev/stdin`` is refused."""
    expected, _, _ = run_cli([*EXPERIMENT, "--format", "csv"])
    qrels = (work / "qrels").read_bytes()
    (work / "err.txt").write_text("old\n")
    (work / "fd.txt").write_text("old\n")
    with open(work / "err.txt", "a") as err, open(work / "fd.txt", "a") as extra:
        done = cli([*EXPERIMENT, "--format", "csv", "-o", "/dev/stderr"], stderr=err)
        assert done.returncode == 0
        path = f"/dev/fd/{extra.fileno()}"
        done = cli([*EXPERIMENT, "--format", "csv", "-o", path], pass_fds=[extra.fileno()])
        assert done.returncode == 0 and stderr_of(done) == ""
    assert (work / "err.txt").read_text() == "old\n" + expected
    assert (work / "fd.txt").read_text() == "old\n" + expected
    with open(work / "qrels") as stdin:
        done = cli([*EXPERIMENT, "-o", "/dev/stdin"], stdin=stdin)
    assert done.returncode == 2 and "/dev/stdin: standard input is not an output" in stderr_of(done)
    assert (work / "qrels").read_bytes() == qrels


@pytest.mark.parametrize(("output", "message"), [("", "an empty file name"), ("/dev/fd/97", "Bad file descriptor")])
def test_odd_output_names(work, output, message):
    out, err, status = run_cli([*EXPERIMENT, "-o", output])
    assert status == 2 and out == ""
    assert_clean_error(err, message)


@pytest.mark.parametrize("name", ["eval", "compare"])
def test_read_only_stdout_is_an_error_before_the_work(work, name):
    with open(os.devnull) as read_only:
        done = cli(PRINTING[name], stdout=read_only)
    assert done.returncode == 2 and "standard output is open for reading only" in stderr_of(done)


@pytest.mark.parametrize("buffering", BUFFERING)
@pytest.mark.parametrize("name", [*PRINTING, "help", "version"])
def test_a_closed_pipe_ends_quietly_with_a_failure(work, name, buffering):
    reading, writing = os.pipe()
    os.close(reading)  # no reader: the first write is EPIPE
    argv = {"help": ["experiment", "--help"], "version": ["--version"]}.get(name) or PRINTING[name]
    try:
        done = cli(argv, stdout=writing, env=BUFFERING[buffering])
    finally:
        os.close(writing)
    assert len([line for line in stderr_of(done).splitlines() if ": warning: " not in line]) <= 1
    if name in ("help", "version") and buffering == "unbuffered":
        assert done.returncode in (0, 1)  # argparse drops the error of its unbuffered write
    else:
        assert done.returncode == 1


@pytest.mark.parametrize("buffering", BUFFERING)
def test_a_pipe_closed_in_the_middle_of_a_long_output(work, buffering):
    """``... | head -c 100``: 100 kB of results, the reader gone after the first bytes."""
    queries = [f"q{k}" for k in range(2500)]
    (work / "big_qrels").write_text("".join(f"{q} 0 d1 1\n{q} 0 d2 0\n" for q in queries))
    (work / "big_run").write_text("".join(f"{q} Q0 d{r} {r} {3 - r} r\n" for q in queries for r in (1, 2)))
    process = subprocess.Popen(
        [sys.executable, "-m", "ir_pref_measures", "eval", "-q", "big_qrels", "big_run", "nDCG@10", "P@1", "RR"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ | BUFFERING[buffering],
    )
    assert len(process.stdout.read(100)) == 100
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=300) == 1
    assert "Traceback" not in err and "Exception ignored" not in err and err == ""


@pytest.mark.parametrize("name", ["eval", "compare", "aggregate", "trec-eval", "experiment", "meta-pr-curve"])
def test_a_full_disk_on_stdout(work, name):
    with open("/dev/full", "w") as full:
        done = cli(PRINTING[name], stdout=full)
    assert done.returncode == 2
    err = stderr_of(done)
    assert err.endswith("standard output: cannot write the results (No space left on device)\n"), err


UNICODE = {  # commands on the inputs with the query "qé"
    "eval": ["eval", "-q", "uqrels", "urun1", "nDCG@10"],
    "experiment": ["experiment", "uqrels", "urun1", "urun2", "-m", "nDCG@10", "--perquery"],
    "experiment-csv": ["experiment", "uqrels", "urun1", "urun2", "-m", "nDCG@10", "--perquery", "--format", "csv"],
    "compare": ["compare", "-R", "uqrels", "-q", "urun1", "urun2"],
    "compatibility": ["compatibility", "uqrels", "urun1"],
    "meta-agreement": ["meta", "agreement", "ugold", "--runs", "urun1", "urun2", "-j", "uqrels", "-m", "nDCG@10"]
    + ["--gold-labels", "run1", "tie", "run2"],
}


@pytest.mark.parametrize("name", UNICODE)
def test_an_encoding_that_cannot_hold_an_id_prints_nothing(work, name):
    done = cli(UNICODE[name], env={"PYTHONIOENCODING": "ascii"})
    err = stderr_of(done)
    if name in ("compare", "meta-agreement"):  # JSON escapes the id; agreement shows none
        assert done.returncode == 0 and err == "" and done.stdout.decode("ascii")
        return
    assert done.returncode == 2 and done.stdout == b""
    assert "U+00E9" in err and NON_ASCII.encode("ascii", "backslashreplace").decode() in err
    assert "PYTHONIOENCODING=utf-8" in err and err.count("\n") == 1


def test_an_ascii_stdout_does_not_change_an_output_file(work):
    done = cli([*UNICODE["experiment-csv"], "-o", "out.csv"], env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0 and stderr_of(done) == ""
    assert NON_ASCII in (work / "out.csv").read_text(encoding="utf-8")


# -- 9. every name escaped for its format ---------------------------------------------------------------------------

NASTY = ["[2pt]x", "*star", "a|b", "new\nline", "<b>&\"'", "50%_$#{}~^\\", " pad  ", "a--b `q'", "\u00e9|\u00fc"]
ODD_MEASURE = "P@5 [50%_$#{}~^\\|*]"


def nasty_table() -> pd.DataFrame:
    """An Experiment table with nasty run names, a nasty measure (a judgment set's name) and a baseline."""
    n = len(NASTY)
    values = np.linspace(0.1, 0.9, n)
    table = pd.DataFrame({"name": NASTY, "nDCG@10": values, ODD_MEASURE: values[::-1]})
    for measure in ("nDCG@10", ODD_MEASURE):
        table[f"{measure} +"] = [np.nan if k == 1 else float(k) for k in range(n)]
        table[f"{measure} -"] = [np.nan if k == 1 else 1.0 for k in range(n)]
        table[f"{measure} p-value"] = [np.nan if k == 1 else 0.01 for k in range(n)]
    return table


class Cells(HTMLParser):
    """The text of every th/td and caption, rows of cells; ``<br>`` read as a line break."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows, self.caption, self.cell = [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th", "caption"):
            self.cell = ""
        elif tag == "br" and self.cell is not None:
            self.cell += "\n"

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.rows[-1].append(self.cell)
            self.cell = None
        elif tag == "caption":
            self.caption, self.cell = self.cell, None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def cells_of(html: str) -> Cells:
    parser = Cells()
    parser.feed(html)
    return parser


def test_csv_and_json_read_back_every_name():
    from ir_pref_measures.experiment import render

    table = nasty_table()
    back = pd.read_csv(io.StringIO(render(table, "csv")), keep_default_na=False, dtype=str)
    assert list(back.columns) == list(table.columns) and list(back["name"]) == NASTY
    assert [row["name"] for row in json.loads(render(table, "json"))] == NASTY


def _markdown_cells(line: str) -> list[str]:
    """A GFM table row's cells, read as GFM reads them: a backslash escapes the next character, an unescaped ``|``
    ends a cell, ``<br>`` is a line break, ``&#32;`` a space, and one space pads each side."""
    assert line.startswith("| ") and line.endswith(" |"), line
    cells, cell, k = [], "", 1
    while k < len(line) - 1:
        if line[k] == "\\":
            cell, k = cell + line[k + 1], k + 2
        elif line[k] == "|":
            cells, cell, k = [*cells, cell], "", k + 1
        elif line.startswith(("<br>", "&#32;"), k):
            step = 4 if line.startswith("<br>", k) else 5
            cell, k = cell + ("\n" if step == 4 else " "), k + step
        else:
            cell, k = cell + line[k], k + 1
    return [c[1:-1] for c in [*cells, cell]]


def test_markdown_keeps_one_line_and_one_cell_per_name():
    from ir_pref_measures.experiment import render
    from ir_pref_measures.experiment.render import measure_columns

    table = nasty_table()
    blocks = render(table, "markdown").split("\n\n")  # the values, then a table of statistics per measure
    assert len(blocks) == 1 + len(measure_columns(table))
    lines = blocks[0].splitlines()
    assert _markdown_cells(lines[0]) == ["name", *measure_columns(table)]
    for block in blocks:
        lines = block.splitlines()
        assert len(lines) == len(table) + 2  # one line per row
        assert [_markdown_cells(line)[0] for line in lines[2:]] == NASTY
        assert all(len(_markdown_cells(line)) == len(_markdown_cells(lines[0])) for line in lines[2:])


def test_markdown_renders_every_name():
    markdown_it = pytest.importorskip("markdown_it")
    from ir_pref_measures.experiment import render
    from ir_pref_measures.experiment.render import measure_columns

    table = nasty_table()
    first = render(table, "markdown").split("\n\n")[0]  # the values of the measures
    parsed = cells_of(markdown_it.MarkdownIt("commonmark").enable("table").render(first))
    assert parsed.rows[0] == ["name", *measure_columns(table)]
    assert [row[0] for row in parsed.rows[1:]] == NASTY
    assert all(len(row) == len(parsed.rows[0]) for row in parsed.rows)


def test_html_shows_every_name():
    from ir_pref_measures.experiment import to_html

    parsed = cells_of(to_html(nasty_table(), caption="<i>DL'19 & co</i>"))
    assert parsed.rows[0] == ["Run", "nDCG@10", ODD_MEASURE]
    assert [row[0] for row in parsed.rows[1:]] == NASTY
    assert parsed.caption.startswith("<i>DL'19 & co</i>. Bold") and "the baseline *star (p-value" in parsed.caption


def _latex_rows(latex: str) -> list[str]:
    return [line for line in latex.splitlines() if line.endswith("\\\\")]


def test_latex_keeps_rows_cells_and_names_apart():
    from ir_pref_measures.experiment import to_latex

    latex = to_latex(nasty_table(), caption="50% of [x] & y")
    rows = _latex_rows(latex)
    assert len(rows) == len(NASTY) + 1
    for row in rows:
        unescaped = row.replace("\\&", "")
        assert unescaped.count("&") == 2, row  # three columns
        assert not row.startswith(("[", "*")), row  # not read as the option of the \\ or \midrule before it
        assert row.count("{") == row.count("}") and "%" not in row.replace("\\%", "")
    assert rows[1].startswith("{}[2pt]x &") and rows[2].startswith("{}*star &")
    assert "\\caption{50\\% of [x] \\& y. Bold" in latex and "a-{}-b" in latex


def _pdflatex_text(latex: str, folder: Path) -> str:
    document = "\n".join(
        [
            "\\documentclass{article}",
            "\\usepackage[T1]{fontenc}",
            "\\usepackage{booktabs}",
            "\\begin{document}",
            latex,
            "\\end{document}",
        ]
    )
    (folder / "table.tex").write_text(document, encoding="utf-8")
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "table.tex"],
        cwd=folder,
        capture_output=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout.decode(errors="replace")[-3000:]
    text = subprocess.run(["pdftotext", "-raw", "table.pdf", "-"], cwd=folder, capture_output=True, check=True)
    return " ".join(text.stdout.decode().split())


@pytest.mark.skipif(
    shutil.which("pdflatex") is None or shutil.which("pdftotext") is None, reason="pdflatex or pdftotext is absent"
)
def test_latex_compiles_to_every_name(tmp_path):
    from ir_pref_measures.experiment import to_latex

    for booktabs in ("booktabs.sty",):
        found = subprocess.run(["kpsewhich", booktabs], capture_output=True, text=True)
        if not found.stdout.strip():
            pytest.skip(f"{booktabs} is not installed")
    text = _pdflatex_text(to_latex(nasty_table(), caption="<i>DL'19 & co</i>"), tmp_path)
    for name in [*NASTY, ODD_MEASURE, "<i>DL'19 & co</i>"]:
        shown = " ".join(name.split())
        assert shown in text, (shown, text)
    assert "the baseline *star (p-value < 0.05)" in text


@pytest.mark.parametrize("format", ["csv", "markdown", "html", "latex"])
def test_the_command_escapes_run_names(work, format):
    names = ["[2pt]x", "*star", "a|b\nc"]
    out, err, status = run_cli([*EXPERIMENT3, "--names", *names, "--baseline", "*star", "--format", format])
    assert status == 0, err
    if format == "csv":
        assert list(pd.read_csv(io.StringIO(out), keep_default_na=False)["name"]) == names
    elif format == "html":
        assert [row[0] for row in cells_of(out).rows[1:]] == names
    elif format == "markdown":
        assert out.split("\n\n")[0].count("\n") == 4 and "a\\|b<br>c" in out  # the values: 2 + 3 lines
    else:
        rows = _latex_rows(out)
        assert [r.split(" & ")[0] for r in rows[1:]] == ["{}[2pt]x", "{}*star", "a\\textbar{}b c"]


def test_query_ids_escaped_in_per_query_tables(work):
    odd = "q|1*_[x]<y>"
    for name in ("qrels", "run1", "run2"):
        (work / name).write_text((work / name).read_text().replace("31_1 ", odd + " "))
    out, _, status = run_cli([*EXPERIMENT, "--perquery", "--format", "csv"])
    assert status == 0 and odd in set(pd.read_csv(io.StringIO(out), dtype=str)["qid"])
    out, _, status = run_cli([*EXPERIMENT, "--perquery", "--format", "markdown"])
    assert status == 0 and "q\\|1\\*\\_\\[x\\]\\<y\\>" in out
