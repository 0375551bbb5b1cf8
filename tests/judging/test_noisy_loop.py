"""The documented judging loop with a noisy judge: three DL 2019 runs, their depth-10 pools, random pairs at half
the pool's pairs, a simulated judge that flips one answer in ten. Exported with ``--consistent`` the judgments
order the runs as the noise-free judgments of every pair do; the default export warns in words before any number."""

from __future__ import annotations

import warnings

import ir_measures
from judging.efforts import dl2019_runs

import ir_pref_measures as ipm
from ir_pref_measures.commands import main

RUNS = ("ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50")


def judged(tmp_path, runs, qrels, name, selector, *judge) -> str:
    store = str(tmp_path / f"{name}.sqlite")
    assert main(["judge", "plan", store, "--selector", selector, "--runs", *runs, "--depth", "10", "--seed", "1"]) == 0
    assert main(["judge", "run", store, "--judge", "simulated", "--qrels", qrels, *judge]) == 0
    return store


def ppref_of(judgments_file, runs) -> list[float]:
    judgments = ipm.load_judgments(judgments_file)
    return [ir_measures.calc_aggregate([ipm.ppref @ 10], judgments, ipm.read_run(r))[ipm.ppref @ 10] for r in runs]


def test_noisy_judgments_order_the_runs_as_noise_free_ones(data, tmp_path, capsys):
    runs, _ = dl2019_runs(data, tmp_path, RUNS)
    qrels = str(data("dl_llm_prefs_arabzadeh", "qrels.dl19-passage.txt"))
    truth = judged(tmp_path, runs, qrels, "truth", "all")
    noisy = judged(tmp_path, runs, qrels, "noisy", "random", "--noise", "0.1", "--budget", "0.5")
    for store, args, name in ((truth, [], "truth.log"), (noisy, [], "noisy.log"), (noisy, ["--consistent"], "c.log")):
        assert main(["judge", "export", store, "-o", str(tmp_path / name), *args]) == 0
    assert "verdicts contradict the order fitted" in capsys.readouterr().err

    reference = ppref_of(tmp_path / "truth.log", runs)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        consistent = ppref_of(tmp_path / "c.log", runs)
    assert not [w for w in record if "contradict each other" in str(w.message)]
    assert len(set(consistent)) == 3
    assert sorted(range(3), key=consistent.__getitem__) == sorted(range(3), key=reference.__getitem__)

    assert main(["eval", str(tmp_path / "noisy.log"), runs[0], "ppref@10"]) == 0
    out = capsys.readouterr()
    assert "the preference judgments contradict each other" in out.err and "judge export --consistent" in out.err


def test_a_consistent_export_of_consistent_verdicts_is_the_export(tmp_path, capsys):
    """Noise-free verdicts hold no cycle: ``--consistent`` writes the same lines, in every combined format, and says
    nothing; the ``shown`` format (every answer, not combined) is refused with it."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {(d * 7 + q) % 4}\n" for q in range(3) for d in range(9)))
    store = str(tmp_path / "e.sqlite")
    assert main(["judge", "plan", store, "--selector", "all", "--qrels", str(qrels)]) == 0
    assert main(["judge", "run", store, "--judge", "simulated", "--qrels", str(qrels), "--bad-marks"]) == 0
    capsys.readouterr()
    for format in ("log", "carterette", "winner", "pairs"):
        lines = []
        for extra in ([], ["--consistent"]):
            assert main(["judge", "export", store, "--format", format, *extra]) == 0
            lines.append(capsys.readouterr().out)
        assert lines[0] == lines[1] and lines[0]
    assert main(["judge", "export", store, "--format", "shown", "--consistent"]) == 2
    assert "cannot be made consistent" in capsys.readouterr().err
