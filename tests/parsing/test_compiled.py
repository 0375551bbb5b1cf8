"""The compiled path of the readers: the columns Arrow's parser gives, or the file left to it."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir_pref_measures import InputError
from ir_pref_measures.model.ids import string_hashes
from ir_pref_measures.parsing import compiled, formats
from ir_pref_measures.parsing.arrow import arrow_table

pytestmark = pytest.mark.skipif(not compiled.AVAILABLE, reason="installed without a C compiler: no compiled path")

NAMES = ["f0", "f1", "f2", "f3", "f4", "f5"]
USED = {"f0": pa.string(), "f2": pa.string(), "f4": pa.float64()}  # a run's query, doc and score


def both(tmp_path, data: bytes, names=NAMES, used=USED) -> tuple[pa.Table | None, pa.Table | None]:
    """The compiled path's table of ``data`` (the doc ids, third field, hashed: checked here), and Arrow's."""
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    found = compiled.compiled_table(path, names, used, [names[2]])
    if found is None:
        return None, arrow_table(data, names, used)
    table, hashes = found
    assert hashes[names[2]].tolist() == string_hashes(table.column(names[2])).tolist()
    return table, arrow_table(data, names, used)


def test_a_run_gives_arrows_columns(tmp_path):
    data = b"q1 Q0 d3 1 12.5 run\nq1 Q0 d10 2 -0.25 run\nq2 Q0 d1 1 3 run\nq2 Q0 d2 2 1.5e-3 run"  # no final LF
    mine, arrows = both(tmp_path, data)
    assert mine.equals(arrows) and mine.column("f4").to_pylist() == [12.5, -0.25, 3.0, 0.0015]


@pytest.mark.parametrize(
    "text",
    [
        "q Q0 d 1 1.5 r\n\nq Q0 e 2 1 r\n",  # a blank line
        "q Q0 d 1 1.5 r \n",  # a space at the end of a line
        " q Q0 d 1 1.5 r\n",  # a space at its start
        "q  Q0 d 1 1.5 r\n",  # two spaces
        "q\tQ0 d 1 1.5 r\n",  # a tab
        "q Q0 d 1 1.5 r\r\n",  # CR LF
        "# a comment\nq Q0 d 1 1.5 r\n",
        "q Q0 d 1 1.5\n",  # five fields
        "q Q0 d 1 1.5 r x\n",  # seven
        "q Q0 dé 1 1.5 r\n",  # non-ASCII text
        "\ufeffq Q0 d 1 1.5 r\n",  # a byte-order mark
        "q Q0 d 1 0.8771364092826843 r\n",  # 16 significant digits
        "q Q0 d 1 1e400 r\n",  # beyond 10^22
        "q Q0 d 1 inf r\n",
        "q Q0 d 1 nan r\n",
        "q Q0 d 1 +1 r\n",
        "q Q0 d 1 1. r\n",
        "q Q0 d 1 .5 r\n",
        "q Q0 d 1 1e r\n",
        "q Q0 d 1 - r\n",
        "q Q0 d 1 x r\n",
        "q Q0 d 1 1.5 r\x7f\n",
        "",
    ],
)
def test_any_other_file_is_left_to_arrow(tmp_path, text):
    assert both(tmp_path, text.encode())[0] is None


@pytest.mark.parametrize("text", ["q Q0 d 1 1.5 r\nq Q0 e 2 x r\n", "q Q0 d 1 1.5 r\nq Q0 e 2 1.5\n"])
def test_a_file_left_to_arrow_gets_its_error(tmp_path, text):
    """What the compiled path does not take is read as before: the error names the bad line."""
    path = tmp_path / "run.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=":2:"):
        formats.read_run(path)


def test_a_blank_line_is_skipped_as_before(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q Q0 d 1 1.5 r\n\nq Q0 e 2 1 r\n")
    assert formats.read_run(path)["doc_id"].tolist() == ["d", "e"]


DECIMAL = st.builds(
    lambda sign, whole, fraction, exponent: f"{sign}{whole}{'.' + fraction if fraction else ''}{exponent}",
    st.sampled_from(["", "-"]),
    st.from_regex(r"[0-9]{1,9}", fullmatch=True),
    st.one_of(st.just(""), st.from_regex(r"[0-9]{1,8}", fullmatch=True)),
    st.one_of(st.just(""), st.from_regex(r"[eE][-+]?[0-9]{1,2}", fullmatch=True)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(DECIMAL, min_size=1, max_size=40))
def test_numbers_are_the_correctly_rounded_doubles(tmp_path_factory, numbers):
    """Every decimal the compiled path takes is the double Python and Arrow read (correctly rounded)."""
    data = "".join(f"q Q0 d{i} {i + 1} {number} r\n" for i, number in enumerate(numbers)).encode()
    mine, arrows = both(tmp_path_factory.mktemp("numbers"), data)
    if mine is not None:
        assert mine.equals(arrows)
        values = mine.column("f4").to_numpy()
        assert values.tolist() == [float(number) for number in numbers]
        assert np.signbit(values).tolist() == [number.startswith("-") for number in numbers]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=" \n\t#x1.-é", max_size=12), min_size=1, max_size=8))
def test_odd_texts_give_arrows_columns_or_none(tmp_path_factory, pieces):
    """On any text, the compiled path gives Arrow's columns (and as many rows as lines) or leaves the text."""
    data = "\n".join(f"{p} Q0 d 1 1.5 r" if i % 2 else p for i, p in enumerate(pieces)).encode()
    mine, arrows = both(tmp_path_factory.mktemp("odd"), data)
    if mine is not None:
        assert arrows is not None and mine.equals(arrows)
        assert mine.num_rows == data.count(b"\n") + (not data.endswith(b"\n"))


def test_long_fields_and_many_lines(tmp_path):
    """Fields longer than the 16-byte copies, and the last bytes of the file (a tail shorter than a block)."""
    rng = np.random.default_rng(1)
    lines = [
        f"q{q} Q0 {'d' * int(rng.integers(1, 40))}{i} {i} {rng.normal():.6f} tag{q}"
        for q in range(30)
        for i in range(97)
    ]
    mine, arrows = both(tmp_path, ("\n".join(lines) + "\n").encode())
    assert mine.equals(arrows) and mine.num_rows == len(lines)


def test_qrels_columns(tmp_path):
    names = ["f0", "f1", "f2", "f3"]
    used = {"f0": pa.string(), "f2": pa.string(), "f3": pa.float64()}
    mine, arrows = both(tmp_path, b"1 0 a 2\n1 0 b 0\n2 0 a -1\n", names, used)
    assert mine.equals(arrows)


def test_decimals_within_the_fast_path_are_taken_and_exact(tmp_path):
    """Decimals of at most 15 significant digits and a power of ten within 10^+-22: all taken, each the double of
    Python's ``float`` (correctly rounded), the halfway cases of the last digits included."""
    rng = np.random.default_rng(7)
    numbers = []
    for _ in range(3000):
        whole = str(int(rng.integers(0, 10 ** int(rng.integers(1, 8)))))
        fraction = "".join(rng.choice(list("0123456789"), size=int(rng.integers(0, 8))))
        exponent = f"e{int(rng.integers(-8, 9))}" if rng.random() < 0.3 else ""
        numbers.append(("-" if rng.random() < 0.5 else "") + whole + ("." + fraction if fraction else "") + exponent)
    numbers += ["0.1", "0.3", "90071992547.4099", "999999999999999", "1e22", "1e-22", "-0", "-0.0", "0e99"]
    data = "".join(f"q Q0 d{i} {i + 1} {number} r\n" for i, number in enumerate(numbers)).encode()
    mine, arrows = both(tmp_path, data)
    assert mine is not None and mine.equals(arrows)
    values = mine.column("f4").to_numpy()
    assert values.tolist() == [float(number) for number in numbers]
    assert np.signbit(values).tolist() == [np.signbit(float(number)) for number in numbers]


def test_a_file_of_several_reads(tmp_path):
    """Lines across the megabyte reads of the file (the rest of a read carried to the next) and a last line without
    its line feed; a line longer than a read is left to Arrow."""
    rng = np.random.default_rng(2)
    lines = [f"q{i % 13} Q0 {'x' * int(rng.integers(1, 60))}{i} {i} {rng.normal():.4f} t" for i in range(60_000)]
    mine, arrows = both(tmp_path, "\n".join(lines).encode())
    assert mine.num_rows == len(lines) and mine.equals(arrows)
    assert both(tmp_path, f"q Q0 {'d' * (1 << 20)} 1 1.5 r\n".encode())[0] is None


def test_without_room_for_the_columns_the_file_is_left_to_arrow(tmp_path):
    """When the columns' room cannot be had (the address space limited here), the compiled path gives the file to
    Arrow's parser instead of failing with a MemoryError."""
    import subprocess
    import sys

    path = tmp_path / "run.txt"
    path.write_text("".join(f"q{i % 50} Q0 doc{i} {i} {i / 7:.4f} tag\n" for i in range(400_000)))  # 12 MB
    script = f"""
import resource
import pyarrow as pa
from ir_pref_measures.parsing import compiled
names, used = {NAMES!r}, {{"f0": pa.string(), "f2": pa.string(), "f4": pa.float64()}}
assert compiled.compiled_table({str(path)!r}, names, used, ["f2"]) is not None
size = int([line.split()[1] for line in open("/proc/self/status") if line.startswith("VmSize")][0]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + (8 << 20), resource.RLIM_INFINITY))
print(compiled.compiled_table({str(path)!r}, names, used, ["f2"]))
"""
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert found.returncode == 0 and found.stdout.strip() == "None", found.stderr
