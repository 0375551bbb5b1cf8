"""One dispatch of string judgment sources: the kind of judgments each holds, told once, for every reader."""

from __future__ import annotations

import pytest

import ir_pref_measures as ipm
from ir_pref_measures.errors import InputError
from ir_pref_measures.loading.locations import JUDGMENT_FORMATS, judgment_file
from ir_pref_measures.parsing.files import RawFile

DL19 = "msmarco-passage/trec-dl-2019/judged"
LINES = {  # a file of each kind, its format told by its lines (trec_eval's formats only by name)
    "qrels": "q1 0 d1 1\nq1 0 d2 0\n",
    "log": "@ q1 d1 d2 !\n@ q1 d2 d3 =\n",
    "carterette": "q1 d1 d2 -1\nq1 d2 d3 0\n",
    "pairs": "q1 d1 d2\nq1 d2 d3\n",
    "prefs": "q1 jg1 1 d1 2\nq1 jg1 1 d2 1\n",
}


@pytest.mark.parametrize("kind", sorted(LINES))
def test_a_named_format_is_its_kind_and_read_from_the_path(tmp_path, kind):
    path = tmp_path / "judgments"
    path.write_text(LINES[kind])
    found = judgment_file(f"{kind}:{path}")
    assert found.kind == kind and found.location.path == str(path) and found.location.format == kind
    if kind == "prefs":  # trec_eval's files have a reader of their own
        assert found.raw is None
        with pytest.raises(ValueError, match="its own reader"):
            _ = found.read_from
    else:
        assert found.raw == str(path)  # named: nothing read to tell it
    assert len(ipm.load_judgments(f"{kind}:{path}").frame()) > 0  # every reader follows the same kind


@pytest.mark.parametrize("kind", ["qrels", "log", "carterette", "pairs"])
def test_a_detected_format_is_read_once_and_its_bytes_kept(tmp_path, kind):
    path = tmp_path / "judgments"
    path.write_text(LINES[kind])
    found = judgment_file(str(path))
    assert found.kind == kind and found.location.format is None
    assert isinstance(found.raw, RawFile)  # the bytes read to detect it are the ones parsed


def test_an_ir_datasets_id_is_a_dataset(irds_home):
    found = judgment_file(f"irds:{DL19}")
    assert found.kind == "dataset" and found.location.dataset == DL19 and found.raw is None


def test_every_judgment_format_has_a_kind(tmp_path):
    assert set(LINES) | {"winner", "qrels_prefs"} == set(JUDGMENT_FORMATS)
    path = tmp_path / "judgments"
    path.write_text("q1 1 2 1\nq1 2 1 1\n")  # fits carterette and winner: the preference format decides
    assert judgment_file(str(path), preference_format="winner").kind == "winner"
    with pytest.raises(InputError, match="ambiguous"):
        judgment_file(str(path))
