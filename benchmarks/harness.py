"""The benchmarks' one harness: best-of-N timing, peak RSS, the machine's load, results as JSON.

A benchmark builds a :class:`Report`, times each variant with :meth:`Report.time` (each row's ratio is
taken against its floor: a variant timed before it, by default the first) and saves it;
``benchmarks/tables.py`` turns the JSON files of ``benchmarks/results/`` into the tables of ``docs/performance.md``.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB (VmHWM; ru_maxrss would include the parent's across exec)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


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

    def time(self, variant: str, call: Callable[[], object], repeat: int = 3, floor: str | None = None) -> dict:
        """Time ``variant`` (best of ``repeat``) and add its row (:meth:`add`)."""
        return self.add(variant, best_seconds(call, repeat), floor=floor)

    def add(self, variant: str, seconds: float, peak_mb: float | None = None, floor: str | None = None) -> dict:
        """Add a row (measured elsewhere: give its ``peak_mb``); its ratio is taken against the variant ``floor``,
        by default the report's ``floor``, else the first row."""
        peak = peak_rss_mb() if peak_mb is None else peak_mb
        row = {"variant": variant, "seconds": seconds, "peak_mb": peak, "floor": floor or self.floor}
        self.rows.append(row)
        return row

    def ratios(self) -> list[dict]:
        """The rows with ``x_floor``: seconds over their floor's seconds."""
        seconds = {r["variant"]: r["seconds"] for r in self.rows}
        first = self.rows[0]["variant"]
        return [{**r, "x_floor": r["seconds"] / seconds[r["floor"] or first]} for r in self.rows]

    def save(self, folder: Path = RESULTS) -> Path:
        """Print the table and write ``folder/NAME.json`` (rows with ratios, the load average, the date)."""
        rows = self.ratios()
        for r in rows:
            print(f"{r['variant']:55s} {r['seconds']:8.3f} s {r['x_floor']:6.2f}x {r['peak_mb']:7.0f} MB")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.name}.json"
        load = os.getloadavg() if hasattr(os, "getloadavg") else None
        record = {"name": self.name, "inputs": self.inputs, "load_average": load, "date": time.strftime("%Y-%m-%d")}
        path.write_text(json.dumps({**record, "rows": rows}, indent=1) + "\n")
        return path
