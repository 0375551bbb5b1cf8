"""The public API: every name the docs use is ``ipm.NAME`` or, for a concept package, ``ipm.PACKAGE.NAME`` in its
``__all__``; the docs and the tests import nothing below those names (tests of internals are listed in
:data:`ALLOWED`, each with its reason); the measure objects are explicit bindings generated from the catalog; a type
checker sees every public name; ``import ir_pref_measures`` stays light."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import subprocess
import sys
import warnings

import pytest
from conftest import ROOT

import ir_pref_measures as ipm

SECTIONS = ("Parameters", "Returns")
CONCEPTS = ("agreement", "comparison", "dask", "experiment", "judging", "leaderboards", "meta", "stats")
PAGES = ("README.md", *sorted(f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md")))
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
NAME_IN_TEXT = re.compile(r"\b(?:ipm|ir_pref_measures)\.([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?")

# (test file, module it imports below the public names) -> why this test reaches the internals
ALLOWED = {
    ("tests/project/test_startup.py", "ir_pref_measures.judging.effort"): "the selectors the parser offers against "
    "the module that implements them",
    ("tests/test_engine.py", "ir_pref_measures.comparison.pairwise"): "the engine's pairwise values against the "
    "compare kernel's own relevant docs and comparisons",
    ("tests/measures/test_pairwise.py", "ir_pref_measures.comparison.pairwise"): "the kernels against compare's "
    "default measure list",
    ("tests/agreement/test_panel.py", "ir_pref_measures.agreement.coefficients"): "the kappa and alpha kernels against "
    "scikit-learn and krippendorff",
    ("tests/agreement/test_panel.py", "ir_pref_measures.agreement.sources"): "judges read from votes and grades",
    ("tests/leaderboards/test_boards.py", "ir_pref_measures.leaderboards.ratings"): "the rating kernels against "
    "FastChat's reference output",
    ("tests/leaderboards/test_boards.py", "ir_pref_measures.leaderboards.intervals"): "the bootstrap's weights",
    ("tests/experiment/test_columns.py", "ir_pref_measures.experiment.runs"): "runs cut at a depth",
    ("tests/experiment/test_front.py", "ir_pref_measures.experiment.values"): "the local per-query computation, "
    "wrapped to check Experiment's per_query parameter",
    ("tests/reliability/test_environment_errors.py", "ir_pref_measures.dask.scheduler"): "the scheduler "
    "handshake's bound under a broken environment",
    ("tests/commands/test_eval.py", "ir_pref_measures.experiment.demo"): "the demo's data, where nDCG and APpref "
    "disagree",
    ("tests/commands/test_experiment.py", "ir_pref_measures.meta.plots"): "the plots the command draws",
    ("tests/commands/test_ppi.py", "ir_pref_measures.stats.topic_set_size"): "the module the command wraps",
    ("tests/experiment/test_render.py", "ir_pref_measures.experiment.styled"): "the highlight rule of styled tables",
    ("tests/judging/test_database.py", "ir_pref_measures.judging.store"): "the store's schema on each database",
    ("tests/judging/test_store_p_first.py", "ir_pref_measures.judging.database"): "a store made before the "
    "p_first column, written with the database's own connection",
    ("tests/judging/test_store_p_first.py", "ir_pref_measures.judging.store"): "the schema of a store made before "
    "the p_first column",
    ("tests/judging/test_judge_run_failures.py", "ir_pref_measures.judging.database"): "a store made before the "
    "failure column, written through the database layer",
    ("tests/judging/test_judge_run_failures.py", "ir_pref_measures.judging.store"): "the schema of a store made "
    "before the failure column",
    ("tests/judging/test_database.py", "ir_pref_measures.judging.web.desk"): "the desk's schema on each database",
    ("tests/judging/test_llm.py", "ir_pref_measures.judging.presets"): "the preset's system prompt, line for line",
    ("tests/judging/test_llm.py", "ir_pref_measures.judging.texts"): "the marker of a missing text",
    ("tests/judging/test_selectors.py", "ir_pref_measures.leaderboards.ratings"): "the dense Bradley-Terry fit, the "
    "oracle of the rating-driven selector",
    ("tests/judging/test_selectors.py", "ir_pref_measures.judging.selectors.base"): "the runs' top ranks, against "
    "their definition",
    ("tests/reliability/test_judging_inputs.py", "ir_pref_measures.judging.database"): "the store's busy timeout and "
    "connection, made to fail",
    ("tests/reliability/test_judging_inputs.py", "ir_pref_measures.judging.redact"): "the key's masking, form by form",
    ("tests/reliability/test_judging_inputs.py", "ir_pref_measures.judging.selectors.base"): "the pair order as it was "
    "made eagerly, the lazy one's oracle",
    ("tests/reliability/test_judging_inputs.py", "ir_pref_measures.judging.selectors.pairs"): "the lazy pair order",
    ("tests/judging/test_selectors.py", "ir_pref_measures.judging.selectors.rating"): "the systems' disagreement "
    "weights, against their definition",
    ("tests/judging/test_store.py", "ir_pref_measures.judging.exports"): "the verdicts behind every export",
    ("tests/judging/test_topk.py", "ir_pref_measures.judging.selectors.topk"): "prefj.py's candidates",
    ("tests/judging/test_cache_postgresql.py", "ir_pref_measures.judging.judges.cache"): "the cache's reads and "
    "writes against a PostgreSQL that holds them up",
    ("tests/judging/web/server.py", "ir_pref_measures.judging.web"): "the web interface's server, run by the tests",
    ("tests/judging/web/test_app.py", "ir_pref_measures.judging.database"): "the database URL's connection",
    ("tests/judging/web/test_desk.py", "ir_pref_measures.judging.web"): "the desk the web interface serves",
    ("tests/judging/web/test_gold.py", "ir_pref_measures.judging.web"): "the desk the web interface serves",
    ("tests/judging/web/test_threads.py", "ir_pref_measures.judging.web"): "the desk the web interface serves",
    ("tests/judging/web/test_threads.py", "ir_pref_measures.judging.web.app"): "the app served on threads, driven "
    "by the tests' client",
    ("tests/judging/web/test_security.py", "ir_pref_measures.judging.web.security"): "the security module's tokens, "
    "CSRF, headers and body limit, each against its definition",
    ("tests/leaderboards/test_ppi.py", "ir_pref_measures.leaderboards.ratings"): "the points matrix of the fits",
    ("tests/leaderboards/test_sparse_ratings.py", "ir_pref_measures.leaderboards.ratings"): "the dense fit, the "
    "oracle of the sparse one",
    ("tests/oracles/graded_systems.py", "ir_pref_measures.judging.simulation"): "the preferences of a simulated effort",
    ("tests/reliability/test_bad_output.py", "ir_pref_measures.experiment.render"): "the renderer on odd tables",
    ("tests/reliability/test_newer_features.py", "ir_pref_measures.agreement.panel"): "the panel's functions on "
    "odd input",
    ("tests/reliability/test_newer_features.py", "ir_pref_measures.leaderboards.boards"): "battles encoded on odd "
    "input",
}


def _public(module: str, name: str | None) -> bool:
    """Whether ``from module import name`` (``import module`` when ``name`` is None) names public names only."""
    parts = module.split(".")
    if parts[0] != "ir_pref_measures":
        return True
    if len(parts) == 1:
        return name is None or name in ipm.__all__
    if len(parts) == 2 and parts[1] in CONCEPTS:
        return name is None or name in importlib.import_module(module).__all__
    return False


def _imports(source: str) -> list[tuple[int, str, str | None]]:
    """(line, module, name) of every import of ``source`` (name None for ``import module``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found += [(node.lineno, node.module, alias.name) for alias in node.names]
    return found


def _below_a_concept_package(module: str, name: str | None) -> bool:
    """Whether the import reaches below a concept package's public names (the rule for tests: the kernels and the
    model below the concept packages are theirs to test)."""
    parts = module.split(".")
    if parts[0] != "ir_pref_measures" or len(parts) < 2 or parts[1] not in CONCEPTS:
        return False
    return len(parts) > 2 or not _public(module, name)


def _tests_own_module(test: str, module: str, name: str | None) -> bool:
    """A test file mirrors its module: ``tests/<package>/test_<module>.py`` may import ``<package>.<module>``."""
    parts = test.split("/")
    if len(parts) != 3 or not parts[2].startswith("test_"):
        return False
    own = f"ir_pref_measures.{parts[1]}.{parts[2][len('test_') : -len('.py')]}"
    return module == own or f"{module}.{name}" == own


@pytest.mark.parametrize("page", PAGES)
def test_the_docs_import_only_public_names(page):
    text = (ROOT / page).read_text()
    deep = [
        f"{page}: from {module} import {name}" if name else f"{page}: import {module}"
        for block in PYTHON_BLOCK.findall(text)
        for _, module, name in _imports(block)
        if not _public(module, name)
    ]
    assert not deep, "imports below the public names:\n" + "\n".join(deep)


@pytest.mark.parametrize("page", [page for page in PAGES if page != "docs/architecture.md"])  # that one: the modules
def test_every_name_of_the_docs_is_public(page):
    """``ipm.NAME`` and ``ir_pref_measures.NAME`` in the text are in ``__all__``; ``ipm.PACKAGE.NAME`` of a concept
    package in the package's ``__all__``; each resolves."""
    missing = []
    for name, attribute in set(NAME_IN_TEXT.findall((ROOT / page).read_text())):
        if name not in ipm.__all__:
            missing.append(name)
        elif name in CONCEPTS and attribute:
            package = getattr(ipm, name)
            if attribute not in package.__all__ or not hasattr(package, attribute):
                missing.append(f"{name}.{attribute}")
    assert not missing, f"{page} uses names that are not public: {sorted(missing)}"


def test_the_tests_import_nothing_below_a_concept_package():
    found, used = [], set()
    for path in sorted((ROOT / "tests").rglob("*.py")):
        test = path.relative_to(ROOT).as_posix()
        for line, module, name in _imports(path.read_text()):
            if not _below_a_concept_package(module, name) or _tests_own_module(test, module, name):
                continue
            key = (test, module if module.count(".") > 1 else f"{module}.{name}")
            if key in ALLOWED:
                used.add(key)
            else:
                found.append(f"{test}:{line}: {module} {name or ''}")
    assert not found, "imports below a concept package's public names (import the public name, or add the test to "
    "ALLOWED with a reason):\n" + "\n".join(found)
    assert not set(ALLOWED) - used, f"ALLOWED lists imports no test makes: {sorted(set(ALLOWED) - used)}"


def test_a_deep_import_is_found():
    """The rule can fail: a deep import of a concept module and a private name are both caught."""
    source = "from ir_pref_measures.stats.tukey import tukey_hsd\nfrom ir_pref_measures.stats import paired\n"
    assert [_below_a_concept_package(m, n) for _, m, n in _imports(source)] == [True, True]
    assert not _public("ir_pref_measures.measures.tied_rbo", "rbo_of_scores")
    assert _public("ir_pref_measures", "rbo_of_scores") and _public("ir_pref_measures.stats", "tukey_hsd")


def test_every_public_name_resolves():
    for name in ipm.__all__:
        assert getattr(ipm, name) is not None, name
    for package in CONCEPTS:
        module = getattr(ipm, package)
        assert sorted(module.__all__) == sorted(set(module.__all__)), package
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{package}.{name}"


# top-level functions whose docstrings say their parameters and return value in prose, without numpydoc sections
PROSE_DOCSTRINGS = {"Experiment", "compare", "evaluate", "set_n_jobs"}


def test_the_public_functions_say_what_they_take_and_return():
    """Every public name has a docstring; every top-level function has Parameters and Returns sections (but those
    of :data:`PROSE_DOCSTRINGS`)."""
    values = {name: getattr(ipm, name) for name in ipm.__all__}
    functions = {name for name, value in values.items() if inspect.isfunction(value)}
    undocumented = [name for name, value in values.items() if not inspect.getdoc(value)]
    assert not undocumented, undocumented
    sections = {name for name in functions if all(f"\n{s}\n" in inspect.getdoc(values[name]) for s in SECTIONS)}
    assert functions - sections == PROSE_DOCSTRINGS


def test_the_measure_objects_are_generated_from_the_catalog():
    """``ipm.ppref``, ``ipm.PGC``, ... are explicit bindings; ``tools/public_api.py --check`` regenerates them from the
    installed catalog and compares."""
    found = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "public_api.py"), "--check"], capture_output=True, text=True, check=False
    )
    assert found.returncode == 0, found.stderr
    from ir_pref_measures.adapters.ir_measures import MEASURES

    for name, measure in MEASURES.items():
        assert getattr(ipm, name) is measure and name in ipm.__all__


def test_a_stale_binding_block_is_found():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import public_api
    finally:
        sys.path.remove(str(ROOT / "tools"))
    text = (ROOT / "ir_pref_measures" / "__init__.py").read_text()
    assert public_api.generated(text, list(public_api.measure_names())) == text
    assert public_api.generated(text, ["ppref"]) != text


def test_import_stays_light():
    """``import ir_pref_measures`` loads neither ir_measures nor numpy, pyarrow, pandas, scipy, statsmodels,
    matplotlib or Dask (tests/adapters/test_registration.py: and yet registers with ir_measures)."""
    code = (
        "import sys, ir_pref_measures\n"
        "heavy = {'ir_measures', 'numpy', 'pyarrow', 'pandas', 'scipy', 'statsmodels', 'matplotlib', 'dask', "
        "'distributed'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert found.stdout.strip() == "[]"


def test_a_type_checker_sees_every_public_name(tmp_path):
    """mypy reads every name of ``__all__`` and of the concept packages' ``__all__`` (the names imported on first
    use included), and the measure objects as ir_measures measures; a misspelt name is its error."""
    mypy = pytest.importorskip("mypy.api")
    lines = ["import ir_pref_measures as ipm", "import ir_measures"]
    lines += [f"_{i} = ipm.{name}" for i, name in enumerate(ipm.__all__)]
    for package in CONCEPTS:
        lines += [f"_{package}_{name} = ipm.{package}.{name}" for name in getattr(ipm, package).__all__]
    lines += [
        "measure: ir_measures.Measure = ipm.ppref @ 10",
        "table = ipm.Experiment(['run.txt'], 'qrels.txt', [ipm.APpref, ipm.PGC(p=0.8)])",
        "pairs = ipm.tukey_hsd([[0.1, 0.2], [0.3, 0.4]])",
        "ipm.not_a_public_name",
    ]
    (tmp_path / "use.py").write_text("\n".join(lines) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, err, status = mypy.run(
            ["--follow-imports=silent", "--cache-dir", str(tmp_path / "cache"), str(tmp_path / "use.py")]
        )
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "not_a_public_name" in errors[0], out + err
    assert status == 1


def test_every_public_function_and_class_says_where_it_lives():
    """``__module__`` and ``__qualname__`` of every function and class of ``ipm`` name it (``help()``, ``pickle``
    and the docs tools find it there), not a module it was copied from."""
    for name in ipm.__all__:
        value = getattr(ipm, name)
        if inspect.isfunction(value) or inspect.isclass(value):
            home = importlib.import_module(value.__module__)
            assert getattr(home, value.__qualname__, None) is value, name
