"""Every benchmark script runs at a tiny size (its ``--quick`` size, or small options): a smoke test, so that none
of them rots. No timing is asserted; a benchmark that fails exits non-zero. Each runs from a temporary folder (the
installed package, never the checkout's source tree) and leaves ``benchmarks/results`` as it was."""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import data_path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


SMOKE = {  # script -> its arguments at a tiny size
    "active_ppi_dl2021.py": ["--samples", "5", "--size", "12", "--measures", "Compatibility"],
    "bench_calling_forms.py": ["--quick"],
    "bench_compare.py": ["--quick"],
    "bench_dask.py": ["--queries", "200", "--docs", "10", "--runs", "2", "--chunk", "100", "--workers", "1"],
    "bench_experiment.py": ["--small", "--repeat", "1"],
    "bench_judges.py": ["--queries", "20", "--votes", "200", "--samples", "10"],
    "bench_judging.py": ["--repeat", "1"],
    "bench_large_query.py": ["--only", "graded-only", "--cap-gb", "4", "--timeout", "120"],
    "bench_leaderboard.py": ["--systems", "5", "--battles", "1000", "--queries", "10", "--rounds", "10"],
    "bench_llm_judge.py": ["--quick"],
    "bench_pair_memory.py": ["--docs", "300", "--questions", "10"],
    "bench_pgc.py": ["--queries", "5"],
    "bench_ppref.py": ["--queries", "5"],
    "bench_scale.py": ["--quick"],
    "bench_tied_rbo.py": ["--queries", "10", "--depth", "50", "--repeat", "1", "--reference-queries", "0"],
    "bench_trec_eval.py": ["--quick"],
    "bench_tukey.py": ["--quick"],
    "bench_web.py": ["--assessors", "2", "--seconds", "2", "--queries", "3", "--docs", "10", "--port", "{port}"],
    "simulate_judging_dl2019.py": ["--seeds", "1", "--selectors", "random"],
    "noisy_judgments_dl2019.py": ["--seeds", "1", "--noise", "0.1", "--budgets", "0.1"],
}
ALLOWED_FAILURES = {  # a variant that needs an optional peer the machine may lack: that row fails, the rest ran
    "bench_experiment.py": "ranx not installed",
}


def _results() -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted((BENCHMARKS / "results").glob("*"))}


def test_every_benchmark_has_a_smoke_size():
    scripts = {p.name for p in BENCHMARKS.glob("*.py")} - {"harness.py", "tables.py", "versions.py"}
    assert scripts == set(SMOKE)


def test_versions_compares_an_install_with_itself(tmp_path):
    """``versions.py --quick`` with this interpreter as old and as new: a row per workload of the benchmarks it
    covers, every one run under both, and both printed the same output (each workload is deterministic)."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "versions.py"), "--old", sys.executable, "--new", sys.executable, "--quick"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    table = done.stdout[done.stdout.index("| workload |") :].splitlines()
    assert table[0].split(" | ")[1:8] == ["old s", "new s", "new/old", "old CPU s", "new CPU s", "old MB", "new MB"]
    rows = {line.split(" | ")[0].removeprefix("| "): line.split(" | ")[-1].rstrip(" |") for line in table[2:]}
    covered = {name.split(":")[0] for name in rows}
    assert covered >= {"scale", "ppref", "pgc", "large_query", "compare", "experiment", "tied_rbo", "leaderboard"}
    assert covered >= {"judges", "tukey", "dask", "calling forms"}
    assert set(rows.values()) == {"same"}, rows
    assert "load average at start" in done.stdout and "load average at end" in done.stdout


@pytest.mark.parametrize("script", sorted(SMOKE))
def test_benchmark_runs_at_a_tiny_size(script, tmp_path):
    arguments = [a.format(port=_free_port()) for a in SMOKE[script]]
    if script in ("simulate_judging_dl2019.py", "noisy_judgments_dl2019.py", "active_ppi_dl2021.py"):  # DL data
        arguments += ["--testdata", str(data_path("dl_llm_prefs_arabzadeh").parent)]
    before = _results()
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *arguments],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    allowed = ALLOWED_FAILURES.get(script)
    if done.returncode and not (allowed and allowed in done.stdout + done.stderr):
        pytest.fail(f"{script} {' '.join(arguments)}: exit status {done.returncode}\n{done.stderr[-3000:]}")
    assert done.stdout.strip(), f"{script} printed nothing"
    assert _results() == before, f"{script} wrote over benchmarks/results at its smoke size"


def test_the_performance_page_shows_the_saved_results():
    """The marked tables of docs/performance.md are those ``benchmarks/tables.py`` writes from the JSON results."""
    sys.path.insert(0, str(BENCHMARKS))
    from tables import PAGE, render

    page = PAGE.read_text()
    assert "<!-- bench:" in page
    assert render(page, BENCHMARKS / "results") == page, "run python benchmarks/tables.py"
