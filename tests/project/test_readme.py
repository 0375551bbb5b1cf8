"""Every example of the README and of docs/*.md runs as written; the pages' links resolve.

Each fenced ```python block runs in a fresh namespace, each ```bash (or ```sh) block in ``bash -e``, in one folder
prepared once for all of them: the files the examples name, written as ``ir-pref-measures demo --files DIR`` writes
them (:data:`~ir_pref_measures.examples.EXAMPLE_FILES`, taken from the reference test data, never committed, or from
its generated stand-ins). A block added to a page later is picked up without a change here; only
:data:`SKIP` lists blocks that are not run, each with its reason (they are still parsed). A block without a language
is output; one that starts like code is an error, so no example escapes by a missing tag. Test ids name the page and
the line of the block's fence, e.g. ``docs/compare.md:42:python``; a traceback of a Python block gives the page's
line numbers.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, data_path

from ir_pref_measures.examples import EXAMPLE_FILES, TEXT_FILES, write_example_files

# the pages whose examples run: the README, then every page of docs/ (a new page is picked up by itself)
PAGES = ("README.md", *sorted(f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md")))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
RUNNABLE = {"python": "python", "bash": "bash", "sh": "bash"}
LOOKS_LIKE_CODE = re.compile(r"(import |from \S+ import |ir-pref-measures |ir_measures |python|pip |pytest|\$ )")

# a text that occurs in the block -> why the block is not run here (it is still parsed)
SKIP = {
    "pip install": "installs the package and runs this test suite; test_ci_runs_the_readme_test_command_verbatim "
    "checks that CI runs the test command verbatim and tests/project/test_packaging.py checks the install",
    "SLURMCluster": "needs a SLURM cluster (and dask-jobqueue)",
    "localhost:8000": "needs an OpenAI-compatible endpoint; tests/judging/test_llm.py runs the same calls against a "
    "loopback server",
    "judge serve": "serves until it is stopped; tests/judging/web/test_serve_command.py runs it",
    "lint-imports": "reads the installed (non-editable) package; tests/project/test_layers.py runs the same check",
}

# words the pages must not use: they speak of the software, not of how it was made
NOT_IN_DOCS = {
    r"\bseeds? \d{3}\b": "cite the paper, not the seed file",
    r"\bspecs/": "state the rule, not a design note",
    r"\.\./shared\b": "say 'the reference test data' (only the README's Development section names its path)",
    r"\bissues? #?\d+\b": "no issue numbers",
    r"\bthis session\b|\bwork in progress\b": "describe the software as it is",
}


def blocks(page: str) -> list[tuple[int, str, str]]:
    """(line of the opening fence, language tag, code) of every fenced block of ``page``."""
    text = (ROOT / page).read_text()
    return [(text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)) for m in FENCE.finditer(text)]


def examples() -> list[tuple[str, int, str, str]]:
    """(page, line, language, code) of every fenced block of the pages in a language that runs."""
    return [(page, line, RUNNABLE[tag], code) for page in PAGES for line, tag, code in blocks(page) if tag in RUNNABLE]


def skip_reason(code: str) -> str | None:
    return next((reason for text, reason in SKIP.items() if text in code), None)


def example_params():
    params = []
    for page, line, language, code in examples():
        reason = skip_reason(code)
        marks = [pytest.mark.skip(reason=reason)] if reason else []
        params.append(pytest.param(page, line, language, code, id=f"{page}:{line}:{language}", marks=marks))
    return params


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A working folder holding the files the examples name, as ``ir-pref-measures demo --files DIR`` writes them
    (:func:`~ir_pref_measures.examples.write_example_files`): taken from the reference test data, or from the
    session's generated stand-ins when it is absent (the examples show calls and options, not the real numbers)."""
    work = tmp_path_factory.mktemp("examples") / "files"
    write_example_files(work, data_path())
    return work


@pytest.mark.parametrize(("page", "line", "language", "code"), example_params())
def test_readme_example_runs(folder, monkeypatch, page, line, language, code):
    if language == "python":
        monkeypatch.chdir(folder)
        # the newlines put the block at its place in the page, so a traceback names the page's lines
        exec(compile("\n" * line + code, str(ROOT / page), "exec"), {"__name__": "__docs__"})
        return
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code], cwd=folder, env=env, capture_output=True)
    assert result.returncode == 0, result.stderr.decode()[-2000:]


def test_skipped_examples_still_parse():
    """A block that cannot run here (see :data:`SKIP`) is at least valid Python or bash."""
    skipped = [(page, line, language, code) for page, line, language, code in examples() if skip_reason(code)]
    assert skipped
    for page, line, language, code in skipped:
        if language == "python":
            compile("\n" * line + code, str(ROOT / page), "exec")
        else:
            result = subprocess.run(["bash", "-n", "-c", code], capture_output=True)
            assert result.returncode == 0, f"{page}:{line}: {result.stderr.decode()}"


def test_no_example_escapes_by_a_missing_tag_and_the_skip_list_is_used():
    """A block without a language holds output, never code or a command (tag those python or bash; usage
    lines ``text``); the fences pair up as written; every skip reason still has its block."""
    for page in PAGES:
        code_like = [line for line, tag, code in blocks(page) if not tag and LOOKS_LIKE_CODE.match(code.lstrip())]
        assert not code_like, f"{page} lines {code_like}: code in a fence without a language (python, bash, text)"
    found = examples()
    assert len(found) >= 25 and {language for page, _, language, _ in found if page == "README.md"} == {
        "python",
        "bash",
    }
    assert all("```" not in code for _, _, _, code in found)
    for text in SKIP:
        assert any(text in code for _, _, _, code in found), f"SKIP entry {text!r} matches no block"


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: str) -> set[str]:
    text = FENCE.sub("", (ROOT / page).read_text())
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        base = anchor = slug(heading)
        n = 0
        while anchor in found:
            n += 1
            anchor = f"{base}-{n}"
        found.add(anchor)
    return found


def test_links_between_the_pages_resolve():
    """Every relative link of the README and docs/ names a file that exists, and an anchor that its page has;
    every page of docs/ is listed in docs/README.md."""
    broken = []
    for page in PAGES:
        text = FENCE.sub("", (ROOT / page).read_text())
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            resolved = ((ROOT / page).parent / path).resolve() if path else ROOT / page
            if not resolved.exists():
                broken.append(f"{page}: {target} (no such file)")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(str(resolved.relative_to(ROOT))):
                broken.append(f"{page}: {target} (no such heading)")
    assert not broken, "\n".join(broken)
    index = (ROOT / "docs" / "README.md").read_text()
    unlisted = [page for page in PAGES if page.startswith("docs/") and page != "docs/README.md"]
    unlisted = [page for page in unlisted if f"]({page.removeprefix('docs/')})" not in index]
    assert not unlisted, f"docs/README.md does not list {unlisted}"


def test_the_pages_speak_of_the_software():
    """No seed numbers, design-note paths, issue numbers or notes on the work in the pages; the path of the
    reference test data only in the README's Development section."""
    found = []
    for page in PAGES:
        text = (ROOT / page).read_text()
        if page == "README.md":
            text = text[: text.index("\n## Development")]
        for pattern, why in NOT_IN_DOCS.items():
            found += [f"{page}: {m.group(0)!r}: {why}" for m in re.finditer(pattern, text, re.I)]
    assert not found, "\n".join(found)


def commands() -> list[str]:
    _, _, first_block = blocks("README.md")[0]
    return [line for line in first_block.splitlines() if line.strip() and not line.startswith("#")]


def test_readme_opens_with_the_demo_and_the_test_command():
    assert blocks("README.md")[0][0] == 3, "the two commands open the README, right below its title"
    demo, tests = commands()
    assert demo.endswith("ir-pref-measures demo")
    assert "pytest" in tests


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert commands()[1] in ci


def test_every_page_with_example_files_says_where_they_come_from():
    """A page whose examples name the example files says in its first lines that ``ir-pref-measures demo --files
    DIR`` writes them."""
    names = (*EXAMPLE_FILES, *TEXT_FILES)
    pages = {page for page, _, _, code in examples() if page != "README.md" and any(n in code for n in names)}
    assert pages
    for page in sorted(pages):
        opening = "\n".join((ROOT / page).read_text().splitlines()[:6])
        assert "`ir-pref-measures demo --files DIR`" in opening, page
    assert "ir-pref-measures demo --files" in (ROOT / "README.md").read_text()


def test_quick_start_reads_gpt4o_style_pairs():
    """The quick start's preference file is `qid winner loser` (GPT-4o's judgments), read as such."""
    import ir_pref_measures

    quick_start = next(code for page, _, language, code in examples() if language == "python")
    assert 'load_judgments("prefs.txt", format="pairs")' in quick_start
    assert ir_pref_measures.detect_format(str(data_path(*EXAMPLE_FILES["prefs.txt"]))) == "pairs"
