"""``tools/climbs.py`` counts a value's climbs back up the layers, on a small package written here."""

from __future__ import annotations

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import climbs  # noqa: E402

PYPROJECT = """
[[tool.importlinter.contracts]]
name = "layers"
type = "layers"
layers = ["ir_pref_measures.top", "ir_pref_measures.model", "ir_pref_measures.parsing"]
"""
TOP = """
from ir_pref_measures import model, parsing
from ir_pref_measures.parsing import read as load


def run(args, other):
    text = parsing.read(args)
    built = model.build(text)
    again = load(built)
    parsing.read(other)  # not the followed value: not entered
    return model.Graph(again).close()
"""
MODEL = """
def build(x):
    return x


class Graph:
    def __init__(self, x):
        self.x = x

    def close(self):
        return self.x
"""


def _package(tmp_path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    package = tmp_path / "ir_pref_measures"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "top.py").write_text(TOP)
    (package / "model.py").write_text(MODEL)
    (package / "parsing.py").write_text("def read(x):\n    return x\n")
    return tmp_path


def test_a_value_that_goes_down_and_comes_back_up_climbs(tmp_path):
    steps, visited = climbs.climbs(_package(tmp_path), "ir_pref_measures.top.run", "args")
    assert steps == [
        ("ir_pref_measures.parsing.read", "ir_pref_measures.model.build"),
        ("ir_pref_measures.parsing.read", "ir_pref_measures.model.Graph.__init__"),
    ]
    assert visited == {"ir_pref_measures.top", "ir_pref_measures.parsing", "ir_pref_measures.model"}


def test_a_value_that_only_goes_down_does_not_climb(tmp_path):
    steps, visited = climbs.climbs(_package(tmp_path), "ir_pref_measures.top.run", "other")
    assert steps == [] and visited == {"ir_pref_measures.top", "ir_pref_measures.parsing"}
