"""A file's bytes and data lines: :class:`~ir_pref_measures.parsing.files.FileLines` quotes the lines of a file parsed
from its path as :func:`~ir_pref_measures.parsing.files.load` reads them (gzip, CRLF), and the columns a reader hands
the model quote a bad line through it: the model reads no file."""

from __future__ import annotations

import gzip

import pytest

from ir_pref_measures.errors import InputError
from ir_pref_measures.loading import sources
from ir_pref_measures.model.columns import Columns
from ir_pref_measures.parsing.files import FileLines, load

LINES = ["q1 Q0 a 1 2.5 t", "q1 Q0 b 2 1.5 t", "q1 Q0 a 3 0.5 t"]


@pytest.mark.parametrize("kind", ["plain", "crlf", "gzip"])
def test_file_lines_quote_a_line_as_load_reads_it(kind, tmp_path):
    path = tmp_path / "run"
    data = ("\r\n" if kind == "crlf" else "\n").join(LINES).encode() + b"\n"
    path.write_bytes(gzip.compress(data) if kind == "gzip" else data)
    quoted = FileLines(str(path))
    assert [quoted.line(n) for n in (1, 2, 3)] == [load(path).line(n) for n in (1, 2, 3)] == LINES


def test_a_run_parsed_from_its_path_quotes_its_repeated_line(tmp_path):
    path = tmp_path / "run"
    path.write_text("\n".join(LINES) + "\n")
    with pytest.raises(InputError) as error:
        sources.ranking(str(path))
    assert error.value.line_no == 3 and error.value.line == LINES[2]


def test_the_columns_of_a_table_quote_no_line():
    assert Columns("<table>", {}, None).line(1) is None
