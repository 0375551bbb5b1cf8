"""The README's two commands are the ones a newcomer needs, and CI runs the test one verbatim."""

from __future__ import annotations

import re

from conftest import ROOT


def commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    first_block = re.search(r"```(?:bash|sh)?\n(.*?)```", readme, re.S).group(1)
    return [line for line in first_block.splitlines() if line.strip() and not line.startswith("#")]


def test_readme_opens_with_the_demo_and_the_test_command():
    demo, tests = commands()
    assert demo.endswith("ir-pref-measures demo")
    assert "pytest" in tests


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert commands()[1] in ci


def test_python_quick_start_runs_as_written(tmp_path, monkeypatch):
    """The README's Python example, verbatim, on CAsT 2019 files named as in the example."""
    import gzip
    import shutil

    from conftest import testdata_path

    shutil.copy(testdata_path("cast2019_qrels", "2019qrels.txt"), tmp_path / "qrels.txt")
    shutil.copy(testdata_path("cast2019_toppref", "TREC-CAsT-2019.pref"), tmp_path / "prefs.txt")
    with gzip.open(testdata_path("cast2019_runs_decaf", "decaf_exp1.run.gz"), "rt") as run:
        (tmp_path / "run.txt").write_text(run.read())
    readme = (ROOT / "README.md").read_text()
    code = re.search(r"### Python\n\n```python\n(.*?)```", readme, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["metric"].query_id  # the loop at the end ran over the combined judgments
