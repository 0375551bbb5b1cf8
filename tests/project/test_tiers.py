"""The two data tiers in CI: the tests that read the real-data tier run again without it (``--data-tier``)."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT


def test_ci_runs_the_data_tier_without_the_real_data():
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^IR_PREF_MEASURES_TESTDATA=.+ pytest -q --data-tier$", ci, re.M)


def test_the_data_tier_selects_the_tests_that_read_it():
    files = ["tests/commands/test_judge.py", "tests/measures/test_names.py"]
    found = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "--data-tier", *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert found.returncode == 0, found.stdout + found.stderr
    selected = [line for line in found.stdout.splitlines() if "::" in line]
    assert "tests/commands/test_judge.py::test_plan_accepts_an_ir_datasets_id_and_keeps_it" in selected
    assert not [line for line in selected if "test_names.py" in line]  # reads no data: deselected
    assert re.search(r"\d+/\d+ tests collected \(\d+ deselected\)", found.stdout)
