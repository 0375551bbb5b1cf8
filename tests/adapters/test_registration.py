"""Registration with ir_measures however the two packages are imported: each case in a fresh interpreter (the
installed package, run from ``/``), since the order of first imports is the subject."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# 2 queries; a run that ranks d1 > d2 > d3 on q1 (agreeing with every graded preference) and the reverse on q2
USE = """
import ir_measures
from ir_measures import Qrel, ScoredDoc

qrels = [Qrel("q1", "d1", 2), Qrel("q1", "d2", 1), Qrel("q1", "d3", 0)]
qrels += [Qrel("q2", "d1", 2), Qrel("q2", "d2", 1), Qrel("q2", "d3", 0)]
run = [ScoredDoc("q1", "d1", 3.0), ScoredDoc("q1", "d2", 2.0), ScoredDoc("q1", "d3", 1.0)]
run += [ScoredDoc("q2", "d1", 1.0), ScoredDoc("q2", "d2", 2.0), ScoredDoc("q2", "d3", 3.0)]
ppref = ir_measures.parse_measure("ppref@10")
values = ir_measures.calc_aggregate([ppref, ir_measures.parse_measure("P@1")], qrels, run)
assert values[ppref] == 0.5, values  # all 3 preferences met on q1, none on q2
hooks = [f for f in sys.meta_path if type(f).__name__ == "RegisteringFinder"]
assert len(hooks) == 1, sys.meta_path
assert type(ir_measures.__loader__).__name__ != "_RegisteringLoader", ir_measures.__loader__
assert ir_measures.__spec__.loader is ir_measures.__loader__
print("ok")
"""


def _run(*parts: str) -> str:
    """The standard output of ``parts`` run one after the other in a fresh interpreter (which must succeed)."""
    code = "\n".join(["import sys", *(textwrap.dedent(part) for part in parts)])
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert found.returncode == 0, found.stderr
    return found.stdout


@pytest.mark.parametrize(
    "first",
    [
        "import ir_measures\nimport ir_pref_measures",  # registered at once
        "import ir_pref_measures\nimport ir_measures",  # registered by the hook
        "import ir_pref_measures\nimport ir_measures.measures.base",  # a submodule first: the package is imported
        "from ir_pref_measures import ppref\nassert ppref == __import__('ir_measures').parse_measure('ppref')",
        "import ir_pref_measures as ipm\nassert ipm.APpref == __import__('ir_measures').parse_measure('APpref')",
    ],
)
def test_registration_in_every_order(first):
    assert _run(first, USE).strip() == "ok"


def test_a_reloaded_package_registers_again():
    """ir_measures reloaded (its pipeline made anew) and ir_pref_measures reloaded: still registered, one hook."""
    code = """
    import importlib
    import ir_pref_measures
    import ir_measures
    importlib.reload(ir_pref_measures)
    importlib.reload(ir_measures)
    """
    assert _run(code, USE).strip() == "ok"


def test_an_unpickled_measure_registers_the_measures(tmp_path):
    """A measure pickled in one process (as Dask sends it) loads in a process that imported neither package, and
    ir_measures then knows every measure."""
    path = tmp_path / "measure.pickle"
    _run(f"import pickle, ir_pref_measures as ipm\nopen({str(path)!r}, 'wb').write(pickle.dumps(ipm.PGC(p=0.8)@5))")
    code = f"""
    import pickle
    measure = pickle.loads(open({str(path)!r}, 'rb').read())
    assert str(measure) == "PGC(p=0.8)@5", measure
    """
    assert _run(code, USE).strip() == "ok"


def test_pyterrier_first():
    """PyTerrier imports ir_measures itself; pt.Experiment then takes our measures (without Java)."""
    pytest.importorskip("pyterrier")
    code = """
    import pandas as pd
    import pyterrier as pt
    import ir_pref_measures as ipm
    topics = pd.DataFrame({"qid": ["q1"], "query": ["x"]})
    qrels = pd.DataFrame({"qid": ["q1"] * 3, "docno": ["d1", "d2", "d3"], "label": [2, 1, 0]})
    run = pd.DataFrame({"qid": ["q1"] * 3, "docno": ["d3", "d2", "d1"], "score": [3.0, 2.0, 1.0]})
    table = pt.Experiment([run], topics, qrels, [ipm.ppref @ 10, "P_1"], names=["r"])
    print(table["ppref@10"].tolist(), pt.java.started())
    """
    assert _run(code).strip() == "[0.0] False"
