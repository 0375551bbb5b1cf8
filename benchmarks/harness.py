"""The benchmarks' one harness: best-of-N timing (in this process, or of a command in a fresh Python process with
that process's own peak RSS), peak RSS, seeded input files, the machine's load, results as JSON.

A benchmark builds a :class:`Report`, times each variant in its process (:func:`best_seconds`, then
:meth:`Report.add`) or with :meth:`Report.command` (a fresh process), each row's ratio taken against its floor (a
variant timed before it, by default the first), and saves it; ``benchmarks/tables.py`` turns the JSON files of
``benchmarks/results/`` into the tables of ``docs/performance.md``.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).parent / "results"

# runs a command (``ir-pref-measures ...`` or a script) in this fresh process and prints its own peak RSS (VmHWM)
PEAK_REPORTER = """
import os, runpy, sys
script, *sys.argv[1:] = sys.argv[1:]
sys.argv[0] = script
try:
    if script == "ir-pref-measures":
        from ir_pref_measures.commands import main
        code = main(sys.argv[1:])
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(script)))  # as `python script` does
        runpy.run_path(script, run_name="__main__")
        code = 0
finally:
    hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
    sys.stderr.write("peak_kb=" + (hwm[0].split()[1] if hwm else "0") + "\\n")
sys.exit(code)
"""


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB (VmHWM; ru_maxrss would include the parent's across exec)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def doc_names(numbers: np.ndarray, prefix: str = "D", width: int = 0) -> np.ndarray:
    """Doc ids ``prefix`` + the number (zero-padded to ``width`` digits) of each of ``numbers``."""
    digits = numbers.astype(np.int64).astype(str)
    return np.char.add(prefix, np.char.zfill(digits, width) if width else digits)


def write_table(path: Path, columns: Mapping[str, object], *, append: bool = False, float_format: str | None = None):
    """Write ``columns`` (equal-length arrays, or scalars repeated) as space-separated lines without a header: the
    TREC run, qrels and preference files of the benchmarks; ``append`` adds the lines to the file."""
    import pandas as pd

    pd.DataFrame(columns).to_csv(
        path, mode="a" if append else "w", sep=" ", header=False, index=False, float_format=float_format
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # summed over the waited-for children
    return usage.ru_utime + usage.ru_stime


@dataclass(frozen=True)
class Child:
    """One command run in a fresh Python process: wall seconds, CPU seconds (user + system, every thread), the
    process's own peak RSS in MB, and its standard output."""

    seconds: float
    cpu: float
    peak_mb: float
    stdout: str


def run_child(command: list[str], cwd: Path, timeout: float | None = None, python: str = sys.executable) -> Child:
    """Run ``command`` (``ir-pref-measures ARGS`` or ``SCRIPT ARGS``) in a fresh process of the interpreter
    ``python`` (by default this one) from ``cwd`` (never the checkout root, whose source tree would shadow the
    installed package); ``RuntimeError`` when it fails or outlives ``timeout`` seconds."""
    cpu = _children_cpu()
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [python, "-c", PEAK_REPORTER, *command], cwd=cwd, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"timed out after {timeout:.0f} s") from None
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: exit status {done.returncode}: {done.stderr.strip()[-2000:]}")
    peak_kb = [line for line in done.stderr.splitlines() if line.startswith("peak_kb=")][-1]
    return Child(seconds, _children_cpu() - cpu, int(peak_kb.split("=")[1]) / 1024, done.stdout)


def best_child(
    command: list[str], cwd: Path, repeat: int = 3, timeout: float | None = None, check: Callable[[str], None] = None
) -> Child:
    """``repeat`` runs of :func:`run_child` (``check``: called on each run's output): the shortest wall and CPU
    times, the largest peak."""
    runs = []
    for _ in range(repeat):
        runs.append(run_child(command, cwd, timeout))
        if check is not None:
            check(runs[-1].stdout)
    return fastest(runs)


def fastest(runs: list[Child]) -> Child:
    """The best of ``runs`` of one command: the shortest wall and CPU times, the largest peak, the last output."""
    return Child(min(r.seconds for r in runs), min(r.cpu for r in runs), max(r.peak_mb for r in runs), runs[-1].stdout)


def best_seconds(call: Callable[[], object], repeat: int = 3) -> float:
    """The shortest wall time of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


@dataclass
class Report:
    """The rows of one benchmark: ``name`` (the JSON file's name), a one-line description of the input, and per
    variant the best seconds, the ratio to the floor and the peak RSS after it ran."""

    name: str
    inputs: str
    floor: str | None = None
    rows: list[dict] = field(default_factory=list)
    quick: bool = False  # a smoke test's tiny size: printed, never saved over the results

    def command(
        self,
        variant: str,
        command: list[str],
        cwd: Path,
        repeat: int = 3,
        floor: str | None = None,
        **options,
    ) -> Child:
        """Time ``command`` in fresh processes (:func:`best_child`, ``options``: its ``timeout`` and ``check``) and
        add its row, with that process's peak RSS and CPU seconds."""
        child = best_child(command, cwd, repeat, **options)
        self.add(variant, child.seconds, child.peak_mb, floor=floor, cpu=child.cpu)
        return child

    def add(
        self, variant: str, seconds: float, peak_mb: float | None = None, floor: str | None = None, **extra
    ) -> dict:
        """Add a row (measured elsewhere: give its ``peak_mb``; ``extra``: more fields of the row); its ratio is
        taken against the variant ``floor``, by default the report's ``floor``, else the first row."""
        peak = peak_rss_mb() if peak_mb is None else peak_mb
        row = {"variant": variant, "seconds": seconds, "peak_mb": peak, "floor": floor or self.floor, **extra}
        self.rows.append(row)
        return row

    def ratios(self) -> list[dict]:
        """The rows with ``x_floor``: seconds over their floor's seconds."""
        seconds = {r["variant"]: r["seconds"] for r in self.rows}
        first = self.rows[0]["variant"]
        return [{**r, "x_floor": r["seconds"] / seconds[r["floor"] or first]} for r in self.rows]

    def save(self, folder: Path = RESULTS, quiet: bool = False) -> Path | None:
        """Print the table (unless ``quiet``) and write ``folder/NAME.json`` (rows with ratios, the load average,
        the date); a ``quick`` report is not written."""
        rows = self.ratios()
        for r in rows if not quiet else ():
            print(f"{r['variant']:55s} {r['seconds']:8.3f} s {r['x_floor']:6.2f}x {r['peak_mb']:7.0f} MB")
        if self.quick:
            return None
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.name}.json"
        load = os.getloadavg() if hasattr(os, "getloadavg") else None
        record = {"name": self.name, "inputs": self.inputs, "load_average": load, "date": time.strftime("%Y-%m-%d")}
        path.write_text(json.dumps({**record, "rows": rows}, indent=1) + "\n")
        return path
