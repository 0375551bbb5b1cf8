"""The layers of pyproject.toml's import contracts hold (``lint-imports``; CI runs it on the installed package).

The check runs on a copy of the package laid out as installed (``adapters/`` as ``ir_pref_measures/adapters``), so
that it sees the same modules whether the package under test is installed or editable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

pytest.importorskip("importlinter")


def _lint(folder):
    """``lint-imports`` on a copy of the package in ``folder``, laid out as installed."""
    if not (folder / "ir_pref_measures").exists():
        shutil.copytree(ROOT / "ir_pref_measures", folder / "ir_pref_measures")
    shutil.copytree(ROOT / "adapters", folder / "ir_pref_measures" / "adapters")
    lint = shutil.which("lint-imports", path=os.path.dirname(sys.executable)) or "lint-imports"
    env = {**os.environ, "PYTHONPATH": str(folder)}
    return subprocess.run(
        [lint, str(ROOT / "pyproject.toml")], cwd=folder, env=env, capture_output=True, text=True, check=False
    )


def test_import_contracts_hold(tmp_path):
    found = _lint(tmp_path)
    assert found.returncode == 0, found.stdout + found.stderr
    assert "0 broken" in found.stdout


def test_a_broken_layer_is_reported(tmp_path):
    """The check can fail: a model module that imports the engine breaks the layers."""
    shutil.copytree(ROOT / "ir_pref_measures", tmp_path / "ir_pref_measures")
    rankings = tmp_path / "ir_pref_measures" / "model" / "rankings.py"
    rankings.write_text(rankings.read_text() + "\nfrom ir_pref_measures import engine  # noqa\n")
    found = _lint(tmp_path)
    assert found.returncode != 0 and "ir_pref_measures.model.rankings -> ir_pref_measures.engine" in found.stdout


def test_a_command_importing_the_store_is_reported(tmp_path):
    """Commands only parse and call ``judging`` functions: a command module importing the store breaks its
    contract."""
    shutil.copytree(ROOT / "ir_pref_measures", tmp_path / "ir_pref_measures")
    judge = tmp_path / "ir_pref_measures" / "commands" / "judge.py"
    judge.write_text(judge.read_text() + "\nfrom ir_pref_measures.judging.store import Store  # noqa\n")
    found = _lint(tmp_path)
    assert found.returncode != 0 and "ir_pref_measures.commands.judge -> ir_pref_measures.judging.store" in found.stdout
