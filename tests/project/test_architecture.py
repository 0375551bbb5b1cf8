"""``docs/architecture.md``'s module table is generated from the modules' docstrings in the layers' order
(``tools/module_table.py``), lists every module of the package once, and is current."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import ROOT

PYPROJECT = """
[[tool.importlinter.contracts]]
name = "layers"
type = "layers"
layers = [
  "ir_pref_measures.top",
  "ir_pref_measures.left | ir_pref_measures.right",
  "ir_pref_measures.bottom",
]
"""


@pytest.fixture(scope="module")
def module_table():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import module_table
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return module_table


def _tree(root, files: dict[str, str]):
    (root / "pyproject.toml").write_text(PYPROJECT)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_the_table_is_current():
    found = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "module_table.py"), "--check"], capture_output=True, text=True
    )
    assert found.returncode == 0, found.stderr


def test_the_table_lists_every_module_once():
    page = (ROOT / "docs" / "architecture.md").read_text()
    listed = re.findall(r"^\| [^|]*(?:\\\|[^|]*)* \| `([\w/.]+\.py)` \|", page, re.M)
    package = ROOT / "ir_pref_measures"
    sources = [str(path.relative_to(package)) for path in package.rglob("*.py") if path.read_text().strip()]
    sources += [str(path.relative_to(ROOT)) for path in (ROOT / "adapters").glob("*.py")]
    assert len(listed) == len(set(listed)) and sorted(listed) == sorted(sources)
    for module in ("arguments.py", "experiment/styled.py", "leaderboards/sparse_ratings.py", "_checkout.py"):
        assert module in listed


def test_rows_follow_the_layers_and_take_the_first_sentence(tmp_path, module_table):
    _tree(
        tmp_path,
        {
            "ir_pref_measures/errors.py": '"""Errors."""\n',
            "ir_pref_measures/bottom/__init__.py": "",
            "ir_pref_measures/bottom/b.py": '"""The bottom: ``x`` of :func:`~ir_pref_measures.top.f`.\n\nMore."""\n',
            "ir_pref_measures/right.py": '"""Right, e.g. a|b. Then more."""\n',
            "ir_pref_measures/left/a.py": '"""Left\n    on two lines.\n"""\n',
            "ir_pref_measures/top/z.py": '"""Top."""\n',
        },
    )
    assert module_table.table(tmp_path).splitlines()[2:] == [
        "| `top` | `top/z.py` | Top. |",
        "| `left` \\| `right` | `left/a.py` | Left on two lines. |",
        "|  | `right.py` | Right, e.g. a\\|b. |",
        "| `bottom` | `bottom/b.py` | The bottom: `x` of `ir_pref_measures.top.f`. |",
        "| no layer | `errors.py` | Errors. |",
    ]


def test_a_module_without_a_docstring_is_an_error(tmp_path, module_table):
    _tree(tmp_path, {"ir_pref_measures/top/z.py": "x = 1\n"})
    with pytest.raises(SystemExit, match="z.py: no docstring"):
        module_table.table(tmp_path)
