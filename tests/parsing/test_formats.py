"""Readers: every format, detection, and a clear error for every kind of bad input."""

from __future__ import annotations

import gzip
import io

import ir_measures
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ir_pref_measures as ipm
from ir_pref_measures import InputError
from ir_pref_measures.parsing import formats
from ir_pref_measures.parsing.formats import read_qrels, read_run
from ir_pref_measures.parsing.preferences import detect_format, read_preferences


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


def assert_error(error: InputError, path, line_no: int, line: str, *words: str):
    text = str(error)
    assert str(path) in text and f":{line_no}:" in text
    assert error.line_no == line_no and error.line.strip() == line
    assert error.expected
    for word in words:
        assert word in text


def test_run_with_a_missing_column(tmp_path):
    path = write(tmp_path, "run", "q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 2 1.0\n")
    with pytest.raises(InputError) as info:
        read_run(path)
    assert_error(info.value, path, 2, "q1 Q0 d2 2 1.0", "5 fields instead of 6", "TREC run")


def test_run_with_a_non_numeric_score(tmp_path):
    path = write(tmp_path, "run", "q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 2 high tag\n")
    with pytest.raises(InputError) as info:
        read_run(path)
    assert_error(info.value, path, 2, "q1 Q0 d2 2 high tag", "score 'high' is not a number")


def test_doc_twice_in_one_query_of_a_run(tmp_path):
    path = write(tmp_path, "run", "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.5 t\nq2 Q0 d1 1 1.0 t\nq1 Q0 d1 3 1.0 t\n")
    with pytest.raises(InputError) as info:
        ipm.as_ranking(str(path))
    assert_error(info.value, path, 4, "q1 Q0 d1 3 1.0 t", "'d1' is listed twice in query 'q1'")


def test_unknown_preference_value(tmp_path):
    path = write(tmp_path, "prefs", "q1 a b -1\nq1 a c 3\n")
    with pytest.raises(InputError) as info:
        read_preferences(path, "carterette")
    assert_error(info.value, path, 2, "q1 a c 3", "unknown preference value '3'", "-2 (a bad, b NA)")


def test_minus_two_without_na(tmp_path):
    path = write(tmp_path, "prefs", "q1 a b -1\nq1 a b -2\n")
    with pytest.raises(InputError) as info:
        read_preferences(path, "carterette")
    assert_error(info.value, path, 2, "q1 a b -2", "the second doc must be NA")


def test_plus_two_without_na(tmp_path):
    path = write(tmp_path, "prefs", "q1 a b 2\n")
    with pytest.raises(InputError) as info:
        read_preferences(path, "carterette")
    assert_error(info.value, path, 1, "q1 a b 2", "the first doc must be NA")


def test_winner_that_is_neither_doc(tmp_path):
    path = write(tmp_path, "prefs", "q1 a b a\nq1 a b c\n")
    with pytest.raises(InputError) as info:
        read_preferences(path, "winner")
    assert_error(info.value, path, 2, "q1 a b c", "winner 'c' is neither 'a' nor 'b'")


@pytest.mark.parametrize("reader", [read_run, read_qrels, lambda p: read_preferences(p, "pairs")])
def test_empty_file(tmp_path, reader):
    path = write(tmp_path, "empty", "\n  \n")
    with pytest.raises(InputError, match="no data lines"):
        reader(path)


def test_qrels_missing_relevance(tmp_path):
    path = write(tmp_path, "qrels", "q1 0 d1 1\nq1 0 d2\n")
    with pytest.raises(InputError) as info:
        read_qrels(path)
    assert_error(info.value, path, 2, "q1 0 d2", "3 fields instead of 4")


def test_qrels_doc_judged_twice(tmp_path):
    path = write(tmp_path, "qrels", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 2\n")
    with pytest.raises(InputError, match=r"'d1' is judged twice in query 'q1'"):
        ipm.load_judgments(path, format="qrels")


def test_blank_lines_are_ignored_and_gzip_is_read(tmp_path):
    path = tmp_path / "run.gz"
    with gzip.open(path, "wt") as f:
        f.write("q1 Q0 d1 1 2.0 t\n\nq1 Q0 d2 2 1.0 t\n")
    run = read_run(path)
    assert run[["query_id", "doc_id", "score"]].values.tolist() == [["q1", "d1", 2.0], ["q1", "d2", 1.0]]
    assert run["line"].tolist() == [1, 3]


def test_float_and_integer_qrels(tmp_path):
    assert read_qrels(write(tmp_path, "a", "q1 0 d1 1\nq1 0 d2 0\n"))["relevance"].dtype == "int64"
    assert read_qrels(write(tmp_path, "b", "q1 0 d1 1.5\nq1 0 d2 0\n"))["relevance"].tolist() == [1.5, 0.0]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("q1 a b -1\nq1 c NA -2\n", "carterette"),
        ("q1 a b a\nq1 c d d\n", "winner"),
        ("q1 a b\nq1 c d\n", "pairs"),
        ("q1 Q0 a 12.5\nq1 Q0 b 0.0\n", "qrels"),
    ],
)
def test_format_detection(tmp_path, text, expected):
    assert detect_format(write(tmp_path, "p", text)) == expected


def test_ambiguous_format_asks_for_it(tmp_path):
    path = write(tmp_path, "p", "q1 1 2 1\nq1 2 1 1\n")  # carterette (-1/1 values), or winner (doc ids 1 and 2)
    with pytest.raises(InputError, match="ambiguous.*pass format="):
        detect_format(path)


def test_binary_and_graded_qrels_are_qrels(tmp_path):
    """They fit the carterette format too, but only with a doc named '0' on every line."""
    assert detect_format(write(tmp_path, "b", "q1 0 b 1\nq1 0 c 0\n")) == "qrels"
    assert detect_format(write(tmp_path, "g", "q1 0 b 2\nq1 0 c -1\n")) == "qrels"


def test_line_fitting_no_format(tmp_path):
    path = write(tmp_path, "p", "q1 a b\nq1 a b c d\n")
    with pytest.raises(InputError) as info:
        detect_format(path)
    assert_error(info.value, path, 2, "q1 a b c d", "fits no preference format")


def test_all_formats_give_the_same_judgments(tmp_path):
    carterette = write(tmp_path, "c", "q1 a b -1\nq1 c b 1\n")
    winner = write(tmp_path, "w", "q1 a b a\nq1 c b b\n")
    pairs = write(tmp_path, "p", "q1 a b\nq1 b c\n")
    frames = [ipm.load_judgments(p).frame() for p in (carterette, winner, pairs)]
    edges = [
        (j.doc_ids[j.edge_src].tolist(), j.doc_ids[j.edge_dst].tolist())
        for j in (ipm.load_judgments(p) for p in (carterette, winner, pairs))
    ]
    assert all(f.equals(frames[0]) for f in frames)
    assert edges[0] == edges[1] == edges[2] == (["a", "b"], ["b", "c"])


def test_in_memory_preferences_are_validated():
    frame = pd.DataFrame({"query_id": ["q"], "doc_id_a": ["a"], "doc_id_b": ["b"], "preference": ["7"]})
    with pytest.raises(InputError, match="unknown preference value '7'"):
        ipm.Judgments.from_preferences(frame)


def test_bad_doc_that_also_prefers_warns_and_prefers_nothing():
    frame = pd.DataFrame(
        {"query_id": ["q"] * 2, "doc_id_a": ["a", "a"], "doc_id_b": ["NA", "b"], "preference": [-2, -1]}
    )
    with pytest.warns(UserWarning, match="1 preference.*bad doc prefers nothing"):
        judgments = ipm.Judgments.from_preferences(frame)
    run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    value = ir_measures.calc_aggregate([ir_measures.parse_measure("num_pref_total")], judgments, run)
    assert list(value.values()) == [0.0]


# -- the fast path of read_columns: a regular file is checked chunk by chunk and parsed from its path ---------

_PIECES = ["q1 Q0 d1 1 2.5 t\n", "q2 Q0 d2 1 1 t\n", "q1 Q0 d3 2 0.5 t\n"]
_IRREGULAR = ["", "\n", " ", "  ", "\t", "\r\n", "# c\n", "# Q0 c 1 1 t\n", "\x00", "\x7f", "\ufeff", "x", "é", "1e400"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6),
    insert=st.lists(st.tuples(st.integers(0, 200), st.sampled_from(_IRREGULAR)), max_size=2),
    cut=st.one_of(st.none(), st.tuples(st.integers(0, 200), st.integers(1, 3))),
    chunk=st.integers(1, 9),
)
def test_a_file_read_from_its_path_equals_the_same_bytes_read_as_a_stream(
    monkeypatch, tmp_path_factory, lines, insert, cut, chunk
):
    """Whatever the bytes (irregular ones put anywhere, bytes cut out, chunk boundaries anywhere), reading a path
    gives the columns, or the error, that loading the same bytes gives."""
    monkeypatch.setattr(formats, "_SCAN_CHUNK", chunk)  # the same patch for every example
    text = "".join(lines)
    for at, piece in insert:
        at = min(at, len(text))
        text = text[:at] + piece + text[at:]
    if cut is not None:  # a field cut short or lost: "q1  d1 ..." has six fields, one of them empty
        text = text[: cut[0]] + text[cut[0] + cut[1] :]
    data = text.encode("utf-8")
    path = tmp_path_factory.mktemp("fast") / "run"
    path.write_bytes(data)
    outcomes = []
    for source in (path, io.BytesIO(data)):
        try:
            columns = formats.read_columns(source, formats.RUN, skip=("rank",))
            outcomes.append(
                (
                    {k: v.tolist() for k, v in columns.fields.items()},
                    [columns.line_no(r) for r in range(len(columns))],
                )
            )
        except InputError as error:
            outcomes.append((error.message, error.line_no, error.line))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("chunk", range(1, 20))
def test_an_empty_field_is_found_across_a_chunk_boundary(monkeypatch, tmp_path, chunk):
    """Two spaces where a field is missing keep the number of fields (Arrow would read an empty id): the
    check for empty fields finds them wherever the chunks end."""
    path = write(tmp_path, "run", "q1 Q0 d1 1 2.5 t\nq1  d2 1 1.5 t\n")
    monkeypatch.setattr(formats, "_SCAN_CHUNK", chunk)
    with pytest.raises(InputError) as info:
        formats.read_columns(path, formats.RUN)
    assert_error(info.value, path, 2, "q1  d2 1 1.5 t", "5 fields instead of 6")


def test_a_regular_file_is_never_held_whole_in_memory(monkeypatch, tmp_path):
    path = write(tmp_path, "run", "".join(_PIECES) * 50)
    monkeypatch.setattr(formats, "_SCAN_CHUNK", 64)
    monkeypatch.setattr(formats, "load", lambda source: pytest.fail("a regular file was loaded whole"))
    assert len(formats.read_columns(path, formats.RUN)) == 150


@pytest.mark.parametrize("name", ["run.gz", "run.bz2"])
def test_a_plain_file_named_like_a_compressed_one_is_read_as_it_is(tmp_path, name):
    path = write(tmp_path, name, "".join(_PIECES))
    assert formats.read_columns(path, formats.RUN).fields["doc_id"].to_pylist() == ["d1", "d2", "d3"]
