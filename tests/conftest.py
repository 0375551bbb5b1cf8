"""Shared fixtures and the two data tiers.

The *fixture tier* is committed under ``tests/data/<family>/``: small inputs the project generates and the outputs of
the reference tools run on them, each with the script that recorded it; it is always present. The *real-data tier*
(real judgments, runs and reference outputs, several without a licence) lives outside the project, in
``IR_PREF_MEASURES_TESTDATA`` (default ``../shared/testdata``); its tests skip when it is absent, and the run ends
with one line saying so (see docs/testing.md). Without it, tests whose assertions hold on any data of its shapes
read *stand-ins* instead (:func:`data_path`): files of the same names and formats, generated at session start by
``tests/data/standins/make.py`` from a seed.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = Path(os.environ.get("IR_PREF_MEASURES_TESTDATA", ROOT.parent / "shared" / "testdata"))
FIXTURES = ROOT / "tests" / "data"
ABSENT = "test data {} is absent (set IR_PREF_MEASURES_TESTDATA)"


def testdata_path(*parts: str) -> Path:
    """A path under the test data folder; skips the test with a reason when it is absent."""
    path = TESTDATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(ABSENT.format(path))
    return path


testdata_path.__test__ = False  # a helper, not a test, despite its name


def fixture_path(*parts: str) -> Path:
    """A path under the committed fixture tier ``tests/data``; it must exist (never a skip)."""
    path = FIXTURES.joinpath(*parts)
    assert path.exists(), f"committed fixture {path} is missing"
    return path


TIERS = {"fixtures": fixture_path, "real": testdata_path}

# the folder of the generated stand-ins of the real-data tier, when it is absent (written by pytest_configure; an
# environment variable, because test modules import this file again as a module of their own)
STANDINS = "IR_PREF_MEASURES_STANDINS"


def data_path(*parts: str) -> Path:
    """A path under the real-data folder when it is present, else under the session's generated stand-ins (same
    names and formats, a few topics): for tests whose assertions do not depend on the real numbers."""
    if TESTDATA.exists():
        return testdata_path(*parts)
    path = Path(os.environ[STANDINS]).joinpath(*parts)
    assert path.exists(), f"tests/data/standins/make.py writes no stand-in {path}"
    return path


@pytest.fixture
def data():
    return data_path


@pytest.fixture
def on_real_data() -> bool:
    """Whether :func:`data_path` reads the real data (a test checks the real data's own numbers only then)."""
    return TESTDATA.exists()


@pytest.fixture
def testdata():
    return testdata_path


@pytest.fixture(params=sorted(TIERS))
def tier(request):
    """Runs a parity test on both data tiers: ``tier(family, file)`` is a path under ``tests/data`` (committed,
    generated inputs and reference outputs) or under the real-data folder (skipped when absent)."""
    return TIERS[request.param]


# -- one summary line for the skipped real-data tier, instead of one `s` per test --
_real_data_skips: set[str] = set()


def _skipped_for_absent_data(report) -> bool:
    return report.skipped and isinstance(report.longrepr, tuple) and "IR_PREF_MEASURES_TESTDATA" in report.longrepr[2]


def pytest_report_teststatus(report, config):
    if _skipped_for_absent_data(report):
        _real_data_skips.add(report.nodeid)
        return "skipped", "", "SKIPPED (real data absent)"  # no `s` in the progress line; a word with -v
    return None


def _real_data_line() -> str | None:
    if not _real_data_skips:
        return None
    state = "lacks files the tests read" if TESTDATA.exists() else "is absent"
    return (
        f"real-data tier skipped ({len(_real_data_skips)} tests): {TESTDATA} {state}; docs/testing.md says where "
        "each real data set comes from (public sources); set IR_PREF_MEASURES_TESTDATA to its folder"
    )


# -- the tests of the data tier alone (`--data-tier`): those whose outcome may depend on whether the real data or its
# stand-ins are read; with IR_PREF_MEASURES_TESTDATA pointing nowhere, a check that a fresh clone is green --
DATA_FIXTURES = {"data", "on_real_data", "irds_home", "missing_dataset_id"}
DATA_NAMES = re.compile(r"\b(data_path|on_real_data|irds_home|missing_dataset_id|TESTDATA|STANDINS)\b")


def pytest_addoption(parser):
    parser.addoption(
        "--data-tier",
        action="store_true",
        help="run only the tests that read the real-data tier or its stand-ins (data_path, the data, on_real_data "
        "and irds_home fixtures, and modules that name them)",
    )


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--data-tier"):
        return
    reads: dict[str, bool] = {}
    kept, dropped = [], []
    for item in items:
        path = str(item.path)
        if path not in reads:
            reads[path] = bool(DATA_NAMES.search(Path(path).read_text(encoding="utf-8", errors="replace")))
        reads_data = reads[path] or bool(DATA_FIXTURES & set(getattr(item, "fixturenames", ())))
        (kept if reads_data else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


# -- the seeded ir_datasets cache (issue 5) --
# ir_datasets reads IR_DATASETS_HOME once, when first imported; so the session points it at a writable temporary
# copy of ../shared/testdata/irds_home (or of the stand-ins' cache) before any test module is collected (never at
# the shared folder itself).
_irds_copy: list[Path] = []


def pytest_configure(config):
    import shutil
    import subprocess
    import tempfile

    if not TESTDATA.exists():
        standins = Path(tempfile.mkdtemp(prefix="standins_"))
        make = [sys.executable, str(FIXTURES / "standins" / "make.py"), str(standins)]
        subprocess.run(make, check=True, stdout=subprocess.DEVNULL)
        os.environ[STANDINS] = str(standins)
    seed = (TESTDATA if TESTDATA.exists() else standins) / "irds_home"
    if seed.exists() and "ir_datasets" not in sys.modules:
        home = Path(tempfile.mkdtemp(prefix="irds_home_"))
        shutil.copytree(seed, home, dirs_exist_ok=True, copy_function=shutil.copyfile)
        for folder, _, _ in os.walk(home):
            os.chmod(folder, 0o755)
        os.environ["IR_DATASETS_HOME"] = str(home)
        _irds_copy.append(home)


def pytest_unconfigure(config):
    import shutil

    # the real-data tier's line, last: after the summary of the run (pytest_terminal_summary comes before it)
    line = _real_data_line()
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if line and reporter is not None:
        reporter.write_line(line)

    for home in [*_irds_copy, *([Path(os.environ.pop(STANDINS))] if STANDINS in os.environ else [])]:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def irds_home() -> Path:
    """The session's copy of the seeded ir_datasets cache (DL 2019/2020 passage, CAsT 2019 qrels), real or stand-in."""
    data_path("irds_home")
    import ir_datasets

    assert _irds_copy, "ir_datasets was imported before tests/conftest.py could set IR_DATASETS_HOME"
    assert Path(ir_datasets.util.home_path()) == _irds_copy[0], "ir_datasets does not use the seeded cache copy"
    return _irds_copy[0]


@pytest.fixture
def missing_dataset_id(irds_home) -> str:
    """An ir_datasets ID whose qrels are neither cached nor downloadable (``.invalid`` never resolves)."""
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels
    from ir_datasets.util import Download, RequestsDownload

    name = "ir-pref-measures-test/missing"
    if name not in ir_datasets.registry:
        dlc = Download([RequestsDownload("https://qrels.invalid/qrels.txt")], cache_path=irds_home / "missing/qrels")
        ir_datasets.registry.register(name, Dataset(TrecQrels(dlc, {})))
    return name


def run_cli(argv: list[str]) -> tuple[str, str, int]:
    """(stdout, stderr, exit status) of the command, in-process; any exception but InputError fails the test."""
    from ir_pref_measures.commands import main
    from ir_pref_measures.errors import InputError

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            status = main(argv)
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else 2
        except InputError as error:  # the entry point prints it
            err.write(f"ir-pref-measures: {error}\n")
            status = 2
    return out.getvalue(), err.getvalue(), status
