"""``ir-pref-measures demo --files DIR``: the files the documentation's examples name."""

from __future__ import annotations

from conftest import run_cli

from ir_pref_measures.examples import EXAMPLE_FILES, TEXT_FILES


def test_demo_files_writes_every_name_the_pages_use_and_the_same_bytes_each_time(tmp_path):
    out, err, status = run_cli(["demo", "--files", str(tmp_path / "a")])
    assert status == 0, err
    written = {path.name: path.read_bytes() for path in (tmp_path / "a").iterdir()}
    assert sorted(written) == sorted([*EXAMPLE_FILES, *TEXT_FILES])
    assert out.startswith(f"{len(written)} example files in {tmp_path / 'a'}: qrels.txt run.txt ")
    assert all(written.values())
    assert run_cli(["demo", "--files", str(tmp_path / "b")])[2] == 0
    assert {path.name: path.read_bytes() for path in (tmp_path / "b").iterdir()} == written


def test_demo_files_overwrites_nothing(tmp_path):
    (tmp_path / "run1.txt").write_text("mine\n")
    out, err, status = run_cli(["demo", "--files", str(tmp_path)])
    assert status == 2 and out == ""
    assert "run1.txt exist already; nothing was written" in err
    assert [path.name for path in tmp_path.iterdir()] == ["run1.txt"]
    assert (tmp_path / "run1.txt").read_text() == "mine\n"


def test_the_example_files_read_as_the_pages_say(tmp_path):
    import ir_pref_measures as ipm

    assert run_cli(["demo", "--files", str(tmp_path)])[2] == 0
    assert ipm.detect_format(str(tmp_path / "prefs.txt")) == "pairs"
    out, err, status = run_cli(["eval", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"), "nDCG@10", "ppref@10"])
    assert status == 0 and "nDCG@10" in out, err
