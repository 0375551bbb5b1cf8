"""The built wheel maps adapters/ to ir_pref_measures.adapters, installs no top-level `adapters`, and ships
`py.typed`, the commands and the license; the installed package is the one the tests import."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import ROOT


def test_wheel_file_list(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("ir_pref_measures-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    packages = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert packages == {"ir_pref_measures"}
    assert "ir_pref_measures/adapters/ir_measures.py" in names
    assert "ir_pref_measures/adapters/__init__.py" in names
    assert not any(name.startswith(("adapters/", "tests/", "benchmarks/")) for name in names)
    assert "ir_pref_measures/py.typed" in names
    assert "ir_pref_measures/commands/__init__.py" in names
    # every package of the source tree is listed in pyproject.toml's packages, so the wheel holds it
    source = {path.parent.relative_to(ROOT).as_posix() for path in (ROOT / "ir_pref_measures").rglob("__init__.py")}
    assert sorted(package for package in source if f"{package}/__init__.py" not in names) == []
    licenses = [name for name in names if name.endswith(".dist-info/licenses/LICENSE")]
    assert len(licenses) == 1
    assert "Apache License" in zipfile.ZipFile(wheel).read(licenses[0]).decode()
    metadata = next(name for name in names if name.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "License-Expression: Apache-2.0" in text
    assert "License-File: LICENSE" in text


def test_tests_import_the_installed_package():
    """`python -m pytest` from the checkout puts the source tree first on sys.path; conftest.py takes it off, so
    the tests run on what pip installed (site-packages, or the checkout itself for an editable install)."""
    import importlib.metadata
    import json

    import ir_pref_measures.adapters  # absent from the source folder ir_pref_measures/

    assert all(Path(entry or os.curdir).resolve() != ROOT for entry in sys.path)
    direct_url = importlib.metadata.distribution("ir-pref-measures").read_text("direct_url.json")
    editable = bool(direct_url and json.loads(direct_url).get("dir_info", {}).get("editable"))
    location = Path(ir_pref_measures.__file__).resolve()
    if editable:
        assert location.parent == ROOT / "ir_pref_measures"
    else:  # site-packages, wherever the environment lives (CI's .venv is inside the checkout)
        assert location.parent != ROOT / "ir_pref_measures" and "site-packages" in location.parts, location
