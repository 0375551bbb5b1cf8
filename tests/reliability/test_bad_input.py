"""One rule set for every input file, every command: a corpus of (mutation) x (file slot) x (command).

Each case writes the clean inputs of a command into its own folder, replaces one of them by a mutated copy and
runs the command in-process. A *valid* mutation (BOM, CRLF, CR, tabs, runs of spaces, blank and comment lines,
gzip with or without a ``.gz`` name, ...) must print exactly what the clean input prints. An *invalid* one
(control characters, undecodable bytes, broken gzip, missing file, wrong field count, NaN, a 3 MB line, repeated
docs, empty file, ...) must exit with status 2, print nothing on stdout, and print one short message on stderr
naming the file, followed by ``:<line>`` when the error is tied to a line, with no traceback.

The inputs are small generated files committed in tests/data/inputs (three queries each).
"""

from __future__ import annotations

import gzip
import json
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import fixture_path

from ir_pref_measures.commands import main
from ir_pref_measures.errors import InputError

# -- the clean inputs ----------------------------------------------------------------------------------------------

INPUTS = ("qrels", "fqrels", "winner", "pairs", "dlrun", "carterette", "crun", "run1", "run2", "run3")


def clean_texts() -> dict[str, str]:
    """Small generated inputs, three queries each (``tests/data/inputs``, written by ``make_inputs.py`` there):
    graded and float qrels, winner and pairs prefs, Carterette's format and its run, three CAsT-like runs and a
    DL-like run."""
    return {name: fixture_path("inputs", name).read_text() for name in INPUTS}


def _build_clean_inputs(folder: Path) -> dict[str, bytes]:
    """:func:`clean_texts` written to ``folder``, and the JSON lines of ``compare -q`` on the CAsT runs."""
    texts = clean_texts()
    data = {name: text.encode() for name, text in texts.items()}
    for name, content in data.items():
        (folder / name).write_bytes(content)
    out, err, status = run_cli(["compare", "-R", str(folder / "qrels"), "-q", *(str(folder / r) for r in RUNS)])
    assert status == 0, err
    data["jsonl"] = out.encode()
    return data


RUNS = ("run1", "run2", "run3")


@pytest.fixture(scope="session")
def clean_inputs(tmp_path_factory) -> dict[str, bytes]:
    return _build_clean_inputs(tmp_path_factory.mktemp("clean_inputs"))


# -- running the command line in-process ---------------------------------------------------------------------------

_capture: list = []  # the active capsys fixture, set by the `cli` fixture


def run_cli(argv: list[str]) -> tuple[str, str, int]:
    """(stdout, stderr, exit status) of ``main(argv)``; an ``InputError`` escaping ``main`` counts as status 2 with
    its message on stderr (the entry point prints it); any other exception fails the test."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as stop:  # argparse
            status = stop.code if isinstance(stop.code, int) else 2
        except InputError as error:
            err.write(f"ir-pref-measures: {error}\n")
            status = 2
        except Exception as error:  # noqa: BLE001  (any other exception is a traceback for the user)
            import traceback

            trace = traceback.format_exc(limit=-4)
            pytest.fail(f"{type(error).__name__} escaped main({argv}) (a traceback for the user):\n{trace}")
    return out.getvalue(), err.getvalue(), status


# -- the file kinds ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """A line format: which field holds a required number, which an id, what a repeated line means."""

    name: str
    number: int | None  # the field of a required number, if any
    doc: int  # the field of a doc id
    repeat: str | None  # a line given twice: "error", "ok" (kept, a multigraph), or None (not tested)
    json: bool = False

    def target(self, lines: list[str]) -> int:
        """The 0-based index of the line that invalid mutations break."""
        if self.json:  # the first preference line of the second query
            queries = [json.loads(line)["qid"] for line in lines]
            second = next(i for i, q in enumerate(queries) if q != queries[0])
            return next(i for i in range(second, len(lines)) if json.loads(lines[i]).get("type") == "preference")
        return 4

    def fields(self, line: str) -> list[str]:
        return line.split()

    def join(self, line: str, separators: list[str]) -> str:
        """The line with its field separators replaced, in turn, by ``separators``."""
        if self.json:
            parts = re.split(r"(?<=[,:]) ", line)
            return "".join(p + separators[i % len(separators)] for i, p in enumerate(parts[:-1])) + parts[-1]
        fields = self.fields(line)
        return "".join(f + separators[i % len(separators)] for i, f in enumerate(fields[:-1])) + fields[-1]

    def set_field(self, line: str, index: int | str, value: str) -> str:
        if self.json:  # a raw JSON token for the value of key `index`
            return re.sub(rf'("{index}": )([^,}}]*)', lambda m: m.group(1) + value, line, count=1)
        fields = self.fields(line)
        fields[index] = value
        return " ".join(fields)

    def insert_in_id(self, line: str, which: str, char: str) -> str:
        if self.json:
            key = "qid" if which == "query" else "runi"
            return re.sub(rf'("{key}": "[^"]*)"', lambda m: m.group(1) + char + '"', line, count=1)
        fields = self.fields(line)
        index = 0 if which == "query" else self.doc
        fields[index] = fields[index][:3] + char + fields[index][3:]
        return " ".join(fields)

    def too_few(self, line: str) -> str:
        if self.json:
            record = json.loads(line)
            del record["runj"]
            return json.dumps(record)
        return " ".join(self.fields(line)[:-1])

    def too_many(self, line: str) -> str:
        return line + (' {"extra": 1}' if self.json else " extra")

    def repeated_elsewhere(self, line: str) -> str:
        """The same (query, doc) as ``line`` with another value, for the end of the file."""
        fields = self.fields(line)
        fields[self.number] = "3" if fields[self.number] != "3" else "1"
        return " ".join(fields)


KINDS = {
    "qrels": Kind("qrels", number=3, doc=2, repeat="error"),
    "fqrels": Kind("fqrels", number=3, doc=2, repeat="error"),
    "run": Kind("run", number=4, doc=2, repeat="error"),
    "winner": Kind("winner", number=None, doc=1, repeat="ok"),
    "pairs": Kind("pairs", number=None, doc=1, repeat="ok"),
    "carterette": Kind("carterette", number=3, doc=1, repeat="ok"),
    "jsonl": Kind("jsonl", number=None, doc=0, repeat=None, json=True),
}
FILE_KINDS = {
    "qrels": "qrels",
    "fqrels": "fqrels",
    "winner": "winner",
    "pairs": "pairs",
    "carterette": "carterette",
    "jsonl": "jsonl",
    "run1": "run",
    "run2": "run",
    "run3": "run",
    "dlrun": "run",
    "crun": "run",
}

# -- the mutations -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutated:
    data: bytes
    line: int | None = None  # 1-based number of the offending line, for line-tied errors
    text: str | None = None  # the offending line, as written


@dataclass(frozen=True)
class Mutation:
    """``apply(lines, kind)`` -> the mutated file. ``outcome``: "same" (stdout as the clean file), "ok" (exit 0),
    "error" (exit 2, path in the message, ``:line`` if ``Mutated.line``)."""

    name: str
    apply: Callable[[list[str], Kind], Mutated]
    outcome: str
    applies: Callable[[Kind], bool] = lambda kind: True
    gz_name: bool = False  # the file is named ``<name>.gz``
    special: str | None = None  # "missing", "directory", "unreadable": no file content at all


def _join(lines: list[str], end: str = "\n") -> bytes:
    return "".join(line + end for line in lines).encode()


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def _same(transform: Callable[[list[str], Kind], bytes]) -> Callable[[list[str], Kind], Mutated]:
    return lambda lines, kind: Mutated(transform(lines, kind))


def _at_target(
    change: Callable[[str, Kind], str], *, end: str = "\n", before: list[str] = (), encode=None
) -> Callable[[list[str], Kind], Mutated]:
    """Replace the target line by ``change(line)``; ``before`` lines are put at the start of the file."""

    def apply(lines: list[str], kind: Kind) -> Mutated:
        index = kind.target(lines)
        new = [*before, *lines]
        bad = change(lines[index], kind)
        new[index + len(before)] = bad
        text = "".join(line + end for line in new)
        data = encode(text) if encode else text.encode()
        return Mutated(data, line=index + len(before) + 1, text=bad)

    return apply


def _middle(lines: list[str], extra: list[str]) -> list[str]:
    return [*lines[: len(lines) // 2], *extra, *lines[len(lines) // 2 :]]


def _latin1_in_id(line: str, kind: Kind) -> str:
    return kind.insert_in_id(line, "doc", "\udcff")  # a lone 0xff byte, written by surrogateescape


def _repeat_line(lines: list[str], kind: Kind) -> Mutated:
    index = kind.target(lines)
    new = [*lines[: index + 1], lines[index], *lines[index + 1 :]]
    return Mutated(_join(new), line=index + 2, text=lines[index])


def _repeat_doc_at_end(lines: list[str], kind: Kind) -> Mutated:
    index = kind.target(lines)
    again = kind.repeated_elsewhere(lines[index])
    return Mutated(_join([*lines, again]), line=len(lines) + 1, text=again)


def _huge_line(line: str, kind: Kind) -> str:
    return "x" * 3_000_000


def _truncated(data: bytes) -> bytes:
    return data[: len(data) - 40]


def _corrupt(data: bytes) -> bytes:
    broken = bytearray(data)
    for i in range(len(broken) // 2, len(broken) // 2 + 16):
        broken[i] ^= 0x5A
    return bytes(broken)


BAD_NUMBERS = (  # name, token in a text field, token as a JSON value
    ("nan", "nan", "NaN"),
    ("NaN", "NaN", "NaN"),
    ("inf", "inf", "Infinity"),
    ("minus_inf", "-inf", "-Infinity"),
    ("Infinity", "Infinity", "Infinity"),
    ("underscore", "1_0", "1_0"),
    ("word", "abc", '"abc"'),
    ("empty_string", None, '""'),
)


def _number_mutation(name: str, text_token: str | None, json_token: str) -> Mutation:
    def change(line: str, kind: Kind) -> str:
        return kind.set_field(line, "rpp", json_token) if kind.json else kind.set_field(line, kind.number, text_token)

    return Mutation(
        f"number_{name}",
        _at_target(change),
        "error",
        applies=lambda kind: kind.json or (kind.number is not None and text_token is not None),
    )


def _control_mutation(name: str, char: str, which: str) -> Mutation:
    return Mutation(
        f"{name}_in_{which}_id", _at_target(lambda line, kind: kind.insert_in_id(line, which, char)), "error"
    )


def _separator_mutation(name: str, char: str) -> Mutation:
    """A control character used as a field separator (``str.split()`` would take it for whitespace)."""

    def change(line: str, kind: Kind) -> str:
        return kind.join(line, [char]) if not kind.json else kind.join(line, [" " + char])

    return Mutation(f"{name}_as_separator", _at_target(change), "error")


MUTATIONS: list[Mutation] = [
    # -- valid variants: the same stdout as the clean file --
    Mutation("bom", _same(lambda lines, kind: b"\xef\xbb\xbf" + _join(lines)), "same"),
    Mutation("bom_blank_line_at_end", _same(lambda lines, kind: b"\xef\xbb\xbf" + _join([*lines, ""])), "same"),
    Mutation("crlf", _same(lambda lines, kind: _join(lines, "\r\n")), "same"),
    Mutation("cr", _same(lambda lines, kind: _join(lines, "\r")), "same"),
    Mutation("crlf_no_final_newline", _same(lambda lines, kind: _join(lines, "\r\n")[:-2]), "same"),
    Mutation("no_final_newline", _same(lambda lines, kind: _join(lines)[:-1]), "same"),
    Mutation("tabs", _same(lambda lines, kind: _join([kind.join(line, ["\t"]) for line in lines])), "same"),
    Mutation("single_spaces", _same(lambda lines, kind: _join([kind.join(line, [" "]) for line in lines])), "same"),
    Mutation("runs_of_spaces", _same(lambda lines, kind: _join([kind.join(line, ["   "]) for line in lines])), "same"),
    Mutation(
        "mixed_tabs_spaces",
        _same(lambda lines, kind: _join([kind.join(line, [" \t ", "\t\t", "  "]) for line in lines])),
        "same",
    ),
    Mutation("trailing_spaces", _same(lambda lines, kind: _join([line + "   " for line in lines])), "same"),
    Mutation("trailing_tabs", _same(lambda lines, kind: _join([line + "\t \t" for line in lines])), "same"),
    Mutation("leading_whitespace", _same(lambda lines, kind: _join([" \t " + line for line in lines])), "same"),
    Mutation("blank_lines_at_start", _same(lambda lines, kind: _join(["", "", *lines])), "same"),
    Mutation("blank_lines_in_middle", _same(lambda lines, kind: _join(_middle(lines, ["", ""]))), "same"),
    Mutation("blank_lines_at_end", _same(lambda lines, kind: _join([*lines, "", ""])), "same"),
    Mutation(
        "whitespace_only_lines", _same(lambda lines, kind: _join([" \t ", *_middle(lines, ["\t", "   "])])), "same"
    ),
    Mutation("comment_at_start", _same(lambda lines, kind: _join(["# a comment", *lines])), "same"),
    Mutation("comment_in_middle", _same(lambda lines, kind: _join(_middle(lines, ["# a comment line"]))), "same"),
    Mutation(
        "indented_comment_like_data",
        _same(lambda lines, kind: _join(_middle(lines, ["  \t# " + lines[0], "#" + lines[-1]]))),
        "same",
    ),
    Mutation("gzip_named_gz", _same(lambda lines, kind: _gz(_join(lines))), "same", gz_name=True),
    Mutation("gzip_not_named_gz", _same(lambda lines, kind: _gz(_join(lines))), "same"),
    Mutation(
        "gzip_bom_crlf_comments",
        _same(lambda lines, kind: _gz(b"\xef\xbb\xbf" + _join(["# gzipped", *_middle(lines, ["", " # c"])], "\r\n"))),
        "same",
        gz_name=True,
    ),
    Mutation(
        "everything_at_once",
        _same(
            lambda lines, kind: (
                b"\xef\xbb\xbf"
                + _join(
                    ["", "# header", *_middle([" " + kind.join(line, ["\t "]) + " " for line in lines], ["\t"])], "\r\n"
                )
            )
        ),
        "same",
    ),
    # -- repeated lines --
    Mutation("repeated_line_kept", _repeat_line, "ok", applies=lambda kind: kind.repeat == "ok"),
    Mutation("repeated_line", _repeat_line, "error", applies=lambda kind: kind.repeat == "error"),
    Mutation("repeated_doc_at_end", _repeat_doc_at_end, "error", applies=lambda kind: kind.repeat == "error"),
    # -- control characters --
    _control_mutation("nul", "\x00", "doc"),
    _control_mutation("nul", "\x00", "query"),
    _control_mutation("escape", "\x1b", "doc"),
    _control_mutation("del", "\x7f", "query"),
    _control_mutation("record_separator", "\x1e", "doc"),  # str.splitlines() splits there
    _control_mutation("bell", "\x07", "doc"),
    _control_mutation("c1_next_line", "\x85", "doc"),  # U+0085: str.splitlines() and str.split() split there
    _control_mutation("c1_u0080", "\x80", "query"),
    _control_mutation("c1_u009f", "\x9f", "doc"),
    # -- Unicode spaces: ordinary characters of an id (only ASCII tabs and spaces separate fields) --
    Mutation("nbsp_in_doc_id", _at_target(lambda line, kind: kind.insert_in_id(line, "doc", "\xa0")), "ok"),
    Mutation("u2028_in_doc_id", _at_target(lambda line, kind: kind.insert_in_id(line, "doc", "\u2028")), "ok"),
    Mutation("u3000_in_query_id", _at_target(lambda line, kind: kind.insert_in_id(line, "query", "\u3000")), "ok"),
    _separator_mutation("vertical_tab", "\x0b"),
    _separator_mutation("form_feed", "\x0c"),
    Mutation(
        "nul_after_crlf_lines",
        _at_target(lambda line, kind: kind.insert_in_id(line, "doc", "\x00"), end="\r\n"),
        "error",
    ),
    Mutation(
        "nul_after_cr_lines", _at_target(lambda line, kind: kind.insert_in_id(line, "doc", "\x00"), end="\r"), "error"
    ),
    Mutation(
        "nul_after_comment_and_blank_lines",
        _at_target(lambda line, kind: kind.insert_in_id(line, "doc", "\x00"), before=["# comment", "", "  "]),
        "error",
    ),
    # -- encodings --
    Mutation("utf16", _same(lambda lines, kind: _join(lines).decode().encode("utf-16")), "error"),
    Mutation("utf16_le_no_bom", _same(lambda lines, kind: _join(lines).decode().encode("utf-16-le")), "error"),
    Mutation(
        "latin1_byte_ff",
        _at_target(_latin1_in_id, encode=lambda text: text.encode("utf-8", "surrogateescape")),
        "error",
    ),
    # -- gzip --
    Mutation("gzip_truncated", _same(lambda lines, kind: _truncated(_gz(_join(lines)))), "error"),
    Mutation(
        "gzip_truncated_named_gz", _same(lambda lines, kind: _truncated(_gz(_join(lines)))), "error", gz_name=True
    ),
    Mutation("gzip_corrupt", _same(lambda lines, kind: _corrupt(_gz(_join(lines)))), "error"),
    Mutation("gzip_corrupt_named_gz", _same(lambda lines, kind: _corrupt(_gz(_join(lines)))), "error", gz_name=True),
    Mutation("gzip_header_only", _same(lambda lines, kind: _gz(_join(lines))[:10]), "error", gz_name=True),
    Mutation(
        "gzip_with_nul_inside",
        lambda lines, kind: (lambda m: Mutated(_gz(m.data), m.line, m.text))(
            _at_target(lambda line, kind: kind.insert_in_id(line, "doc", "\x00"))(lines, kind)
        ),
        "error",
        gz_name=True,
    ),
    # -- no file --
    Mutation("missing_file", _same(lambda lines, kind: b""), "error", special="missing"),
    Mutation("directory", _same(lambda lines, kind: b""), "error", special="directory"),
    Mutation("unreadable", _same(lambda lines, kind: _join(lines)), "error", special="unreadable"),
    # -- no content --
    Mutation("empty_file", _same(lambda lines, kind: b""), "error"),
    Mutation("only_comments", _same(lambda lines, kind: b"# nothing\n# here\n"), "error"),
    Mutation("only_blank_lines", _same(lambda lines, kind: b"\n \n\t\n"), "error"),
    Mutation("only_bom", _same(lambda lines, kind: b"\xef\xbb\xbf"), "error"),
    # -- lines of the wrong shape --
    Mutation("too_few_fields", _at_target(lambda line, kind: kind.too_few(line)), "error"),
    Mutation("too_many_fields", _at_target(lambda line, kind: kind.too_many(line)), "error"),
    Mutation("one_field", _at_target(lambda line, kind: "lonely"), "error"),
    Mutation("line_of_3_mb", _at_target(_huge_line), "error"),
    *(_number_mutation(*bad) for bad in BAD_NUMBERS),
]
assert len({m.name for m in MUTATIONS}) == len(MUTATIONS)

# -- the commands --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    """An argv with ``{file}`` slots, and which slots the corpus mutates."""

    name: str
    argv: tuple[str, ...]
    slots: tuple[str, ...]
    tool_rules: tuple[str, ...] = ()  # "slot:mutation" the drop-in accepts by its reference tool's documented rule

    def files(self) -> list[str]:
        return [name for name in FILE_KINDS if any("{" + name + "}" in arg for arg in self.argv)]

    def build(self, paths: dict[str, str]) -> list[str]:
        return [arg.format(**paths) for arg in self.argv]


EVAL_MEASURES = ("nDCG@10", "P@5", "ppref@10", "APpref", "PGC")
COMMANDS = [
    Command(
        "eval",
        ("eval", "-q", "{qrels}", "{run1}", *EVAL_MEASURES, "--prefs", "{winner}", "--prefs-format", "winner"),
        ("qrels", "run1", "winner"),
    ),
    Command(
        "compare",
        ("compare", "-R", "{qrels}", "-q", "{run1}", "{run2}"),
        ("qrels", "run1", "run2"),
        # pref_eval's rule for qrels with subtopic lines: a doc's grade is the largest over its lines
        tool_rules=("qrels:repeated_line", "qrels:repeated_doc_at_end"),
    ),
    Command("aggregate", ("aggregate", "-P", "{jsonl}", "-q"), ("jsonl",)),
    Command("greedy-pgc", ("greedy-pgc", "{pairs}", "{dlrun}"), ("pairs", "dlrun")),
    Command("compatibility", ("compatibility", "{fqrels}", "{run1}"), ("fqrels", "run1")),
    Command("rbo", ("rbo", "-q", "{run1}", "{run2}"), ("run1", "run2")),
    Command(
        "pairwise-pref-eval",
        ("pairwise-pref-eval", "-q", "{carterette}", "{crun}"),
        ("carterette", "crun"),
        # pairwise_pref_eval.py's rule: a doc listed twice in a run takes its later position
        tool_rules=("crun:repeated_line", "crun:repeated_doc_at_end"),
    ),
    Command(
        "experiment",
        ("experiment", "{qrels}", "{run1}", "{run2}", "--prefs", "{winner}", "--prefs-format", "winner")
        + ("-m", "nDCG@10", "ppref@10", "rpp"),
        ("qrels", "run1", "winner"),
    ),
    Command(
        "meta-runs",
        ("meta", "runs", "-j", "{qrels}", "{run1}", "{run2}", "{run3}", "-m", "nDCG@10", "ppref@10"),
        ("qrels", "run1"),
    ),
    Command(
        "meta-stability",
        ("meta", "stability", "--prefs", "{winner}", "--prefs-format", "winner", "--remove", "0.5", "--repeats", "2")
        + ("--seed", "1", "{run1}", "{run2}", "{run3}", "-m", "ppref@10"),
        ("winner", "run1"),
    ),
    Command(
        "meta-pr-curve", ("meta", "pr-curve", "-j", "{qrels}", "--depth", "10", "{run1}", "{run2}"), ("qrels", "run2")
    ),
]

CASES = [
    pytest.param(command, slot, mutation, id=f"{command.name}-{slot}-{mutation.name}")
    for command in COMMANDS
    for slot in command.slots
    for mutation in MUTATIONS
    if mutation.applies(KINDS[FILE_KINDS[slot]])
]


@pytest.fixture(scope="session")
def clean_outputs(clean_inputs, tmp_path_factory) -> dict[str, str]:
    """stdout of each command on the clean inputs (each must succeed)."""
    outputs = {}
    for command in COMMANDS:
        folder = tmp_path_factory.mktemp(f"clean_{command.name}")
        paths = {}
        for name in command.files():
            (folder / name).write_bytes(clean_inputs[name])
            paths[name] = str(folder / name)
        out, err, status = run_cli(command.build(paths))
        assert status == 0 and out, f"{command.name} fails on the clean inputs: {err}"
        outputs[command.name] = out.replace(str(folder), "<DIR>")
    return outputs


def _fragment(text: str) -> str | None:
    """A printable piece of the offending line that the message should show (it shows the line, cut)."""
    words = re.findall(r"[A-Za-z0-9_.]+", text[:150])
    long = [w for w in words if len(w) >= 6] or [w for w in words if len(w) >= 3]
    return long[0][:16] if long else None


def _check_error(out: str, err: str, status: int, path: str, mutated: Mutated | None) -> None:
    assert status == 2, f"exit status {status}, expected 2; stderr: {err[:500]}"
    assert out == "", f"partial output on stdout before the error: {out[:300]!r}"
    assert "Traceback" not in err
    assert len(err) < 2000, f"stderr of {len(err)} characters (the offending line must be cut): {err[:300]!r}..."
    assert path in err, f"the message does not name the file {path}: {err!r}"
    if mutated is not None and mutated.line is not None:
        assert re.search(re.escape(path) + rf":{mutated.line}(?!\d)", err), (
            f"the message does not give the line as {path}:{mutated.line}: {err!r}"
        )
        piece = _fragment(mutated.text or "")
        if piece is not None:
            assert piece in err, f"the message does not show the offending line (looked for {piece!r}): {err!r}"


@pytest.mark.parametrize(("command", "slot", "mutation"), CASES)
def test_input_rules(command: Command, slot: str, mutation: Mutation, clean_inputs, clean_outputs, tmp_path):
    if mutation.special == "unreadable" and os.geteuid() == 0:
        pytest.skip("running as root: root reads a chmod 000 file")
    kind = KINDS[FILE_KINDS[slot]]
    paths = {}
    for name in command.files():
        if name != slot:
            (tmp_path / name).write_bytes(clean_inputs[name])
            paths[name] = str(tmp_path / name)
    target = tmp_path / (slot + ".gz" if mutation.gz_name else slot)
    paths[slot] = str(target)
    mutated = None
    if mutation.special == "directory":
        target.mkdir()
    elif mutation.special != "missing":
        lines = clean_inputs[slot].decode().splitlines()
        mutated = mutation.apply(lines, kind)
        target.write_bytes(mutated.data)
        if mutation.special == "unreadable":
            target.chmod(0)
    out, err, status = run_cli(command.build(paths))
    # a drop-in may print a run's path (greedy_pgc.py's run id): the folder, and the ".gz" of the path, may differ
    out = out.replace(str(target), str(tmp_path / slot)).replace(str(tmp_path), "<DIR>")
    if f"{slot}:{mutation.name}" in command.tool_rules:
        assert status == 0, f"{mutation.name} follows the reference tool's rule here: {err[:500]}"
    elif mutation.outcome == "same":
        assert status == 0, f"a valid variant ({mutation.name}) is rejected: {err[:500]}"
        assert out == clean_outputs[command.name], f"{mutation.name}: stdout differs from the clean input's"
    elif mutation.outcome == "ok":
        assert status == 0, f"{mutation.name} must be accepted: {err[:500]}"
        assert out
    else:
        _check_error(out, err, status, str(target), mutated)


def test_the_corpus_is_large():
    assert len(CASES) > 1000


# -- measure parameters (rule 11) ----------------------------------------------------------------------------------

BAD_MEASURES = (
    "ppref@1.5",
    "ppref@0",
    "rpref@0",
    "ppref(cutoff=-1)",
    "APpref(transitive=2)",
    "PGC(normalize=1)",
    "APpref(foo=1)",
    "PGC(p=0)",
    "PGC(p=1.5)",
    "PGC(depth=0)",
)


@pytest.fixture
def small_files(clean_inputs, tmp_path) -> dict[str, str]:
    paths = {}
    for name, data in clean_inputs.items():
        (tmp_path / name).write_bytes(data)
        paths[name] = str(tmp_path / name)
    return paths


@pytest.mark.parametrize("measure", BAD_MEASURES)
@pytest.mark.parametrize("command", ["eval", "experiment"])
def test_invalid_measure_parameters(measure, command, small_files):
    f = small_files
    if command == "eval":
        argv = ["eval", f["qrels"], f["run1"], "ppref@10", measure]
    else:
        argv = ["experiment", f["qrels"], f["run1"], f["run2"], "-m", "ppref@10", measure]
    out, err, status = run_cli(argv)
    assert status == 2, f"{measure}: exit status {status}; stdout {out[:200]!r}"
    assert out == ""
    assert "Traceback" not in err
    assert measure in err, f"the message does not name {measure}: {err[:500]!r}"


@pytest.mark.parametrize(
    "options",
    [["compare", "--topk", "0"], ["compare", "--topk", "-5"], ["experiment", "--alpha", "5"]],
    ids=["topk_0", "topk_minus_5", "alpha_5"],
)
def test_invalid_command_options(options, small_files):
    f = small_files
    if options[0] == "compare":
        argv = ["compare", "-R", f["qrels"], *options[1:], f["run1"], f["run2"]]
    else:
        argv = ["experiment", f["qrels"], f["run1"], f["run2"], *options[1:], "-m", "nDCG@10"]
    out, err, status = run_cli(argv)
    assert status == 2, f"{options}: exit status {status}"
    assert out == ""
    assert "Traceback" not in err


# -- format detection and FORMAT:PATH (rule 12) --------------------------------------------------------------------


@pytest.fixture
def binary_qrels(clean_inputs, tmp_path) -> dict[str, str]:
    """The CAsT qrels with grades made 0/1 (binary) and 0..2."""
    lines = clean_inputs["qrels"].decode().splitlines()
    paths = {}
    for name, top in (("binary", 1), ("three_levels", 2)):
        text = "".join(f"{q} 0 {d} {min(int(g), top)}\n" for q, _, d, g in (line.split() for line in lines))
        (tmp_path / name).write_text(text)
        paths[name] = str(tmp_path / name)
    return paths


@pytest.mark.parametrize("levels", ["binary", "three_levels"])
def test_binary_and_three_level_qrels_are_detected_as_qrels(levels, binary_qrels, small_files):
    qrels, f = binary_qrels[levels], small_files
    out, err, status = run_cli(["eval", qrels, f["run1"], "nDCG@10"])
    assert status == 0, err
    ndcg = float(out.split()[-1])
    out, err, status = run_cli(["experiment", qrels, f["run1"], f["run2"], "-m", "nDCG@10", "ppref@10"])
    assert status == 0, f"experiment: {err[:500]}"
    assert f"{ndcg:.4f}" in out
    out, err, status = run_cli(["meta", "runs", "-j", qrels, f["run1"], f["run2"], f["run3"], "-m", "nDCG@10"])
    assert status == 0, f"meta runs: {err[:500]}"
    assert f"{ndcg:.4f}" in out
    out, err, status = run_cli(["meta", "pr-curve", "-j", qrels, "--depth", "5", f["run1"], f["run2"]])
    assert status == 0, f"meta pr-curve: {err[:500]}"


def test_format_prefix_on_eval(small_files):
    f = small_files
    expected = run_cli(["eval", "-", f["dlrun"], "ppref@10", "--prefs", f["pairs"], "--prefs-format", "pairs"])
    assert expected[2] == 0, expected[1]
    assert run_cli(["eval", "pairs:" + f["pairs"], f["dlrun"], "ppref@10"]) == expected
    assert run_cli(["eval", "-", f["dlrun"], "ppref@10", "--prefs", "pairs:" + f["pairs"]]) == expected


def test_format_prefix_on_experiment_and_meta(small_files):
    f = small_files
    runs = [f["run1"], f["run2"], f["run3"]]
    base = run_cli(["experiment", f["winner"], *runs, "--prefs-format", "winner", "-m", "ppref@10"])
    assert base[2] == 0, base[1]
    assert run_cli(["experiment", "winner:" + f["winner"], *runs, "-m", "ppref@10"]) == base
    meta = run_cli(["meta", "runs", "-j", "real=" + f["winner"], "--prefs-format", "winner", *runs, "-m", "ppref@10"])
    assert meta[2] == 0, meta[1]
    assert run_cli(["meta", "runs", "-j", "real=winner:" + f["winner"], *runs, "-m", "ppref@10"]) == meta
    curve = run_cli(["meta", "pr-curve", "-j", f["qrels"], "--depth", "5", *runs])
    assert curve[2] == 0, curve[1]
    assert run_cli(["meta", "pr-curve", "-j", "qrels:" + f["qrels"], "--depth", "5", *runs]) == curve


def test_a_wrong_format_prefix_is_an_input_error(small_files):
    out, err, status = run_cli(["eval", "carterette:" + small_files["pairs"], small_files["dlrun"], "ppref@10"])
    assert status == 2 and out == "" and small_files["pairs"] in err


# -- float grades with pytrec_eval measures (rule 13) --------------------------------------------------------------


@pytest.mark.parametrize("per_query", [False, True])
def test_float_grades_with_a_pytrec_eval_measure(per_query, small_files, tmp_path):
    f = small_files
    q = ["-q"] if per_query else []
    fractional = tmp_path / "fractional"
    lines = Path(f["fqrels"]).read_text().splitlines()
    fractional.write_text("\n".join([*lines[:-1], lines[-1].rsplit(None, 1)[0] + " 0.5"]) + "\n")
    out, err, status = run_cli(["eval", *q, str(fractional), f["run1"], "ppref@10", "nDCG@10"])
    assert status == 2
    assert out == "", "output printed before the error"
    assert "nDCG@10" in err and "Traceback" not in err
    out, err, status = run_cli(["eval", *q, str(fractional), f["run1"], "ppref@10", "APpref", "PGC"])
    assert status == 0, err
    assert out


def test_a_doc_graded_twice(small_files, tmp_path):
    """An error wherever qrels are read, except in compare (pref_eval's rule: the largest grade over the lines)."""
    lines = Path(small_files["qrels"]).read_text().splitlines()
    query, _, doc, grade = lines[10].split()
    path = tmp_path / "regraded"
    path.write_text("\n".join([*lines, f"{query} 0 {doc} {int(grade) + 1}"]) + "\n")
    out, err, status = run_cli(["eval", str(path), small_files["run1"], "ppref@10"])
    _check_error(out, err, status, str(path), Mutated(b"", line=len(lines) + 1, text=f"{query} 0 {doc}"))
    higher = tmp_path / "higher"
    higher.write_text("\n".join(line if line != lines[10] else f"{query} 0 {doc} {int(grade) + 1}" for line in lines))
    runs = [small_files["run1"], small_files["run2"]]
    assert run_cli(["compare", "-R", str(path), "-q", *runs]) == run_cli(["compare", "-R", str(higher), "-q", *runs])


# -- the Python API: DataFrames with bad values (C) ----------------------------------------------------------------

QRELS_FRAME = pd.DataFrame(
    {"query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "a", "b"], "relevance": [2, 1, 0, 1, 0]}
)
RUN_FRAME = pd.DataFrame(
    {"query_id": ["q1", "q1", "q1", "q2"], "doc_id": ["b", "a", "c", "a"], "score": [3.0, 2, 1, 1]}
)


def _with(frame: pd.DataFrame, column: str, value) -> pd.DataFrame:
    frame = frame.copy()
    if isinstance(value, float) or value is None:
        frame[column] = frame[column].astype(object)
    frame.loc[1, column] = value
    return frame


BAD_QRELS_FRAMES = {
    "nan_grade": ("relevance", math.nan),
    "inf_grade": ("relevance", math.inf),
    "none_doc": ("doc_id", None),
    "none_query": ("query_id", None),
    "nul_in_doc": ("doc_id", "b\x00"),
    "nul_in_query": ("query_id", "q\x001"),
}
BAD_RUN_FRAMES = {
    "nan_score": ("score", math.nan),
    "inf_score": ("score", math.inf),
    "minus_inf_score": ("score", -math.inf),
    "none_doc": ("doc_id", None),
    "nul_in_doc": ("doc_id", "a\x00"),
    "control_in_query": ("query_id", "q\x1b1"),
}


@pytest.mark.parametrize("case", BAD_QRELS_FRAMES)
def test_api_rejects_bad_qrels_frames(case):
    import ir_measures

    import ir_pref_measures

    qrels = _with(QRELS_FRAME, *BAD_QRELS_FRAMES[case])
    with pytest.raises(ir_pref_measures.InputError):
        ir_measures.calc_aggregate([ir_pref_measures.ppref @ 10], qrels, RUN_FRAME)
    with pytest.raises(ir_pref_measures.InputError):
        ir_pref_measures.load_judgments(qrels)


@pytest.mark.parametrize("case", BAD_RUN_FRAMES)
def test_api_rejects_bad_run_frames(case):
    import ir_measures

    import ir_pref_measures

    run = _with(RUN_FRAME, *BAD_RUN_FRAMES[case])
    with pytest.raises(ir_pref_measures.InputError):
        ir_measures.calc_aggregate([ir_pref_measures.ppref @ 10], QRELS_FRAME, run)
    with pytest.raises(ir_pref_measures.InputError):
        ir_pref_measures.as_ranking(run)


@pytest.mark.parametrize("value", [math.nan, math.inf, None], ids=["nan", "inf", "none"])
def test_api_rejects_bad_preference_values(value):
    import ir_pref_measures

    prefs = pd.DataFrame(
        {"query_id": ["q1", "q1"], "doc_id_a": ["a", "b"], "doc_id_b": ["b", "c"], "preference": [-1, -1]}
    )
    prefs["preference"] = prefs["preference"].astype(object)
    prefs.loc[1, "preference"] = value
    with pytest.raises(ir_pref_measures.InputError):
        ir_pref_measures.load_judgments(prefs)


def test_api_accepts_the_clean_frames():  # the frames above are valid but for the one value changed
    import ir_measures

    import ir_pref_measures

    result = ir_measures.calc_aggregate([ir_pref_measures.ppref @ 10], QRELS_FRAME, RUN_FRAME)
    assert np.isclose(result[ir_pref_measures.ppref @ 10], (2 / 3 + 1) / 2)
    ir_pref_measures.load_judgments(QRELS_FRAME)
    ir_pref_measures.as_ranking(RUN_FRAME)
