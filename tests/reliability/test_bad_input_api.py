"""Every input path keeps the rules (issue 27: items 6, 7, 10a and the grades of 4).

* **Ids** (6): control characters C0 and C1 (U+0000-U+001F but tab and line ends, U+007F-U+009F) are errors naming
  the file and line (or the column and row); fields are separated by ASCII tabs and spaces only, so any other
  Unicode space (no-break space, U+2000-U+200A, U+3000, U+2028, U+2029) is an ordinary character of an id, read
  alike by every format reader, command and in-memory form.
* **In-memory inputs** (7): DataFrames (ir_measures' and PyTerrier's columns), dicts and namedtuples at every entry
  point; ids and numbers by one stated rule (:func:`ir_pref_measures.model.ids.as_text`,
  :func:`ir_pref_measures.model.tables.numbers`); anything else an ``InputError`` naming the column and the row.
* **Grades** (4): a grade int64 cannot hold stays a float (no RuntimeWarning, no wrong value); preference measures
  take any finite grade; an integer float64 cannot hold exactly is an error.
* **Two graded sources** (10a): each derives its own preferences, and their union is taken.

Each case checks the clean result (equal to the result of the equivalent clean input) or the clean error.
"""

from __future__ import annotations

import gzip
import json
import math
import re
import warnings
from collections import namedtuple
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from conftest import data_path, run_cli

import ir_pref_measures as ipm
from ir_pref_measures.errors import InputError
from ir_pref_measures.loading import sources
from ir_pref_measures.loading.groups import read_judgments
from ir_pref_measures.model.columns import integer_grades
from ir_pref_measures.model.judgments import Judgments, combine
from ir_pref_measures.parsing import files, formats, preferences

# -- the clean inputs: two queries, no score ties (so that renaming a doc changes no result) --------------------------

QRELS = [("q1", "a", 3), ("q1", "b", 2), ("q1", "c", 1), ("q1", "d", 0), ("q2", "a", 1), ("q2", "e", 0), ("q2", "f", 2)]
RUN_1 = [("q1", "b", 4.0), ("q1", "a", 3.0), ("q1", "d", 2.0), ("q1", "c", 1.0), ("q2", "f", 3.0), ("q2", "a", 2.0)]
RUN_2 = [("q1", "d", 4.5), ("q1", "c", 3.5), ("q1", "a", 2.5), ("q1", "b", 1.5), ("q2", "e", 3.0), ("q2", "f", 0.5)]
RUN_3 = [("q1", "c", 9.0), ("q1", "b", 8.0), ("q1", "a", 7.0), ("q2", "a", 6.0), ("q2", "f", 5.0), ("q2", "e", 4.0)]
PAIRS = [("q1", "a", "b"), ("q1", "b", "c"), ("q1", "a", "d"), ("q2", "f", "a"), ("q2", "a", "e")]
MEASURES = [ipm.ppref @ 10, ipm.APpref, ipm.PGC, ipm.rpref @ 3, ipm.nwppref @ 5]
QREL_COLUMNS = ["query_id", "doc_id", "relevance"]
RUN_COLUMNS = ["query_id", "doc_id", "score"]
PREF_COLUMNS = ["query_id", "doc_id_a", "doc_id_b", "preference"]

Qrel = namedtuple("Qrel", QREL_COLUMNS)
ScoredDoc = namedtuple("ScoredDoc", RUN_COLUMNS)
Pref = namedtuple("Pref", PREF_COLUMNS)

UNICODE_SPACES = {
    "nbsp": "\xa0",
    "en_quad": "\u2000",
    "hair_space": "\u200a",
    "ideographic_space": "\u3000",
    "line_separator": "\u2028",
    "paragraph_separator": "\u2029",
    "narrow_nbsp": "\u202f",
    "zero_width_nbsp": "\ufeff",
}
C1 = {"u0080": "\x80", "nel_u0085": "\x85", "u009f": "\x9f", "u008d": "\x8d"}
C0 = {"nul": "\x00", "file_separator": "\x1c", "group_separator": "\x1d", "record_separator": "\x1e", "del": "\x7f"}
CONTROLS = {**C1, **C0}


def renamed(rows: list[tuple], old: str, new: str) -> list[tuple]:
    return [tuple(new if value == old else value for value in row) for row in rows]


def qrels_frame(rows=QRELS) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=QREL_COLUMNS)


def run_frame(rows=RUN_1) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=RUN_COLUMNS)


def values(qrels, run, measures=MEASURES) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {str(m): v for m, v in ir_measures.calc_aggregate(measures, qrels, run).items()}


CLEAN = None


def clean_values() -> dict:
    global CLEAN
    if CLEAN is None:
        CLEAN = values(qrels_frame(), run_frame())
    return CLEAN


# -- files ------------------------------------------------------------------------------------------------------------


def qrels_text(rows=QRELS) -> str:
    return "".join(f"{q} 0 {d} {g}\n" for q, d, g in rows)


def run_text(rows=RUN_1, tag="tag") -> str:
    ranked = sorted(rows, key=lambda r: (r[0], -r[2]))
    return "".join(f"{q} Q0 {d} {i} {s} {tag}\n" for i, (q, d, s) in enumerate(ranked, 1))


def pairs_text(rows=PAIRS) -> str:
    return "".join(f"{q} {w} {lo}\n" for q, w, lo in rows)


def carterette_text(rows=PAIRS) -> str:
    return "".join(f"{q} {w} {lo} -1\n" for q, w, lo in rows)


def winner_text(rows=PAIRS) -> str:
    return "".join(f"{q} {lo} {w} {w}\n" for q, w, lo in rows)


def prefs_text(rows=QRELS) -> str:  # trec_eval's prefs: one judgment group, one sub-group per query
    return "".join(f"{q} g1 s1 {d} {g}\n" for q, d, g in rows)


def write(folder: Path, name: str, text: str, *, gz: bool = False) -> str:
    path = folder / name
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    return str(path)


def check_cli_error(out: str, err: str, status: int, path: str, line: int | None) -> None:
    assert status == 2, f"exit status {status}: {err[:300]}"
    assert out == "", f"output before the error: {out[:200]!r}"
    assert "Traceback" not in err
    first = err.splitlines()[0]
    assert path in first, f"the message does not name {path}: {err!r}"
    if line is not None:
        assert re.search(re.escape(path) + rf":{line}(?!\d)", first), f"no {path}:{line} in {err!r}"
    assert len(err.splitlines()) <= 3, f"more than one message: {err!r}"


def check_api_error(call, *words: str) -> InputError:
    """``call()`` raises InputError (no other exception type) whose message holds every one of ``words``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InputError) as caught:
            call()
    message = str(caught.value)
    for word in words:
        assert word in message, f"{word!r} is not in the message {message!r}"
    return caught.value


# == 6. ids: Unicode spaces are id characters, in every reader ========================================================

WEIRD = "b{}x"  # the doc "b" renamed, a Unicode space inside


@pytest.mark.parametrize("char", UNICODE_SPACES.values(), ids=UNICODE_SPACES.keys())
def test_every_file_reader_keeps_a_unicode_space_inside_an_id(char, tmp_path):
    doc = WEIRD.format(char)
    qrels = renamed(QRELS, "b", doc)
    pairs = renamed(PAIRS, "b", doc)
    readers = {
        "qrels": (qrels_text(qrels), lambda p: formats.read_qrels(p)["doc_id"]),
        "run": (run_text(renamed(RUN_1, "b", doc)), lambda p: formats.read_run(p)["doc_id"]),
        "pairs": (pairs_text(pairs), lambda p: preferences.read_preferences(p, "pairs")["doc_id_a"]),
        "carterette": (carterette_text(pairs), lambda p: preferences.read_preferences(p, "carterette")["doc_id_b"]),
        "winner": (winner_text(pairs), lambda p: preferences.read_preferences(p, "winner")["doc_id_a"]),
        "prefs": (prefs_text(qrels), lambda p: read_judgments(p, "prefs")["doc_id"]),
        "qrels_prefs": (qrels_text(qrels), lambda p: read_judgments(p, "qrels_prefs")["doc_id"]),
    }
    for name, (text, read) in readers.items():
        for variant, content in (
            ("single", text),
            ("tabs", text.replace(" ", "\t")),
            ("runs", text.replace(" ", "  ")),
        ):
            path = write(tmp_path, f"{name}_{variant}", content)
            assert doc in set(read(path).astype(str)), f"{name} ({variant}) lost the id {doc!r}"
    for name in ("pairs", "carterette", "winner", "qrels"):
        for variant in ("single", "tabs", "runs"):
            assert preferences.detect_format(str(tmp_path / f"{name}_{variant}")) == name


def _files(folder: Path, doc: str = "b") -> dict[str, str]:
    folder.mkdir(exist_ok=True)
    return {
        "qrels": write(folder, "qrels", qrels_text(renamed(QRELS, "b", doc))),
        "fqrels": write(folder, "fqrels", qrels_text([(q, d, g + 0.5) for q, d, g in renamed(QRELS, "b", doc)])),
        "run1": write(folder, "run1", run_text(renamed(RUN_1, "b", doc), "one")),
        "run2": write(folder, "run2", run_text(renamed(RUN_2, "b", doc), "two")),
        "run3": write(folder, "run3", run_text(renamed(RUN_3, "b", doc), "three")),
        "pairs": write(folder, "pairs", pairs_text(renamed(PAIRS, "b", doc))),
        "carterette": write(folder, "carterette", carterette_text(renamed(PAIRS, "b", doc))),
        "winner": write(folder, "winner", winner_text(renamed(PAIRS, "b", doc))),
        "prefs": write(folder, "prefs", prefs_text(renamed(QRELS, "b", doc))),
    }


COMMANDS = {
    "eval": ["eval", "-q", "{qrels}", "{run1}", "ppref@10", "APpref", "PGC", "nDCG@10"],
    "eval_pairs": ["eval", "-", "{run1}", "ppref@10", "APpref", "--prefs", "{pairs}", "--prefs-format", "pairs"],
    "eval_pairs_detected": ["eval", "-", "{run1}", "ppref@10", "--prefs", "{pairs}"],
    "eval_carterette": ["eval", "-", "{run1}", "ppref@10", "--prefs", "{carterette}", "--prefs-format", "carterette"],
    "eval_winner": ["eval", "{qrels}", "{run1}", "ppref@10", "--prefs", "{winner}", "--prefs-format", "winner"],
    "eval_prefix": ["eval", "pairs:{pairs}", "{run1}", "ppref@10"],
    "experiment": ["experiment", "{qrels}", "{run1}", "{run2}", "-m", "nDCG@10", "ppref@10", "rpp"],
    "experiment_prefs": ["experiment", "{qrels}", "{run1}", "{run2}", "--prefs", "{pairs}", "-m", "ppref@10"],
    "compare": ["compare", "-R", "{qrels}", "-q", "{run1}", "{run2}"],
    "meta_runs": ["meta", "runs", "-j", "{qrels}", "{run1}", "{run2}", "{run3}", "-m", "nDCG@10", "ppref@10"],
    "pairwise_pref_eval": ["pairwise-pref-eval", "-q", "{carterette}", "{run1}"],
    "greedy_pgc": ["greedy-pgc", "{pairs}", "{run1}"],
    "compatibility": ["compatibility", "{fqrels}", "{run1}"],
    "trec_eval_prefs": ["trec-eval", "-q", "-R", "prefs", "{prefs}", "{run1}"],
    "trec_eval_qrels_prefs": ["trec-eval", "-R", "qrels_prefs", "{qrels}", "{run1}"],
}


@pytest.fixture(scope="module")
def clean_cli(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("clean")
    paths = _files(folder / "in")
    outputs = {}
    for name, argv in COMMANDS.items():
        out, err, status = run_cli([a.format(**paths) for a in argv])
        assert status == 0 and out, f"{name} fails on the clean files: {err}"
        outputs[name] = out.replace(str(folder / "in"), "<DIR>")
    return outputs


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    "char", ["\xa0", "\u3000", "\u2028", "\u2029", "\u2000"], ids=["nbsp", "u3000", "u2028", "u2029", "u2000"]
)
def test_every_command_reads_a_unicode_space_as_part_of_an_id(command, char, clean_cli, tmp_path):
    """The doc 'b' renamed 'b<space>x' (no tie in any run, so its name changes no value): the same output."""
    paths = _files(tmp_path / "in", WEIRD.format(char))
    out, err, status = run_cli([a.format(**paths) for a in COMMANDS[command]])
    assert status == 0, f"{command} refuses an id with U+{ord(char):04X}: {err}"
    assert out.replace(str(tmp_path / "in"), "<DIR>") == clean_cli[command]


@pytest.mark.parametrize("form", ["frame", "dict", "namedtuples", "pyterrier"])
@pytest.mark.parametrize("char", UNICODE_SPACES.values(), ids=UNICODE_SPACES.keys())
def test_in_memory_ids_with_unicode_spaces_equal_the_files(char, form, tmp_path):
    doc = WEIRD.format(char)
    qrels, run = renamed(QRELS, "b", doc), renamed(RUN_1, "b", doc)
    qrels_in, run_in = _form(qrels, QREL_COLUMNS, form), _form(run, RUN_COLUMNS, form)
    from_files = values(
        ipm.load_judgments(write(tmp_path, "q", qrels_text(qrels))), ipm.as_ranking(write(tmp_path, "r", run_text(run)))
    )
    judgments = sources.judgments(qrels_in)
    assert doc in set(judgments.doc_ids)
    assert values(judgments, sources.ranking(run_in)) == from_files == clean_values()


def _form(rows: list[tuple], columns: list[str], form: str):
    if form == "frame":
        return pd.DataFrame(rows, columns=columns)
    if form == "pyterrier":
        names = {"query_id": "qid", "doc_id": "docno", "relevance": "label"}
        return pd.DataFrame(rows, columns=[names.get(c, c) for c in columns])
    if form == "dict":
        out: dict = {}
        for q, d, v in rows:
            out.setdefault(q, {})[d] = v
        return out
    record = Qrel if columns == QREL_COLUMNS else ScoredDoc
    return [record(*row) for row in rows]


# == 6. ids: control characters C0 and C1 are errors, in files (file and line) ========================================

FILE_SLOTS = {  # command, the slot whose file is broken, the row of QRELS / RUN_1 / PAIRS that carries the bad char
    "eval-qrels": ("eval", "qrels"),
    "eval-run": ("eval", "run1"),
    "eval_pairs-pairs": ("eval_pairs", "pairs"),
    "eval_pairs_detected-pairs": ("eval_pairs_detected", "pairs"),
    "eval_carterette-carterette": ("eval_carterette", "carterette"),
    "eval_winner-winner": ("eval_winner", "winner"),
    "experiment-qrels": ("experiment", "qrels"),
    "experiment_prefs-pairs": ("experiment_prefs", "pairs"),
    "compare-qrels": ("compare", "qrels"),
    "compare-run": ("compare", "run2"),
    "meta_runs-run": ("meta_runs", "run3"),
    "pairwise_pref_eval-carterette": ("pairwise_pref_eval", "carterette"),
    "pairwise_pref_eval-run": ("pairwise_pref_eval", "run1"),
    "greedy_pgc-pairs": ("greedy_pgc", "pairs"),
    "compatibility-fqrels": ("compatibility", "fqrels"),
    "trec_eval_prefs-prefs": ("trec_eval_prefs", "prefs"),
    "trec_eval_qrels_prefs-qrels": ("trec_eval_qrels_prefs", "qrels"),
}


DOC_FIELD = {"qrels": 2, "fqrels": 2, "run": 2, "prefs": 3, "pairs": 1, "carterette": 1, "winner": 1}


@pytest.mark.parametrize("layout", ["single", "tabs", "gzip"])
@pytest.mark.parametrize("char", CONTROLS.values(), ids=CONTROLS.keys())
@pytest.mark.parametrize("case", FILE_SLOTS)
def test_a_control_character_in_a_file_is_an_error_naming_file_and_line(case, char, layout, tmp_path):
    command, slot = FILE_SLOTS[case]
    paths = _files(tmp_path)
    lines = Path(paths[slot]).read_text().splitlines(keepends=True)
    bad = 3  # the 0-based line that gets the character, in its doc id
    fields = lines[bad].split(" ")
    fields[DOC_FIELD[slot.rstrip("123")]] += char
    lines[bad] = " ".join(fields)
    text = "".join(lines)
    if layout == "tabs":
        text = text.replace(" ", "\t")
    paths[slot] = write(tmp_path, slot + ("_gz" if layout == "gzip" else "_bad"), text, gz=layout == "gzip")
    out, err, status = run_cli([a.format(**paths) for a in COMMANDS[command]])
    check_cli_error(out, err, status, paths[slot], bad + 1)
    assert f"U+{ord(char):04X}" in err


@pytest.mark.parametrize("char", C1.values(), ids=C1.keys())
@pytest.mark.parametrize("reader", ["qrels", "run", "pairs", "carterette", "winner", "detect", "prefs", "qrels_prefs"])
def test_every_reader_refuses_c1(reader, char, tmp_path):
    doc = "b" + char
    texts = {
        "qrels": qrels_text(renamed(QRELS, "b", doc)),
        "run": run_text(renamed(RUN_1, "b", doc)),
        "pairs": pairs_text(renamed(PAIRS, "b", doc)),
        "carterette": carterette_text(renamed(PAIRS, "b", doc)),
        "winner": winner_text(renamed(PAIRS, "b", doc)),
        "detect": pairs_text(renamed(PAIRS, "b", doc)),
        "prefs": prefs_text(renamed(QRELS, "b", doc)),
        "qrels_prefs": qrels_text(renamed(QRELS, "b", doc)),
    }
    path = write(tmp_path, reader, texts[reader])
    read = {
        "qrels": formats.read_qrels,
        "run": formats.read_run,
        "pairs": lambda p: preferences.read_preferences(p, "pairs"),
        "carterette": lambda p: preferences.read_preferences(p, "carterette"),
        "winner": lambda p: preferences.read_preferences(p, "winner"),
        "detect": preferences.detect_format,
        "prefs": lambda p: read_judgments(p, "prefs"),
        "qrels_prefs": lambda p: read_judgments(p, "qrels_prefs"),
    }[reader]
    error = check_api_error(lambda: read(path), f"U+{ord(char):04X}")
    assert error.path == path and error.line_no is not None
    with open(path, "rb") as handle:  # a stream: the same error
        check_api_error(lambda: read(handle), f"U+{ord(char):04X}")


@pytest.mark.parametrize("offset", [-2, -1, 0, 1, 2])
@pytest.mark.parametrize("layout", ["regular", "tabs"])
def test_c1_across_a_chunk_boundary(offset, layout, tmp_path):
    """The fast path checks a regular file in chunks of 1 MiB (numpy), the loaded path in chunks too: a C1 character
    whose two UTF-8 bytes (C2 85) fall on both sides of a chunk boundary is found."""
    chunk = formats._SCAN_CHUNK if layout == "regular" else files._CONTROL_CHUNK
    sep = " " if layout == "regular" else "\t"
    lines = []
    size = 0
    while size < chunk - 300:
        lines.append(f"q1{sep}Q0{sep}d{len(lines):07d}{sep}1{sep}1.5{sep}t\n")
        size += len(lines[-1])
    start = f"q1{sep}Q0{sep}"
    doc = "y" * (chunk + offset - size - len(start))  # the C2 byte at chunk + offset
    data = ("".join(lines) + f"{start}{doc}\x85{sep}1{sep}1.5{sep}t\nq1{sep}Q0{sep}z{sep}1{sep}1{sep}t\n").encode()
    assert data.index(b"\xc2\x85") == chunk + offset
    path = tmp_path / "run"
    path.write_bytes(data)
    error = check_api_error(lambda: formats.read_run(str(path)), "U+0085")
    assert error.line_no == len(lines) + 1


def test_c1_bytes_that_are_not_a_c1_character_are_text(tmp_path):
    """U+00A0-U+00FF (C2 A0-BF, C3 ...) are not control characters."""
    ids = ["b\xa0", "b\xa9", "b\xbf", "b\xc0", "b\xff", "b\u0100"]
    rows = [("q1", doc, float(i)) for i, doc in enumerate(ids)]
    frame = formats.read_run(write(tmp_path, "run", run_text(rows)))
    assert sorted(frame["doc_id"].astype(str)) == sorted(ids)


# == 6. ids: control characters in memory (column and row) ============================================================


@pytest.mark.parametrize("form", ["frame", "dict", "namedtuples", "pyterrier"])
@pytest.mark.parametrize("char", CONTROLS.values(), ids=CONTROLS.keys())
@pytest.mark.parametrize("column", ["query_id", "doc_id"])
def test_a_control_character_in_memory_names_column_and_row(column, char, form):
    """Rows are positions: a dict's rows are its (query, doc) items in order."""
    index = 2
    shown = {"query_id": "qid", "doc_id": "docno"}[column] if form == "pyterrier" else column
    qrels = list(QRELS)
    q, d, g = qrels[index]
    qrels[index] = (q + char, d, g) if column == "query_id" else (q, d + char, g)
    bad = qrels[index][0] if column == "query_id" else qrels[index][1]
    flattened = [(q, d) for q, docs in _form(qrels, QREL_COLUMNS, "dict").items() for d in docs]
    row = f"row {[bad in pair for pair in flattened].index(True) if form == 'dict' else index}:"
    for call in (
        lambda: ipm.load_judgments(_form(qrels, QREL_COLUMNS, form)),
        lambda: Judgments.from_qrels(_form(qrels, QREL_COLUMNS, form)),
        lambda: values(_form(qrels, QREL_COLUMNS, form), run_frame()),
        lambda: ipm.Experiment([run_frame()], _form(qrels, QREL_COLUMNS, form), ["ppref@10"]),
        lambda: ipm.compare({"a": run_frame(), "b": run_frame(RUN_2)}, _form(qrels, QREL_COLUMNS, form)),
    ):
        check_api_error(call, "control character", shown, row)
    run = list(RUN_1)
    q, d, s_ = run[index]
    run[index] = (q + char, d, s_) if column == "query_id" else (q, d + char, s_)
    for call in (
        lambda: ipm.as_ranking(_form(run, RUN_COLUMNS, form)),
        lambda: values(qrels_frame(), _form(run, RUN_COLUMNS, form)),
        lambda: ipm.Experiment([_form(run, RUN_COLUMNS, form)], qrels_frame(), ["ppref@10"]),
        lambda: ipm.compare({"a": _form(run, RUN_COLUMNS, form), "b": run_frame(RUN_2)}, qrels_frame()),
    ):
        check_api_error(call, "control character", shown, row)


@pytest.mark.parametrize("char", CONTROLS.values(), ids=CONTROLS.keys())
@pytest.mark.parametrize("column", ["query_id", "doc_id_a", "doc_id_b"])
def test_a_control_character_in_a_preference_table(column, char):
    frame = pd.DataFrame([(q, a, b, -1) for q, a, b in PAIRS], columns=PREF_COLUMNS)
    frame.loc[3, column] = frame.loc[3, column] + char
    for call in (
        lambda: ipm.load_judgments(frame),
        lambda: Judgments.from_preferences(frame),
        lambda: ipm.load_judgments([Pref(*row) for row in frame.itertuples(index=False)]),
        lambda: ipm.Experiment([run_frame()], frame, ["ppref@10"]),
    ):
        check_api_error(call, "control character", column, "row 3")


@pytest.mark.parametrize("char", UNICODE_SPACES.values(), ids=UNICODE_SPACES.keys())
def test_a_preference_table_with_unicode_spaces_equals_its_file(char, tmp_path):
    pairs = renamed(PAIRS, "b", WEIRD.format(char))
    frame = pd.DataFrame([(q, a, b, -1) for q, a, b in pairs], columns=PREF_COLUMNS)
    run = run_frame(renamed(RUN_1, "b", WEIRD.format(char)))
    from_file = values(ipm.load_judgments(write(tmp_path, "p", pairs_text(pairs)), format="pairs"), run)
    assert values(ipm.load_judgments(frame), run) == from_file
    clean = pd.DataFrame([(q, a, b, -1) for q, a, b in PAIRS], columns=PREF_COLUMNS)
    assert from_file == values(ipm.load_judgments(clean), run_frame())


# == 7. ids in memory: one rule for every type ========================================================================


def _id_column(values_: list, dtype=None) -> pd.Series:
    return pd.Series(values_, dtype=dtype)


def _qrels_with_query_ids(ids: pd.Series) -> pd.DataFrame:
    """QRELS with q1 and q2 replaced by ``ids[0]`` and ``ids[1]`` (a column of that type)."""
    mapping = {"q1": 0, "q2": 1}
    frame = qrels_frame()
    column = ids.iloc[[mapping[q] for q in frame["query_id"]]].reset_index(drop=True)
    return frame.assign(query_id=column)


VALID_IDS = {  # name: (the column of two query ids, their text by the rule)
    "int64": (pd.Series([7, 8]), ["7", "8"]),
    "int32": (pd.Series([7, 8], dtype=np.int32), ["7", "8"]),
    "uint64_above_int64": (pd.Series(np.array([2**63, 2**64 - 1], dtype=np.uint64)), [str(2**63), str(2**64 - 1)]),
    "python_int_above_2_64": (pd.Series([2**70, 2**64], dtype=object), [str(2**70), str(2**64)]),
    "python_int_huge": (pd.Series([10**30 + 1, -(10**25)], dtype=object), [str(10**30 + 1), str(-(10**25))]),
    "python_int_5000_digits": (pd.Series([10**5000, 3], dtype=object), ["1" + "0" * 5000, "3"]),
    "nullable_Int64": (pd.Series([7, 8], dtype="Int64"), ["7", "8"]),
    "arrow_int64": (pd.Series([7, 8], dtype="int64[pyarrow]"), ["7", "8"]),
    "float_integral": (pd.Series([7.0, 8.0]), ["7", "8"]),
    "float_fraction": (pd.Series([7.5, 0.25]), ["7.5", "0.25"]),
    "float_large_integral": (pd.Series([1e20, 8.0]), [str(10**20), "8"]),
    "Float64": (pd.Series([7.0, 8.5], dtype="Float64"), ["7", "8.5"]),
    "object_mixed_int_str": (pd.Series([7, "q2"], dtype=object), ["7", "q2"]),
    "object_mixed_float_str": (pd.Series([7.0, "q2"], dtype=object), ["7", "q2"]),
    "object_numpy_scalars": (pd.Series([np.int64(7), np.float32(8.0)], dtype=object), ["7", "8"]),
    "object_str": (pd.Series(["q1", "q2"], dtype=object), ["q1", "q2"]),
    "string_pyarrow": (pd.Series(["q1", "q2"], dtype="string[pyarrow]"), ["q1", "q2"]),
    "string_python": (pd.Series(["q1", "q2"], dtype="string[python]"), ["q1", "q2"]),
    "str": (pd.Series(["q1", "q2"], dtype="str"), ["q1", "q2"]),
    "category_str": (pd.Series(["q1", "q2"], dtype="category"), ["q1", "q2"]),
    "category_int": (pd.Series([7, 8], dtype="category"), ["7", "8"]),
    "bytes": (pd.Series([b"q1", b"q2"], dtype=object), ["q1", "q2"]),
    "bytes_mixed_with_str": (pd.Series([b"q1", "q2"], dtype=object), ["q1", "q2"]),
    "numpy_bytes": (pd.Series(np.array([b"q1", b"q2"])), ["q1", "q2"]),
    "unicode_text": (pd.Series(["q\u00e9", "\u6587\u6863"], dtype=object), ["q\u00e9", "\u6587\u6863"]),
}


@pytest.mark.parametrize("case", VALID_IDS)
def test_valid_id_types_become_their_text(case, tmp_path):
    column, texts = VALID_IDS[case]
    qrels = _qrels_with_query_ids(column)
    judgments = ipm.load_judgments(qrels)
    assert sorted(judgments.query_ids.tolist()) == sorted(texts)
    # the same ids as text, in a file and in a run frame: the values of the clean input
    text_rows = renamed(renamed(QRELS, "q1", texts[0]), "q2", texts[1])
    run_rows = renamed(renamed(RUN_1, "q1", texts[0]), "q2", texts[1])
    run = ipm.as_ranking(write(tmp_path, "r", run_text(run_rows)))
    from_file = ipm.load_judgments(write(tmp_path, "q", qrels_text(text_rows)))
    assert values(judgments, run) == values(from_file, run) == clean_values()
    run_typed = run_frame(run_rows).assign(
        query_id=column.iloc[[0 if q == texts[0] else 1 for q, _, _ in run_rows]].reset_index(drop=True)
    )
    assert values(qrels, run_typed) == clean_values()
    experiment = ipm.Experiment([run_typed], qrels, ["ppref@10", "APpref"])
    assert experiment["ppref@10"].iloc[0] == clean_values()["ppref@10"]


def test_integer_ids_of_any_size_match_their_decimal_text(tmp_path):
    """The rule on both sides: an int id is its decimal string, whatever its size or type; so an int qrels matches
    a text run (and a file) with the same digits, and a different number never matches."""
    big = 2**64 + 12345
    qrels = qrels_frame().assign(
        query_id=pd.Series([big if q == "q1" else 5 for q in qrels_frame()["query_id"]], dtype=object)
    )
    run = run_frame().assign(query_id=[str(big) if q == "q1" else "5" for q in run_frame()["query_id"]])
    assert values(qrels, run) == clean_values()
    file_run = write(tmp_path, "r", run_text(renamed(renamed(RUN_1, "q1", str(big)), "q2", "5")))
    assert values(qrels, ipm.as_ranking(file_run)) == clean_values()
    other = run.assign(query_id=run["query_id"].replace({str(big): str(big + 1)}))
    assert values(qrels, other)["ppref@10"] != clean_values()["ppref@10"]  # q1 is no longer in the run
    assert ipm.as_ranking(pd.DataFrame({"query_id": [2**100], "doc_id": [2**65], "score": [1.0]})).doc_ids[0] == str(
        2**65
    )


INVALID_IDS = {  # name: (the column of two query ids, words of the message, the row named)
    "bool": (pd.Series([True, False]), "a boolean", 0),
    "nullable_boolean": (pd.Series([True, False], dtype="boolean"), "a boolean", 0),
    "object_bool": (pd.Series(["q1", True], dtype=object), "a boolean", 4),
    "numpy_bool_in_object": (pd.Series(["q1", np.bool_(True)], dtype=object), "a boolean", 4),
    "none": (pd.Series(["q1", None], dtype=object), "missing", 4),
    "nan": (pd.Series(["q1", math.nan], dtype=object), "missing", 4),
    "float_nan": (pd.Series([1.0, math.nan]), "missing", 4),
    "pd_NA": (pd.Series(["q1", pd.NA], dtype=object), "missing", 4),
    "Int64_NA": (pd.Series([7, pd.NA], dtype="Int64"), "missing", 4),
    "string_NA": (pd.Series(["q1", None], dtype="string[pyarrow]"), "missing", 4),
    "category_NA": (pd.Series(["q1", None], dtype="category"), "missing", 4),
    "inf": (pd.Series([1.0, math.inf]), "not a finite number", 4),
    "bytes_not_utf8": (pd.Series([b"q1", b"\xff"], dtype=object), "not UTF-8", 4),
    "decimal": (pd.Series(["q1", Decimal("2")], dtype=object), "Decimal", 4),
    "fraction": (pd.Series(["q1", Fraction(1, 2)], dtype=object), "Fraction", 4),
    "tuple": (pd.Series(["q1", ("a", 1)], dtype=object), "tuple", 4),
    "datetime": (pd.Series(pd.to_datetime(["2020-01-01", "2020-01-02"])), "datetime", 0),
    "timedelta": (pd.Series(pd.to_timedelta([1, 2], unit="s")), "timedelta", 0),
    "complex": (pd.Series([1 + 1j, 2]), "complex", 0),
    "lone_surrogate": (pd.Series(["q1", "q\udcff"], dtype=object), "surrogate", 4),
    "c1_in_category": (pd.Series(["q1", "q\x85"], dtype="category"), "control character", 4),
}


@pytest.mark.parametrize("case", INVALID_IDS)
def test_invalid_id_types_name_column_and_row(case):
    column, word, row = INVALID_IDS[case]
    qrels = _qrels_with_query_ids(column)
    for call in (
        lambda: ipm.load_judgments(qrels),
        lambda: Judgments.from_qrels(qrels),
        lambda: values(qrels, run_frame()),
        lambda: ipm.Experiment([run_frame()], qrels, ["ppref@10"]),
        lambda: ipm.compare({"a": run_frame(), "b": run_frame(RUN_2)}, qrels),
        lambda: ipm.as_ranking(qrels.rename(columns={"relevance": "score"})),
    ):
        check_api_error(call, "query_id", word, f"row {row}:")


@pytest.mark.parametrize("value", [None, math.nan, True, b"\xfe", Decimal(1), 1.5 + 2j, ("t",)])
def test_bad_ids_in_dicts_and_namedtuples(value):
    check_api_error(lambda: ipm.as_ranking({"q1": {"a": 1.0, value: 2.0}}), "doc_id", "row 1:")
    check_api_error(
        lambda: ipm.as_ranking([ScoredDoc("q1", "a", 1.0), ScoredDoc("q1", value, 2.0)]), "doc_id", "row 1:"
    )
    check_api_error(lambda: ipm.load_judgments([Qrel("q1", "a", 1), Qrel(value, "b", 0)]), "query_id", "row 1:")
    check_api_error(lambda: ipm.load_judgments({"q1": {"a": 1}, value: {"b": 0}}), "query_id", "row 1:")


# == 7. numbers in memory =============================================================================================

VALID_GRADES = {  # name: the relevance column (QRELS' grades 3 2 1 0 1 0 2 in another type)
    "Int64": pd.array([3, 2, 1, 0, 1, 0, 2], dtype="Int64"),
    "Int8": pd.array([3, 2, 1, 0, 1, 0, 2], dtype="Int8"),
    "UInt64": pd.array([3, 2, 1, 0, 1, 0, 2], dtype="UInt64"),
    "Float64": pd.array([3, 2, 1, 0, 1, 0, 2], dtype="Float64"),
    "float32": np.array([3, 2, 1, 0, 1, 0, 2], dtype=np.float32),
    "int8": np.array([3, 2, 1, 0, 1, 0, 2], dtype=np.int8),
    "uint64": np.array([3, 2, 1, 0, 1, 0, 2], dtype=np.uint64),
    "arrow_int": pd.array([3, 2, 1, 0, 1, 0, 2], dtype="int64[pyarrow]"),
    "arrow_double": pd.array([3, 2, 1, 0, 1, 0, 2], dtype="double[pyarrow]"),
    "object_ints": pd.array([3, 2, 1, 0, 1, 0, 2], dtype=object),
    "object_mixed": pd.array([3, 2.0, np.int64(1), 0, np.float32(1), False, 2], dtype=object),
    "object_text_numbers": pd.array(["3", "2", "1.0", "0", "1", "0", "2e0"], dtype=object),
    "string_numbers": pd.array(["3", "2", "1", "0", "1", "0", "2"], dtype="string[pyarrow]"),
    "category": pd.Categorical([3, 2, 1, 0, 1, 0, 2]),
    "decimal_fraction": pd.array([Decimal(3), Fraction(2), 1, 0, 1, 0, 2], dtype=object),
}


@pytest.mark.parametrize("case", VALID_GRADES)
def test_valid_grade_types(case):
    qrels = qrels_frame().assign(relevance=VALID_GRADES[case])
    assert values(qrels, run_frame()) == clean_values()
    assert ipm.Experiment([run_frame()], qrels, ["nDCG@10"])["nDCG@10"].iloc[0] == pytest.approx(
        ipm.Experiment([run_frame()], qrels_frame(), ["nDCG@10"])["nDCG@10"].iloc[0]
    )


def test_boolean_grades_are_one_and_zero():
    binary = qrels_frame().assign(relevance=[True, True, False, False, True, False, True])
    ones = qrels_frame().assign(relevance=[1, 1, 0, 0, 1, 0, 1])
    assert values(binary, run_frame()) == values(ones, run_frame())
    assert (
        ipm.load_judgments(binary).qrels()["relevance"].tolist()
        == ones.sort_values(["query_id", "doc_id"])["relevance"].tolist()
    )


INVALID_GRADES = {  # name: (the value put at row 4, words of the message)
    "none": (None, "missing"),
    "nan": (math.nan, "not a finite number"),
    "pd_NA": (pd.NA, "missing"),
    "inf": (math.inf, "not a finite number"),
    "text": ("high", "not a number"),
    "text_underscore": ("1_0", "not a number"),
    "text_nan": ("nan", "not a number"),
    "text_inf": ("inf", "not a number"),
    "text_empty": ("", "not a number"),
    "complex": (1 + 2j, "not a number"),
    "int_too_large_for_float": (10**400, "not a finite number"),
    "int_not_exact_in_float": (2**53 + 1, "cannot be represented exactly"),
    "int64_max": (2**63 - 1, "cannot be represented exactly"),
    "tuple": ((1,), "not a number"),
    "date": (pd.Timestamp("2020-01-01"), "not a number"),
}


@pytest.mark.parametrize("case", INVALID_GRADES)
def test_invalid_grades_name_column_and_row(case):
    value, word = INVALID_GRADES[case]
    relevance = pd.Series([g for _, _, g in QRELS], dtype=object)
    relevance.iloc[4] = value
    qrels = qrels_frame().assign(relevance=relevance)
    for call in (
        lambda: ipm.load_judgments(qrels),
        lambda: values(qrels, run_frame()),
        lambda: ipm.Experiment([run_frame()], qrels, ["ppref@10"]),
        lambda: ipm.compare({"a": run_frame(), "b": run_frame(RUN_2)}, qrels),
        lambda: ipm.load_judgments([Qrel(*row) for row in qrels.itertuples(index=False)]),
    ):
        check_api_error(call, "relevance", "row 4", word)


@pytest.mark.parametrize("dtype", ["Int64", "Int8", "Float64", "double[pyarrow]", "int64[pyarrow]", "boolean"])
def test_nullable_grades_with_a_missing_value(dtype):
    grades = [True, True, False, False, True, None, True] if dtype == "boolean" else [3, 2, 1, 0, 1, None, 2]
    qrels = qrels_frame().assign(relevance=pd.array(grades, dtype=dtype))
    check_api_error(lambda: ipm.load_judgments(qrels), "relevance", "row 5:", "missing")
    check_api_error(lambda: values(qrels, run_frame()), "relevance", "row 5:")
    check_api_error(lambda: ipm.Experiment([run_frame()], qrels, ["nDCG@10"]), "relevance", "row 5:")


@pytest.mark.parametrize(
    "column",
    [
        pd.array([4, 3, 2, 1, 3, 2], dtype="Float64"),
        np.array([4, 3, 2, 1, 3, 2], dtype=np.float32),
        pd.array([4, 3, 2, 1, 3, 2], dtype="Int64"),
        np.array([4, 3, 2, 1, 3, 2], dtype=np.uint8),
        pd.array(["4", "3", "2", "1", "3", "2.0"], dtype=object),
    ],
    ids=["Float64", "float32", "Int64", "uint8", "text"],
)
def test_valid_score_types(column):
    run = run_frame().assign(score=column)
    assert values(qrels_frame(), run) == clean_values()


@pytest.mark.parametrize("value", [None, math.nan, pd.NA, math.inf, -math.inf, "x", True + 0j, 10**400])
def test_invalid_scores_name_column_and_row(value):
    score = pd.Series([s for _, _, s in RUN_1], dtype=object)
    score.iloc[3] = value
    run = run_frame().assign(score=score)
    for call in (
        lambda: ipm.as_ranking(run),
        lambda: values(qrels_frame(), run),
        lambda: ipm.Experiment([run], qrels_frame(), ["ppref@10"]),
        lambda: ipm.compare({"a": run, "b": run_frame(RUN_2)}, qrels_frame()),
    ):
        check_api_error(call, "score", "row 3")


def test_scores_beyond_int64_are_floats():
    run = run_frame().assign(score=pd.Series([2**70, 2**69, 2**68, 2**67, 2**66, 2**65], dtype=object))
    assert values(qrels_frame(), run) == clean_values()
    run = run_frame().assign(score=np.array([2**63 + 5, 2**63 + 4, 2**63 + 3, 2**63, 10, 1], dtype=np.uint64))
    ranking = ipm.as_ranking(run)
    assert ranking.scores.dtype == np.float64 and (ranking.scores > 0).all()


@pytest.mark.parametrize("value", [True, 1.5, "x", None, 3])
def test_bad_preference_values(value):
    prefs = pd.DataFrame([(q, a, b, -1) for q, a, b in PAIRS], columns=PREF_COLUMNS)
    prefs["preference"] = prefs["preference"].astype(object)
    prefs.loc[2, "preference"] = value
    if value is True:  # a boolean is 1: "b preferred", a valid value
        judgments = ipm.load_judgments(prefs)
        assert len(judgments.edge_src) == len(PAIRS)
        return
    check_api_error(lambda: ipm.load_judgments(prefs), "row 2")


# == 7. the shape of a table ==========================================================================================


def _entry_points(qrels=None, run=None):
    qrels = qrels_frame() if qrels is None else qrels
    run = run_frame() if run is None else run
    return {
        "load_judgments": lambda: ipm.load_judgments(qrels),
        "from_qrels": lambda: Judgments.from_qrels(qrels),
        "load_combined": lambda: ipm.load_combined(qrels, None),
        "calc_aggregate": lambda: values(qrels, run),
        "iter_calc": lambda: list(ir_measures.iter_calc([ipm.ppref @ 10], qrels, run)),
        "compare": lambda: ipm.compare({"a": run, "b": run_frame(RUN_2)}, qrels),
        "experiment": lambda: ipm.Experiment([run], qrels, ["ppref@10", "nDCG@10"]),
        "experiment_sets": lambda: ipm.Experiment([run], {"x": qrels}, ["x:ppref@10"]),
        "as_ranking": lambda: ipm.as_ranking(run),
    }


def _duplicated(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    out = pd.concat([frame, frame[[column]]], axis=1)
    return out


@pytest.mark.parametrize("column", ["query_id", "doc_id", "relevance"])
def test_a_duplicated_qrels_column(column):
    qrels = _duplicated(qrels_frame(), column)
    for name, call in _entry_points(qrels=qrels).items():
        if name == "as_ranking":
            continue
        check_api_error(call, f"2 columns named {column!r}")


@pytest.mark.parametrize("column", ["query_id", "doc_id", "score"])
def test_a_duplicated_run_column(column):
    run = _duplicated(run_frame(), column)
    for name, call in _entry_points(run=run).items():
        if name in ("load_judgments", "from_qrels", "load_combined"):
            continue
        check_api_error(call, f"2 columns named {column!r}")


def test_a_duplicated_pyterrier_column():
    qrels = qrels_frame().rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    qrels = pd.concat([qrels, qrels[["docno"]]], axis=1)
    check_api_error(lambda: ipm.load_judgments(qrels), "2 columns named 'doc_id'")


def test_a_duplicated_preference_column():
    prefs = pd.DataFrame([(q, a, b, -1) for q, a, b in PAIRS], columns=PREF_COLUMNS)
    prefs = pd.concat([prefs, prefs[["doc_id_b"]]], axis=1)
    check_api_error(lambda: ipm.load_judgments(prefs), "2 columns named 'doc_id_b'")
    check_api_error(lambda: Judgments.from_preferences(prefs), "2 columns named 'doc_id_b'")


def test_multiindex_columns():
    qrels = qrels_frame()
    qrels.columns = pd.MultiIndex.from_tuples([(c, "") for c in QREL_COLUMNS])
    run = run_frame()
    run.columns = pd.MultiIndex.from_tuples([(c, "x") for c in RUN_COLUMNS])
    for name, call in _entry_points(qrels=qrels).items():
        if name != "as_ranking":
            check_api_error(call, "MultiIndex")
    for name, call in _entry_points(run=run).items():
        if name not in ("load_judgments", "from_qrels", "load_combined"):
            check_api_error(call, "MultiIndex")


def test_empty_frames():
    for name, call in _entry_points(qrels=qrels_frame().iloc[:0]).items():
        if name != "as_ranking":
            check_api_error(call, "empty")
    for name, call in _entry_points(run=run_frame().iloc[:0]).items():
        if name not in ("load_judgments", "from_qrels", "load_combined"):
            check_api_error(call, "empty")
    check_api_error(lambda: ipm.load_judgments(pd.DataFrame()), "no column")
    check_api_error(lambda: ipm.load_judgments({}), "empty")
    check_api_error(lambda: ipm.load_judgments([]), "empty")
    check_api_error(lambda: ipm.as_ranking({"q1": {}}), "empty")


def test_extra_columns_other_indexes_and_pyterrier_names_are_accepted():
    clean = clean_values()
    extra = qrels_frame().assign(iteration="0", note=[{"x": 1}] * len(QRELS), line=range(len(QRELS)))
    assert values(extra, run_frame().assign(rank=1, name="run", query="text")) == clean
    shuffled = qrels_frame().set_index(pd.Index([5, 5, 3, 2, 1, 0, 9]))  # a repeated, unsorted index
    assert values(shuffled, run_frame().set_index(pd.Index(list("abcdef")))) == clean
    pyterrier = qrels_frame().rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    pt_run = run_frame().rename(columns={"query_id": "qid", "doc_id": "docno"})
    assert values(pyterrier, pt_run) == clean
    both = pyterrier.assign(query_id=pyterrier["qid"], qid="ignored")  # ir_measures' name wins
    assert values(both, pt_run) == clean
    mixed_columns = qrels_frame().assign(**{"0": 1})
    mixed_columns[7] = 2  # a column label that is not a string
    assert values(mixed_columns, run_frame()) == clean


def test_the_rows_named_are_positions_whatever_the_index():
    qrels = qrels_frame().set_index(pd.Index([10, 11, 12, 13, 14, 15, 16]))
    qrels.loc[13, "doc_id"] = "d\x85"
    check_api_error(lambda: ipm.load_judgments(qrels), "row 3", "doc_id")


def test_namedtuples_missing_a_field_on_a_later_row():
    Short = namedtuple("Short", "query_id doc_id")
    records = [Qrel(*QRELS[0]), Qrel(*QRELS[1]), Short("q1", "c")]
    check_api_error(lambda: ipm.load_judgments(records), "row 2", "relevance")
    check_api_error(lambda: ipm.as_ranking([ScoredDoc(*RUN_1[0]), Short("q1", "x")]), "row 1", "score")
    # a list of strings is a list of sources (their union), as Experiment takes judgment sources
    check_api_error(lambda: ipm.load_judgments(["q1 0 a 1"]), "'q1 0 a 1' is neither an existing file")


def test_namedtuples_generators_and_dicts_equal_the_frame():
    clean = clean_values()
    assert values([Qrel(*r) for r in QRELS], [ScoredDoc(*r) for r in RUN_1]) == clean
    assert values(iter([Qrel(*r) for r in QRELS]), run_frame()) == clean
    assert values(_form(QRELS, QREL_COLUMNS, "dict"), _form(RUN_1, RUN_COLUMNS, "dict")) == clean
    experiment = ipm.Experiment(_form(RUN_1, RUN_COLUMNS, "dict"), _form(QRELS, QREL_COLUMNS, "dict"), ["ppref@10"])
    assert experiment["ppref@10"].iloc[0] == clean["ppref@10"]
    experiment = ipm.Experiment([ScoredDoc(*r) for r in RUN_1], [Qrel(*r) for r in QRELS], ["ppref@10"])
    assert experiment["ppref@10"].iloc[0] == clean["ppref@10"]
    compared = ipm.compare({"a": _form(RUN_1, RUN_COLUMNS, "dict"), "b": run_frame(RUN_2)}, [Qrel(*r) for r in QRELS])
    assert compared.equals(ipm.compare({"a": run_frame(), "b": run_frame(RUN_2)}, qrels_frame()))


def test_a_dict_that_is_not_a_dict_of_dicts():
    check_api_error(lambda: ipm.load_judgments({"q1": [("a", 1)]}), "dict")
    check_api_error(lambda: ipm.as_ranking({"q1": 3}), "dict")
    check_api_error(lambda: ipm.load_judgments(42), "int")


# == 4. grades int64 cannot hold ======================================================================================

LARGE_GRADES = {
    "2_31": "2147483648",
    "1e308": "1e308",
    "2_63": "9223372036854775808",
    "minus_2_63": "-9223372036854775808",
}


@pytest.mark.parametrize("grade", LARGE_GRADES.values(), ids=LARGE_GRADES.keys())
def test_a_large_grade_is_a_finite_float_for_the_preference_measures(grade, tmp_path):
    """The top grade (3) replaced by a larger one (the bottom one, 0, by a smaller one): the same order, so the same
    values; no RuntimeWarning from our conversions, no wrong integer."""
    top = not grade.startswith("-")
    rows = [(q, d, grade if g == (3 if top else 0) else g) for q, d, g in QRELS]
    path = write(tmp_path, "q", qrels_text(rows))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        frame = formats.read_qrels(path)
        judgments = ipm.load_judgments(path)
        graded = judgments.qrels()
        sources.qrels_table(path)
    expected = float(grade)
    assert frame["relevance"].max() == expected or frame["relevance"].min() == expected
    assert float(graded["relevance"].max() if top else graded["relevance"].min()) == expected
    if not -(2**63) <= expected < 2**63:
        assert frame["relevance"].dtype == np.float64 and graded["relevance"].dtype == np.float64
    else:
        assert frame["relevance"].dtype == np.int64 and graded["relevance"].dtype == np.int64
    run = ipm.as_ranking(write(tmp_path, "r", run_text()))
    measures = [ipm.ppref @ 10, ipm.APpref, ipm.PGC, ipm.rpref @ 3]
    assert values(judgments, run, measures) == values(qrels_frame(), run, measures)
    out, err, status = run_cli(["eval", path, write(tmp_path, "r", run_text()), "ppref@10", "APpref", "PGC"])
    clean = run_cli(
        ["eval", write(tmp_path, "c", qrels_text()), write(tmp_path, "r", run_text()), "ppref@10", "APpref", "PGC"]
    )
    assert status == 0 and out == clean[0], err
    # in memory: the same, as a float or a Python int
    number = float(grade) if "e" in grade else int(grade)
    relevance = pd.Series([number if g == (3 if top else 0) else g for _, _, g in QRELS], dtype=object)
    assert values(qrels_frame().assign(relevance=relevance), run, measures) == values(qrels_frame(), run, measures)


@pytest.mark.parametrize(
    "grade", ["9007199254740993", "9223372036854775807", "-9007199254740993", "123456789012345678901"]
)
def test_an_integer_grade_float64_cannot_hold_is_an_error_naming_the_line(grade, tmp_path):
    rows = list(QRELS)
    rows[4] = (*rows[4][:2], grade)
    path = write(tmp_path, "q", qrels_text(rows))
    for call in (
        lambda: formats.read_qrels(path),
        lambda: ipm.load_judgments(path),
        lambda: read_judgments(path, "qrels_prefs"),
        lambda: read_judgments(write(tmp_path, "p", prefs_text(rows)), "prefs"),
    ):
        error = check_api_error(call, "cannot be represented exactly")
        assert error.line_no == 5
    out, err, status = run_cli(["eval", path, write(tmp_path, "r", run_text()), "APpref"])
    check_cli_error(out, err, status, path, 5)
    relevance = pd.Series([g for _, _, g in QRELS], dtype=object)
    relevance.iloc[4] = int(grade)
    check_api_error(lambda: ipm.load_judgments(qrels_frame().assign(relevance=relevance)), "relevance", "row 4")


def test_large_grades_written_as_decimals_are_floats(tmp_path):
    """Only integers must be exact: a grade written with a fraction or an exponent is read as the nearest float."""
    rows = [(q, d, {3: "1.5e300", 2: "9007199254740993.0"}.get(g, g)) for q, d, g in QRELS]
    path = write(tmp_path, "q", qrels_text(rows))
    measures = [ipm.ppref @ 10, ipm.APpref, ipm.PGC, ipm.rpref @ 3]
    assert values(ipm.load_judgments(path), run_frame(), measures) == values(qrels_frame(), run_frame(), measures)


def test_integer_grades_helper():
    assert integer_grades(np.array([1.0, 2.0])).dtype == np.int64
    assert integer_grades(np.array([1.0, 2.5])).dtype == np.float64
    for large in (2.0**63, 1e308, -(2.0**64)):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            out = integer_grades(np.array([1.0, large]))
        assert out.dtype == np.float64 and out[1] == large
    assert integer_grades(np.array([-(2.0**63), 5.0])).tolist() == [-(2**63), 5]


# == 10a. two graded sources: each derives its preferences, their union is taken ======================================


def _explicit_union(*grade_tables: list[tuple]) -> Judgments:
    """The preferences each table derives apart (a -> b for grade(a) > grade(b) in one query), once each."""
    pairs = set()
    for rows in grade_tables:
        by_query: dict = {}
        for q, d, g in rows:
            by_query.setdefault(q, []).append((str(d), float(g)))
        for q, docs in by_query.items():
            pairs |= {(q, a, b) for a, ga in docs for b, gb in docs if ga > gb}
    return Judgments.from_preferences(pd.DataFrame([(*p, -1) for p in sorted(pairs)], columns=PREF_COLUMNS))


OTHER = [("q1", "d", 5), ("q1", "c", 4), ("q1", "a", 1), ("q1", "g", 0), ("q2", "e", 2.5), ("q2", "f", 1)]
ORDER_MEASURES = [ipm.ppref @ 10, ipm.APpref, ipm.PGC, ipm.rpref @ 3, ipm.pprefMax]  # the grades' order alone


def test_combining_two_graded_sources_is_the_union_of_their_preferences():
    expected = values(_explicit_union(QRELS, OTHER), run_frame(), ORDER_MEASURES)
    both = combine(ipm.load_judgments(qrels_frame()), ipm.load_judgments(qrels_frame(OTHER)))
    assert values(both, run_frame(), ORDER_MEASURES) == pytest.approx(expected, abs=1e-12)
    flipped = combine(ipm.load_judgments(qrels_frame(OTHER)), ipm.load_judgments(qrels_frame()))
    assert values(flipped, run_frame(), ORDER_MEASURES) == pytest.approx(expected, abs=1e-12)
    # the first graded source keeps its grades (ir_measures' own measures), the doc graded twice included
    assert both.qrels().sort_values(["query_id", "doc_id"])["relevance"].tolist() == [3, 2, 1, 0, 1, 0, 2]
    assert ipm.load_combined(qrels_frame(), qrels_frame(OTHER), format="qrels").n_docs == both.n_docs


def test_combining_a_graded_source_with_itself_or_a_part_of_it_changes_nothing():
    alone = ipm.load_judgments(qrels_frame())
    assert values(combine(alone, alone), run_frame()) == values(alone, run_frame())
    part = ipm.load_judgments(qrels_frame(QRELS[:3]))
    assert values(combine(alone, part), run_frame()) == values(alone, run_frame())  # nwppref too: the same grades
    assert values(combine(part, alone), run_frame(), ORDER_MEASURES) == values(alone, run_frame(), ORDER_MEASURES)
    other_query = ipm.load_judgments(qrels_frame([("q3", "a", 1), ("q3", "b", 0)]))
    joined = combine(alone, other_query)
    assert joined.only_graded and len(joined.query_ids) == 3  # queries of their own: grades kept as grades


@pytest.mark.parametrize("seed", range(6))
def test_random_graded_sources_and_preferences_give_the_union(seed):
    rng = np.random.default_rng(seed)
    tables_ = []
    for _ in range(int(rng.integers(2, 4))):
        rows = []
        for q in ("q1", "q2"):
            docs = rng.choice(list("abcdefgh"), size=int(rng.integers(1, 8)), replace=False)
            rows += [(q, str(d), int(rng.integers(0, 4))) for d in docs]
        tables_.append(rows)
    run = run_frame([(q, d, float(rng.random())) for q in ("q1", "q2") for d in "abcdefgh" if rng.random() < 0.8])
    parts = [ipm.load_judgments(qrels_frame(rows)) for rows in tables_]
    measures = [
        ipm.ppref @ 10,
        ipm.APpref,
        ipm.PGC,
        ipm.rpref @ 5,
        ir_measures.parse_measure("ppref(transitive=False)@5"),
    ]
    expected = values(_explicit_union(*tables_), run, measures)
    assert values(combine(*parts), run, measures) == pytest.approx(expected, abs=1e-12)
    assert values(combine(*reversed(parts)), run, measures) == pytest.approx(expected, abs=1e-12)
    prefs = Judgments.from_preferences(pd.DataFrame([(*p, -1) for p in PAIRS], columns=PREF_COLUMNS))
    with_prefs = combine(*parts, prefs)
    expected_prefs = combine(_explicit_union(*tables_), prefs)
    assert values(with_prefs, run, measures[:4]) == pytest.approx(values(expected_prefs, run, measures[:4]), abs=1e-12)


def test_eval_with_a_second_graded_file_as_preferences(tmp_path):
    """The regression of issue 27 (10a): `eval q.txt bert.run APpref PGC --prefs p.qrels --prefs-format qrels`."""
    data = data_path("dl_llm_prefs_arabzadeh")
    qrels = str(data / "qrels.dl19-passage.txt")
    prefs = str(data / "prefs.dl19")
    run = str(data / "runs" / "input.ICT-BERT2.txt.gz")
    argv = ["eval", qrels, run, "APpref", "PGC", "ppref@10"]
    out, err, status = run_cli([*argv, "--prefs", prefs, "--prefs-format", "qrels"])
    assert status == 0, err
    swapped = run_cli(["eval", prefs, run, "APpref", "PGC", "ppref@10", "--prefs", qrels, "--prefs-format", "qrels"])
    assert swapped == (out, err, status)
    prefixed = run_cli([*argv, "--prefs", "qrels:" + prefs])
    assert prefixed == (out, err, status)
    with_ndcg = run_cli([*argv, "nDCG@10", "--prefs", prefs, "--prefs-format", "qrels"])
    alone = run_cli(["eval", qrels, run, "nDCG@10"])
    assert with_ndcg[2] == 0 and with_ndcg[0].splitlines()[-1] == alone[0].splitlines()[-1]  # the first file's grades
    itself = run_cli([*argv, "--prefs", qrels, "--prefs-format", "qrels"])
    assert itself == run_cli(argv)
    # the library: the union equals explicit pairs derived from each file apart
    q_rows = [tuple(r) for r in formats.read_qrels(qrels)[QREL_COLUMNS].itertuples(index=False)]
    p_rows = [tuple(r) for r in formats.read_qrels(prefs)[QREL_COLUMNS].itertuples(index=False)]
    explicit = values(_explicit_union(q_rows, p_rows), ipm.as_ranking(run), [ipm.APpref, ipm.PGC, ipm.ppref @ 10])
    printed = {line.split("\t")[0]: float(line.split("\t")[1]) for line in out.splitlines()}
    assert printed == pytest.approx(explicit, abs=5e-5)


def test_experiment_sets_joined_with_plus_and_meta(tmp_path):
    """``-j A+B`` of two graded files equals the pairs file of their union, in experiment and meta; Experiment with a
    list of sources too."""
    qrels = write(tmp_path, "q", qrels_text())
    other = write(tmp_path, "o", qrels_text(OTHER))
    union = _explicit_union(QRELS, OTHER)
    pairs = write(tmp_path, "u", "".join(f"{q} {union.doc_ids[a]} {union.doc_ids[b]}\n" for q, a, b in _edges(union)))
    runs = [write(tmp_path, f"r{i}", run_text(rows, f"t{i}")) for i, rows in enumerate((RUN_1, RUN_2, RUN_3), 1)]
    measures = ["-m", "ppref@10", "APpref", "PGC"]
    set_measures = ["-m", "u:ppref@10", "u:APpref", "u:PGC"]
    for argv in (
        ["experiment", "-j", "u={}", qrels, *runs, *set_measures],
        ["meta", "runs", "-j", "{}", *runs, *measures],
    ):
        joined = run_cli([a.format(f"{qrels}+qrels:{other}") for a in argv])
        assert joined[2] == 0, joined[1]
        assert joined == run_cli([a.format(f"pairs:{pairs}") for a in argv])
        assert joined == run_cli([a.format(f"qrels:{other}+{qrels}") for a in argv])
    with_prefs = run_cli(["experiment", qrels, *runs, "--prefs", f"qrels:{other}", *measures])
    assert with_prefs[2] == 0, with_prefs[1]
    assert with_prefs == run_cli(["experiment", f"pairs:{pairs}", *runs, *measures])
    listed = ipm.Experiment(runs, [qrels, f"qrels:{other}"], ["ppref@10", "APpref", "PGC"])
    expected = ipm.Experiment(runs, union, ["ppref@10", "APpref", "PGC"])
    pd.testing.assert_frame_equal(listed, expected)
    both = ipm.load_combined(qrels, other, format="qrels")
    assert values(both, run_frame(), ORDER_MEASURES) == pytest.approx(
        values(union, run_frame(), ORDER_MEASURES), abs=1e-12
    )


def _edges(judgments: Judgments) -> list[tuple[str, int, int]]:
    return [
        (str(judgments.query_ids[judgments.doc_query[a]]), a, b) for a, b in zip(*judgments.strict_edges(), strict=True)
    ]


# == the classmethods and other readers of tables ================================================================


def test_ranking_and_trec_prefs_classmethods_validate_tables():
    assert ipm.Ranking.from_frame(run_frame()).doc_ids.tolist() == ipm.as_ranking(run_frame()).doc_ids.tolist()
    check_api_error(lambda: ipm.Ranking.from_frame(run_frame().assign(score=[1, 2, math.nan, 4, 5, 6])), "row 2")
    check_api_error(lambda: ipm.Ranking.from_frame(run_frame(renamed(RUN_1, "b", "b\x85"))), "control character")
    check_api_error(lambda: ipm.Ranking.from_frame(_duplicated(run_frame(), "doc_id")), "2 columns named")
    rows = pd.DataFrame(
        [(q, "g1", "s1", d, g) for q, d, g in QRELS], columns=["query_id", "jg", "jsg", "doc_id", "level"]
    )
    from_table = Judgments.from_trec_prefs(rows)
    assert values(from_table, run_frame(), ORDER_MEASURES) == values(qrels_frame(), run_frame(), ORDER_MEASURES)
    assert values(Judgments.from_trec_prefs(rows.assign(jg=7)), run_frame(), ORDER_MEASURES) == values(
        from_table, run_frame(), ORDER_MEASURES
    )
    bad = rows.copy()
    bad.loc[3, "jsg"] = "s\x9f"
    check_api_error(lambda: Judgments.from_trec_prefs(bad), "jsg", "row 3", "control character")
    check_api_error(lambda: Judgments.from_trec_prefs(rows.assign(level=[1, 2, None, 0, 1, 0, 2])), "level", "row 2")
    check_api_error(lambda: Judgments.from_trec_prefs(rows.drop(columns="jsg")), "jsg")


@pytest.mark.parametrize("key", ["qid", "runi", "runj"])
@pytest.mark.parametrize("escape", ["\\u0085", "\\u0000", "\\u001e", "\\u009f"])
def test_a_control_character_escaped_in_json_lines(key, escape, tmp_path):
    record = {"qid": "q1", "runi": "a", "runj": "b", "sample": 0, "type": "preference", "rpp": 0.5}
    lines = [dict(record, qid="q0"), record]
    text = "".join(json.dumps(r) + "\n" for r in lines)
    text = text.replace(f'"{key}": "{record[key]}"', f'"{key}": "{record[key]}{escape}"', 1 if key == "qid" else 2)
    path = write(tmp_path, "prefs.jsonl", text)
    out, err, status = run_cli(["aggregate", "-P", path, "-q"])
    check_cli_error(out, err, status, path, 1 if key != "qid" else 2)
    clean = write(tmp_path, "clean.jsonl", text.replace(escape, "\\u00a0"))
    out, err, status = run_cli(["aggregate", "-P", clean, "-q"])
    assert status == 0, err


def test_judgment_groups_of_graded_sources_with_different_grades():
    """Two judges' qrels as groups: each group is its own judgments, their union the union of their preferences."""
    both = ipm.load_groups({"one": qrels_frame(), "two": qrels_frame(OTHER)})
    assert both.groups == ["one", "two"]
    assert values(both.group("one"), run_frame()) == clean_values()
    assert values(both.group("two"), run_frame()) == values(qrels_frame(OTHER), run_frame())
    expected = values(_explicit_union(QRELS, OTHER), run_frame(), ORDER_MEASURES)
    assert values(both, run_frame(), ORDER_MEASURES) == pytest.approx(expected, abs=1e-12)


# -- grades beyond what 2^grade holds: wppref refuses, the other measures are exact and silent -------------------------


@pytest.mark.parametrize("grade", [2**31, 1e308, 2.0**63])
def test_huge_grades_are_exact_for_the_order_measures_and_refused_by_wppref(grade, recwarn):
    qrels = pd.DataFrame({"query_id": ["q", "q", "q"], "doc_id": ["a", "b", "c"], "relevance": [grade, 1, 0]})
    small = qrels.assign(relevance=[2, 1, 0])
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["b", "a", "c"], "score": [3.0, 2.0, 1.0]})
    measures = [ir_measures.parse_measure(m) for m in ("ppref@2", "APpref", "PGC", "rpref@2")]
    assert ir_measures.calc_aggregate(measures, qrels, run) == ir_measures.calc_aggregate(measures, small, run)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    with pytest.raises(InputError, match="wppref@k and nwppref@k weigh"):
        ir_measures.calc_aggregate([ir_measures.parse_measure("wppref@2")], qrels, run)
