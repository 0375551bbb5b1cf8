"""Every example of the README runs as written.

Each fenced ```python block runs in a fresh namespace, each ```bash (or ```sh) block in ``bash -e``, in one
folder prepared once for all of them: the files the examples name (:data:`FILES`, taken from
``../shared/testdata``; never committed), ``../shared/testdata`` itself beside it (a link, for the examples that
name it), and ``docs/images/`` for the plots they write. A block added to the README later is picked up
without a change here; only :data:`SKIP` lists blocks that are not run, each with its reason. A block without
a language is output; one that starts like code is an error, so no example escapes by a missing tag.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, TESTDATA, testdata_path

README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
RUNNABLE = {"python": "python", "bash": "bash", "sh": "bash"}
LOOKS_LIKE_CODE = re.compile(r"(import |from \S+ import |ir-pref-measures |ir_measures |python|pip |pytest|\$ )")

# the examples on the 16 CAsT 2019 runs take 10-35 s each; they run on these five (the README says so)
CAST_SUBSET = (1, 4, 7, 12, 16)
# the file names of the examples -> the test data they hold (a ".gz" source is decompressed unless the name keeps it)
DL19 = "dl_llm_prefs_arabzadeh"
FILES = {
    "qrels.txt": (DL19, "qrels.dl19-passage.txt"),
    "run.txt": (DL19, "runs", "input.ICT-BERT2.txt.gz"),
    "prefs.txt": (DL19, "llm_pref_judgments", "DL2019", "judge.00"),
    "run1.txt": (DL19, "runs", "input.ICT-BERT2.txt.gz"),
    "run2.txt": (DL19, "runs", "input.ICT-CKNRM_B.txt.gz"),
    "run3.txt": (DL19, "runs", "input.ICT-CKNRM_B50.txt.gz"),
    **{f"input.ICT-{r}.txt.gz": (DL19, "runs", f"input.ICT-{r}.txt.gz") for r in ("BERT2", "CKNRM_B", "CKNRM_B50")},
    **{f"judge.0{k}": (DL19, "llm_pref_judgments", "DL2019", f"judge.0{k}") for k in range(7)},
    "preferences.txt": ("carterette", "preferences.txt"),
    "results.txt": ("carterette", "results.txt"),
    **{name: ("trec_eval_prefs", name) for name in ("prefs.test", "prefs.results.test", "qrels.test", "results.test")},
    **{f"decaf_exp{k}.run.gz": ("cast2019_runs_decaf", f"decaf_exp{k}.run.gz") for k in CAST_SUBSET},
    "TREC-CAsT-2019.pref": ("cast2019_toppref", "TREC-CAsT-2019.pref"),
}

# a text that occurs in the block -> why the block is not run here
SKIP = {
    "pip install": "installs the package and runs this test suite; test_ci_runs_the_readme_test_command_verbatim "
    "checks that CI runs the test command verbatim and tests/test_packaging.py checks the install",
}


def examples() -> list[tuple[int, str, str]]:
    """(line number, language, code) of every fenced block of the README in a language that runs."""
    text = README.read_text()
    found = []
    for match in FENCE.finditer(text):
        if match.group(1) in RUNNABLE:
            found.append((text.count("\n", 0, match.start()) + 1, RUNNABLE[match.group(1)], match.group(2)))
    return found


def example_params():
    params = []
    for line, language, code in examples():
        skip = [reason for text, reason in SKIP.items() if text in code]
        marks = [pytest.mark.skip(reason=skip[0])] if skip else []
        params.append(pytest.param(language, code, id=f"README.md:{line}:{language}", marks=marks))
    return params


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A working folder with the examples' files, ../shared/testdata beside it (links to the test data, with
    the CAsT runs cut to :data:`CAST_SUBSET`) and docs/images/ in it."""
    testdata_path()  # skips without the test data
    root = tmp_path_factory.mktemp("readme")
    shared = root / "shared" / "testdata"
    (shared / "cast2019_runs_decaf").mkdir(parents=True)
    for entry in TESTDATA.iterdir():
        if entry.name != "cast2019_runs_decaf":
            (shared / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    for k in CAST_SUBSET:
        (shared / "cast2019_runs_decaf" / f"decaf_exp{k}.run.gz").symlink_to(
            testdata_path(*FILES[f"decaf_exp{k}.run.gz"])
        )
    work = root / "project"
    (work / "docs" / "images").mkdir(parents=True)
    for name, source in FILES.items():
        path = testdata_path(*source)
        if path.suffix == ".gz" and not name.endswith(".gz"):
            with gzip.open(path, "rb") as compressed, open(work / name, "wb") as plain:
                shutil.copyfileobj(compressed, plain)
        else:
            shutil.copyfile(path, work / name)
    return work


@pytest.mark.parametrize(("language", "code"), example_params())
def test_readme_example_runs(folder, monkeypatch, language, code):
    if language == "python":
        monkeypatch.chdir(folder)
        exec(compile(code, str(README), "exec"), {"__name__": "__readme__"})
        return
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code], cwd=folder, env=env, capture_output=True)
    assert result.returncode == 0, result.stderr.decode()[-2000:]


def test_no_example_escapes_by_a_missing_tag_and_the_skip_list_is_used():
    """A block without a language holds output, never code or a command (tag those python or bash; usage
    lines ``text``); the fences pair up as written; every skip reason still has its block."""
    text = README.read_text()
    untagged = [m for m in FENCE.finditer(text) if not m.group(1)]
    code_like = [text.count("\n", 0, m.start()) + 1 for m in untagged if LOOKS_LIKE_CODE.match(m.group(2).lstrip())]
    assert not code_like, f"README.md lines {code_like}: code in a fence without a language (python, bash, text)"
    found = examples()
    assert len(found) >= 15 and {language for _, language, _ in found} == {"python", "bash"}
    assert all("```" not in code for _, _, code in found)
    for text in SKIP:
        assert any(text in code for _, _, code in found), f"SKIP entry {text!r} matches no block"


def commands() -> list[str]:
    first_block = next(code for _, _, code in examples())
    return [line for line in first_block.splitlines() if line.strip() and not line.startswith("#")]


def test_readme_opens_with_the_demo_and_the_test_command():
    demo, tests = commands()
    assert demo.endswith("ir-pref-measures demo")
    assert "pytest" in tests


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert commands()[1] in ci


def test_quick_start_reads_gpt4o_style_pairs():
    """The quick start's preference file is `qid winner loser` (GPT-4o's judgments), read as such."""
    from ir_pref_measures.readers.formats import detect_format

    quick_start = next(code for _, language, code in examples() if language == "python")
    assert 'load_judgments("prefs.txt", format="pairs")' in quick_start
    assert detect_format(str(testdata_path(*FILES["prefs.txt"]))) == "pairs"
