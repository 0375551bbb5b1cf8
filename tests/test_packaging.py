"""The built wheel maps adapters/ to ir_pref_measures.adapters and installs no top-level `adapters`."""

from __future__ import annotations

import subprocess
import sys
import zipfile

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
