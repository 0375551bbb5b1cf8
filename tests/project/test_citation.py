"""CITATION.cff parses, names the package's version, license and repository, and cites the measures' papers."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT

import ir_pref_measures


@pytest.fixture(scope="module")
def citation() -> dict:
    yaml = pytest.importorskip("yaml", reason="pyyaml is not installed")
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_citation_names_this_version_of_the_software(citation):
    pyproject = (ROOT / "pyproject.toml").read_text()  # (tomllib is Python 3.11+; the package supports 3.10)
    project = {key: re.search(rf'^{key} = "([^"]+)"', pyproject, re.M).group(1) for key in ("name", "license")}
    repository = re.search(r'^Repository = "([^"]+)"', pyproject, re.M).group(1)
    assert citation["cff-version"] == "1.2.0"
    assert citation["type"] == "software"
    assert citation["title"] == project["name"] == "ir-pref-measures"
    assert str(citation["version"]) == ir_pref_measures.__version__
    assert citation["license"] == project["license"]
    assert citation["repository-code"] == repository
    assert citation["authors"] == [{"name": "The ir-pref-measures developers"}]


def test_citation_cites_the_papers_of_the_measures(citation):
    titles = {reference["title"] for reference in citation["references"]}
    for title in (
        "Evaluation Measures for Preference Judgments",
        "A Test Collection of Preference Judgments",
        "Evaluation Measures Based on Preference Graphs",
        "Information Retrieval Evaluation Measures Based on Preference Graphs",
        "Offline Retrieval Evaluation Without Evaluation Metrics",
        "Recall, Robustness, and Lexicographic Evaluation",
    ):
        assert title in titles
    assert all(reference["authors"] and reference["year"] for reference in citation["references"])
