"""Shared fixtures: the reference test data lives in ../shared/testdata (never copied here)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = Path(os.environ.get("IR_PREF_MEASURES_TESTDATA", ROOT.parent / "shared" / "testdata"))


def testdata_path(*parts: str) -> Path:
    """A path under the test data folder; skips the test with a reason when it is absent."""
    path = TESTDATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"test data {path} is absent (set IR_PREF_MEASURES_TESTDATA)")
    return path


testdata_path.__test__ = False  # a helper, not a test, despite its name


@pytest.fixture
def testdata():
    return testdata_path


# -- the seeded ir_datasets cache (issue 5) --
# ir_datasets reads IR_DATASETS_HOME once, when first imported; so the session points it at a writable temporary
# copy of ../shared/testdata/irds_home before any test module is collected (never at the shared folder itself).
_IRDS_SEED = TESTDATA / "irds_home"
_irds_copy: list[Path] = []


def pytest_configure(config):
    if _IRDS_SEED.exists() and "ir_datasets" not in sys.modules:
        import shutil
        import tempfile

        home = Path(tempfile.mkdtemp(prefix="irds_home_"))
        shutil.copytree(_IRDS_SEED, home, dirs_exist_ok=True, copy_function=shutil.copyfile)
        for folder, _, _ in os.walk(home):
            os.chmod(folder, 0o755)
        os.environ["IR_DATASETS_HOME"] = str(home)
        _irds_copy.append(home)


def pytest_unconfigure(config):
    import shutil

    for home in _irds_copy:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def irds_home() -> Path:
    """The session's copy of the seeded ir_datasets cache (DL 2019/2020 passage, CAsT 2019 qrels)."""
    testdata_path("irds_home")
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
