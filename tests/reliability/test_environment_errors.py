"""Issue 27, items 5 and 8: what the environment gets wrong is one clear error, in bounded time.

Dask (``--dask ADDRESS``, ``ir_pref_measures.dask.connect``, ``Experiment(client=ADDRESS)``): a server that
accepts and never answers, answers garbage (random bytes, HTTP, a huge length prefix), closes at once, refuses,
does not resolve, is a malformed address or a Dask worker gives an ``InputError`` naming the address (the
command: exit status 2, one line on stderr, no traceback) within the bound, and leaves no thread behind. The
servers are tiny loopback servers in threads, each stopped by its test.

ir_datasets: ``IR_DATASETS_HOME`` pointing at a file, below a file, at a folder that cannot be created, or
empty is one error naming the variable and the path; a read-only cache (a read-only bind mount when run as
root, where permission bits do not stop writes; read-only permission bits otherwise) is read as it is.
"""

from __future__ import annotations

import http.server
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import data_path

from ir_pref_measures import Experiment, InputError
from ir_pref_measures.commands import main

TIMEOUT = 2.0  # seconds: the bound the tests give (the default is 30)
SLACK = 2.0  # seconds beyond the bound for the check's thread to finish (the CLI's start-up is not counted)
QUICK = 1.5  # seconds: garbage, a closed connection, a refusal come well before the bound
CLI_LIMIT = 60  # seconds: a subprocess still running by then has hung
DL19 = "irds:msmarco-passage/trec-dl-2019/judged"
RUN = ("dl_llm_prefs_arabzadeh", "runs", "input.ICT-BERT2.txt.gz")


# -- loopback servers ---------------------------------------------------------------------------------------


@contextmanager
def tcp_server(answer):
    """A TCP server on 127.0.0.1 calling ``answer(connection)`` per connection (in its accept thread); the
    connections are held open until the server stops. Yields ``tcp://127.0.0.1:PORT``."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.05)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            held.append(connection)
            try:
                answer(connection)
            except OSError:
                pass

    thread = threading.Thread(target=serve, name="test server", daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        for connection in held:
            connection.close()
        listener.close()
        assert not thread.is_alive()


def _silent(connection: socket.socket) -> None:
    """Accept and never answer."""


def _garbage(connection: socket.socket) -> None:
    connection.sendall(random.Random(27).randbytes(256))


def _huge_prefix(connection: socket.socket) -> None:
    connection.sendall((1 << 40).to_bytes(8, "little"))  # a 1 TiB message announced; nothing follows


def _close(connection: socket.socket) -> None:
    connection.close()


SERVERS = {"silent": _silent, "garbage": _garbage, "huge prefix": _huge_prefix, "closes": _close}


class QuietHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@contextmanager
def http_server():
    """An HTTP server on 127.0.0.1 (it answers Dask's handshake with ``400 Bad request``)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), QuietHandler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@contextmanager
def server(kind: str):
    if kind == "http":
        with http_server() as address:
            yield address
    else:
        with tcp_server(SERVERS[kind]) as address:
            yield address


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _threads() -> set[threading.Thread]:
    return set(threading.enumerate())


def assert_no_new_threads(before: set[threading.Thread]) -> None:
    """No thread started since ``before`` is still running (a short grace for threads that are ending)."""
    deadline = time.monotonic() + SLACK
    while time.monotonic() < deadline and _threads() - before:
        time.sleep(0.02)
    assert not _threads() - before, f"threads left running: {sorted(t.name for t in _threads() - before)}"


def _files(tmp_path: Path) -> tuple[str, str]:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    return str(qrels), str(run)


def assert_one_line(err: str, address: str, command: str = "eval") -> None:
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith(f"ir-pref-measures {command}: ") and address in err, err


# -- Dask ---------------------------------------------------------------------------------------------------

try:
    import dask
    import distributed

    from ir_pref_measures import dask as cluster
    from ir_pref_measures.dask.scheduler import connect_timeout
except ImportError:  # the extra "dask" is not installed: the Dask tests are skipped, not the ir_datasets ones
    distributed = None

needs_dask = pytest.mark.skipif(distributed is None, reason="needs pip install 'ir-pref-measures[dask]'")

EXPECTED = {  # what each server's error says
    "silent": f"no answer within {TIMEOUT:g} s",
    "garbage": "does not answer in Dask's protocol",
    "huge prefix": "does not answer in Dask's protocol",
    "http": "does not answer in Dask's protocol",
    "closes": "closed the connection",
}


@pytest.fixture(scope="module")
def local_cluster():
    if distributed is None:
        pytest.skip("needs pip install 'ir-pref-measures[dask]'")
    """A scheduler and one worker in this process, on loopback TCP."""
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=":0"
    ) as running:
        yield running


@needs_dask
@pytest.mark.parametrize("kind", list(EXPECTED))
def test_a_server_that_is_no_scheduler_is_one_error_in_bounded_time(kind):
    with server(kind) as address:
        before = _threads()
        start = time.monotonic()
        with pytest.raises(InputError) as error:
            cluster.connect(address, timeout=TIMEOUT)
        took = time.monotonic() - start
        assert str(error.value).startswith(f"Dask scheduler {address}: ") and EXPECTED[kind] in str(error.value)
        assert "\n" not in str(error.value)
        assert took < (TIMEOUT + SLACK if kind == "silent" else QUICK), took
        if kind == "silent":
            assert took >= TIMEOUT * 0.9  # the bound given, not less
        assert_no_new_threads(before)


@needs_dask
@pytest.mark.parametrize("kind", list(EXPECTED))
def test_the_commands_report_a_server_that_is_no_scheduler_in_one_line(kind, tmp_path, capfd):
    qrels, run = _files(tmp_path)
    with server(kind) as address:
        start = time.monotonic()
        status = main(["eval", qrels, run, "nDCG@10", "--dask", address, "--dask-timeout", str(TIMEOUT)])
        took = time.monotonic() - start
        out, err = capfd.readouterr()
    assert status == 2 and out == ""
    assert_one_line(err, address)
    assert EXPECTED[kind] in err and took < TIMEOUT + SLACK


@needs_dask
def test_a_client_that_hangs_after_the_check_is_bounded_and_closed(monkeypatch):
    """A server that passed the check, then hangs in ``distributed.Client``'s handshake (which distributed does
    not bound): the client gives up within the bound and its event loop thread is stopped."""
    import ir_pref_measures.dask.scheduler as adapter

    monkeypatch.setattr(adapter, "_check_scheduler", lambda address, seconds: None)
    with server("silent") as address:
        before = _threads()
        start = time.monotonic()
        with pytest.raises(InputError, match=f"Dask scheduler {address}: no answer within {TIMEOUT:g} s"):
            cluster.connect(address, timeout=TIMEOUT)
        assert time.monotonic() - start < TIMEOUT + SLACK
        assert_no_new_threads(before)


@needs_dask
@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("tcp://", "no port"),
        ("foo://x", "unknown scheme 'foo'"),
        ("tcp://host:notaport", "the port 'notaport' is not a number"),
        ("tcp://:8786", "no host"),
        ("tcp://127.0.0.1:99999", "the port 99999 is out of range"),
    ],
)
def test_a_malformed_address(address, expected, tmp_path, capfd):
    with pytest.raises(InputError, match="is not a Dask scheduler address") as error:
        cluster.connect(address, timeout=TIMEOUT)
    assert repr(address) in str(error.value) and expected in str(error.value)
    qrels, run = _files(tmp_path)
    assert main(["eval", qrels, run, "nDCG@10", "--dask", address]) == 2
    out, err = capfd.readouterr()
    assert_one_line(err, address)


@needs_dask
def test_a_refused_connection_is_reported_at_once(tmp_path, capfd):
    address = f"tcp://127.0.0.1:{free_port()}"
    start = time.monotonic()
    with pytest.raises(InputError, match="connection refused") as error:
        cluster.connect(address, timeout=10)  # refused at once, not retried for the whole bound
    assert address in str(error.value) and time.monotonic() - start < QUICK
    qrels, run = _files(tmp_path)
    assert main(["eval", qrels, run, "nDCG@10", "--dask", address]) == 2
    assert_one_line(capfd.readouterr().err, address)


@needs_dask
def test_a_host_name_that_does_not_resolve():
    address = "tcp://ir-pref-measures-test.invalid:8786"  # .invalid never resolves (RFC 2606)
    before = _threads()
    start = time.monotonic()
    with pytest.raises(InputError) as error:
        cluster.connect(address, timeout=TIMEOUT)
    message = str(error.value)
    assert message.startswith(f"Dask scheduler {address}: ")
    assert "the host name does not resolve" in message or "no answer within" in message  # a slow resolver
    assert time.monotonic() - start < TIMEOUT + SLACK
    assert_no_new_threads(before)


@needs_dask
def test_a_worker_is_no_scheduler(local_cluster, tmp_path, capfd):
    worker = next(iter(local_cluster.scheduler.workers))
    with pytest.raises(InputError, match="this is a Dask worker, not a scheduler") as error:
        cluster.connect(worker, timeout=TIMEOUT)
    assert worker in str(error.value)
    qrels, run = _files(tmp_path)
    assert main(["eval", qrels, run, "nDCG@10", "--dask", worker, "--dask-timeout", str(TIMEOUT)]) == 2
    assert_one_line(capfd.readouterr().err, worker)


@needs_dask
def test_a_scheduler_that_closed_is_refused():
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", dashboard_address=":0") as gone:
        address = gone.scheduler_address
    with pytest.raises(InputError, match="connection refused") as error:
        cluster.connect(address, timeout=TIMEOUT)
    assert address in str(error.value)


@needs_dask
def test_a_scheduler_is_connected_and_closed(local_cluster, tmp_path, capfd):
    address = local_cluster.scheduler_address
    with cluster.connect(address, timeout=TIMEOUT) as client:
        assert client.submit(sum, [1, 2]).result(timeout=30) == 3
    assert client.status == "closed"
    qrels, run = _files(tmp_path)
    assert main(["eval", qrels, run, "nDCG@10"]) == 0
    local = capfd.readouterr().out
    assert main(["eval", qrels, run, "nDCG@10", "--dask", address, "--dask-timeout", "10"]) == 0
    assert capfd.readouterr().out == local


@needs_dask
def test_the_default_bound_is_dask_s_connect_timeout():
    assert connect_timeout() == 30  # distributed's default of distributed.comm.timeouts.connect
    with dask.config.set({"distributed.comm.timeouts.connect": "3s"}):
        assert connect_timeout() == 3
    assert connect_timeout(1.5) == 1.5 and connect_timeout("2s") == 2
    with dask.config.set({"distributed.comm.timeouts.connect": "soon"}):
        with pytest.raises(InputError, match="distributed.comm.timeouts.connect 'soon'"):
            connect_timeout()
    for bad in (0, -1, float("nan"), float("inf"), "x"):
        with pytest.raises(InputError, match="not a positive number of seconds"):
            connect_timeout(bad)


@needs_dask
@pytest.mark.parametrize("value", ["0", "-1", "x", "inf"])
def test_a_bad_dask_timeout_is_a_usage_error(value, tmp_path, capsys):
    qrels, run = _files(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["eval", qrels, run, "nDCG@10", "--dask", "tcp://127.0.0.1:1", "--dask-timeout", value])
    assert exit_.value.code == 2 and "--dask-timeout" in capsys.readouterr().err


@needs_dask
def test_experiment_takes_an_address_within_the_same_bound(tmp_path, local_cluster):
    qrels, run = _files(tmp_path)
    local = Experiment([run], qrels, ["nDCG@10"])
    on_cluster = Experiment([run], qrels, ["nDCG@10"], client=local_cluster.scheduler_address)
    assert on_cluster.equals(local)
    with server("silent") as address, dask.config.set({"distributed.comm.timeouts.connect": TIMEOUT}):
        start = time.monotonic()
        with pytest.raises(InputError, match=f"Dask scheduler {address}: no answer within {TIMEOUT:g} s"):
            Experiment([run], qrels, ["nDCG@10"], client=address)
        assert time.monotonic() - start < TIMEOUT + SLACK


def _cli(argv: list[str], cwd: Path, **env: str) -> tuple[subprocess.CompletedProcess, float]:
    """The command in a fresh process (a copy of this environment, plus ``env``); its run time."""
    start = time.monotonic()
    found = subprocess.run(
        [sys.executable, "-m", "ir_pref_measures", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **env},
        timeout=CLI_LIMIT,
    )
    return found, time.monotonic() - start


@needs_dask
@pytest.mark.parametrize("kind", ["silent", "http"])
def test_the_command_in_a_process_of_its_own(kind, tmp_path):
    """Nothing else reaches stderr (no log line, no warning at exit); the bound from Dask's own setting."""
    qrels, run = _files(tmp_path)
    with server(kind) as address:
        found, took = _cli(
            ["eval", qrels, run, "nDCG@10", "--dask", address],
            tmp_path,
            DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=f"{TIMEOUT:g}s",
        )
    assert found.returncode == 2 and found.stdout == ""
    assert_one_line(found.stderr, address)
    assert EXPECTED[kind] in found.stderr and took < CLI_LIMIT / 2


# -- ir_datasets --------------------------------------------------------------------------------------------


def _eval(argv_home: str | None, tmp_path: Path, *, dataset: str = DL19, wrap: list[str] = ()):
    """``eval DATASET RUN nDCG@10`` in a fresh process with ``IR_DATASETS_HOME`` set to ``argv_home``."""
    run = str(data_path(*RUN))
    env = {**os.environ, "IR_DATASETS_HOME": argv_home}
    return subprocess.run(
        [*wrap, sys.executable, "-m", "ir_pref_measures", "eval", dataset, run, "nDCG@10"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=CLI_LIMIT,
    )


def _bad_home(found: subprocess.CompletedProcess, *expected: str) -> None:
    assert found.returncode == 2 and found.stdout == ""
    assert_one_line(found.stderr, "IR_DATASETS_HOME")
    for part in expected:
        assert part in found.stderr, found.stderr


def test_ir_datasets_home_is_a_file(tmp_path):
    home = tmp_path / "a file"
    home.write_text("")
    _bad_home(_eval(str(home), tmp_path), f"IR_DATASETS_HOME={home}: is a file, not a folder", DL19)


def test_ir_datasets_home_below_a_file(tmp_path):
    home = tmp_path / "a file" / "cache"
    home.parent.write_text("")
    _bad_home(_eval(str(home), tmp_path), f"IR_DATASETS_HOME={home}: {home.parent} is a file, not a folder")


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc (no folder can be made there)")
def test_ir_datasets_home_that_cannot_be_created(tmp_path):
    home = "/proc/ir-pref-measures-test/cache"
    _bad_home(_eval(home, tmp_path), f"IR_DATASETS_HOME={home}: the folder does not exist and cannot be created")


def test_ir_datasets_home_empty(tmp_path):
    _bad_home(_eval("", tmp_path), "IR_DATASETS_HOME is set but empty")


def test_a_file_name_misspelt_with_a_bad_home_says_what_was_looked_up(tmp_path):
    home = tmp_path / "a file"
    home.write_text("")
    found = _eval(str(home), tmp_path, dataset="qrels-misspelt.txt")
    _bad_home(found, "'qrels-misspelt.txt' cannot be looked up as an ir_datasets ID", "is a file, not a folder")


@pytest.fixture
def read_only_cache(tmp_path):
    """``(folder, wrap)``: a copy of the seeded cache that cannot be written, and the command prefix that makes
    it so: as root, a read-only bind mount in a mount namespace of its own (``unshare -m``); otherwise the
    copy's permission bits. Skips where neither is possible."""
    seed = data_path("irds_home")
    copy = tmp_path / "irds_copy"
    shutil.copytree(seed, copy, copy_function=shutil.copyfile)
    view = tmp_path / "irds_read_only"
    view.mkdir()
    if os.geteuid() != 0:
        for folder, _, files in os.walk(copy):
            for name in files:
                os.chmod(os.path.join(folder, name), 0o444)
            os.chmod(folder, 0o555)
        yield copy, []
        for folder, _, _ in os.walk(copy):
            os.chmod(folder, 0o755)
        return
    if shutil.which("unshare") is None:
        pytest.skip("running as root needs unshare(1) to make a read-only folder")
    wrap = ["unshare", "-m", "sh", "-c", f'mount --bind -o ro "{copy}" "{view}" && exec "$@"', "sh"]
    probe = subprocess.run([*wrap, "touch", str(view / "probe")], capture_output=True, text=True, timeout=CLI_LIMIT)
    if probe.returncode == 0 or "Read-only file system" not in probe.stderr:
        pytest.skip(f"cannot make a read-only bind mount here: {probe.stderr.strip()}")
    yield view, wrap


def test_a_read_only_cache_is_read_as_it_is(read_only_cache, tmp_path, irds_home, capsys):
    folder, wrap = read_only_cache
    found = _eval(str(folder), tmp_path, wrap=wrap)
    assert found.returncode == 0, found.stderr
    assert main(["eval", DL19, str(data_path(*RUN)), "nDCG@10"]) == 0  # the session's writable copy
    assert found.stdout == capsys.readouterr().out
    assert "Traceback" not in found.stderr


def test_a_read_only_cache_without_the_dataset_s_files(read_only_cache, tmp_path):
    folder, wrap = read_only_cache
    found = _eval(str(folder), tmp_path, dataset="irds:msmarco-passage/trec-dl-hard", wrap=wrap)
    assert found.returncode == 2 and found.stdout == "" and "Traceback" not in found.stderr
    last = found.stderr.splitlines()[-1]  # ir_datasets logs its failed download before
    assert last.startswith("ir-pref-measures eval: ") and "is not writable" in last and "IR_DATASETS_HOME" in last


def test_an_unwritable_home_that_does_not_exist(read_only_cache, tmp_path):
    folder, wrap = read_only_cache
    home = folder / "new"
    _bad_home(
        _eval(str(home), tmp_path, wrap=wrap),
        f"IR_DATASETS_HOME={home}: the folder does not exist and cannot be created",
    )
