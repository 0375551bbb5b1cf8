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
