"""Shared fixtures: the reference test data lives in ../shared/testdata (never copied here)."""

from __future__ import annotations

import os
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
