"""Plots (Agg backend) and the ``meta`` commands."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib
import numpy as np
import pandas as pd
import pytest
from conftest import testdata_path
from test_meta import preference_rows, random_values, small_runs

from ir_pref_measures import meta, plots
from ir_pref_measures.commands import main
from ir_pref_measures.errors import InputError

matplotlib.use("Agg")
PNG = b"\x89PNG\r\n\x1a\n"


def written(path) -> bytes:
    data = path.read_bytes()
    assert data.startswith(PNG) if path.suffix == ".png" else b"<svg" in data[:1000]
    return data


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_every_plot_kind(tmp_path, suffix):
    curves = pd.DataFrame(
        {
            "run": np.repeat(["a", "b"], 3),
            "cutoff": [1, 2, 3] * 2,
            "ppref": np.linspace(1, 0.5, 6),
            "rpref": 0.1 * np.arange(6),
        }
    )
    written(plots.pr_curves(curves, tmp_path / f"pr{suffix}", title="two runs"))
    means = meta.means({"m1": random_values(0), "m2": random_values(1), "m3": random_values(2)})
    written(plots.measure_scatter(means, [("m1", "m2"), ("m1", "m3")], tmp_path / f"scatter{suffix}", annotate=True))
    panels = {"order 1": random_values(3, runs=2), "order 2": random_values(4, runs=2)}
    written(plots.engine_scatter(panels, tmp_path / f"engines{suffix}"))


def test_plot_errors(tmp_path):
    means = meta.means({"m1": random_values(0)})
    with pytest.raises(InputError, match="png or .svg"):
        plots.measure_scatter(means, [("m1", "m1")], tmp_path / "x.pdf")
    with pytest.raises(InputError, match="unknown measure"):
        plots.measure_scatter(means, [("m1", "m9")], tmp_path / "x.png")
    with pytest.raises(InputError, match="two columns"):
        plots.engine_scatter({"p": random_values(0, runs=3)}, tmp_path / "x.png")
    with pytest.raises(InputError, match="run, cutoff"):
        plots.pr_curves(pd.DataFrame(), tmp_path / "x.png")


def cli(capsys, *args) -> SimpleNamespace:
    code = main(["meta", *map(str, args)])
    out, err = capsys.readouterr()
    return SimpleNamespace(returncode=code, stdout=out, stderr=err)


@pytest.fixture
def files(tmp_path):
    runs = []
    for name, run in small_runs(queries=5, runs=3).items():
        path = tmp_path / f"{name}.run"
        rows = run.sort_values(["query_id", "score"], ascending=[True, False])
        rows.assign(q0="Q0", rank=1, tag=name)[["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(
            path, sep=" ", header=False, index=False
        )
        runs.append(path)
    prefs = tmp_path / "prefs.txt"
    preference_rows(1, queries=5)[["query_id", "doc_id_a", "doc_id_b", "preference"]].to_csv(
        prefs, sep=" ", header=False, index=False
    )
    qrels = tmp_path / "qrels.txt"
    grades = [(f"q{q}", "0", f"d{d}", max(0, 3 - d // 2)) for q in range(5) for d in range(8)]
    pd.DataFrame(grades).to_csv(qrels, sep=" ", header=False, index=False)
    return runs, prefs, qrels


def test_meta_runs_command(tmp_path, files, capsys):
    runs, prefs, qrels = files
    result = cli(
        capsys, "runs", *runs, "-j", f"graded={qrels}", "-j", f"real={prefs}", "-j", f"both={qrels}+{prefs}",
        "-m", "graded:nDCG@3", "real:APpref", "both:PGC(p=0.8)", "--test", "randomised", "--plot", tmp_path / "s.png",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    for text in ("sensitivity (randomised test", "nDCG@3 [graded]", "APpref [real]", "PGC(p=0.8) [both]", "tau_AP"):
        assert text in result.stdout
    written(tmp_path / "s.png")
    bad = cli(capsys, "sensitivity", *runs, "-j", f"a={qrels}", "-j", f"b={prefs}", "-m", "nDCG@3")
    assert bad.returncode == 2 and "say which judgment set" in bad.stderr


def test_meta_stability_pr_and_agreement_commands(tmp_path, files, capsys):
    runs, prefs, qrels = files
    result = cli(capsys, "stability", *runs, "--prefs", prefs, "-m", "ppref@5", "--remove", "0.5", "--repeats", "2")
    assert result.returncode == 0, result.stderr
    assert "F reduced" in result.stdout and "ppref@5" in result.stdout
    result = cli(
        capsys, "pr-curve", *runs, "-j", prefs, "--depth", "8", "--show", "1", "8", "--plot", tmp_path / "pr.svg"
    )
    assert result.returncode == 0, result.stderr
    written(tmp_path / "pr.svg")
    gold = tmp_path / "gold.txt"
    gold.write_text("query winner\n" + "".join(f"q{q} {('run0', 'run1', 'tie')[q % 3]}\n" for q in range(5)))
    result = cli(
        capsys, "agreement", gold, "--runs", runs[0], runs[1], "-j", qrels, "-m", "nDCG@3", "--plot", tmp_path / "e.png"
    )
    assert result.returncode == 0, result.stderr
    assert "run0 better" in result.stdout and "binomial p" in result.stdout
    written(tmp_path / "e.png")
    gold.write_text("q0 run0\nq1 nobody\n")
    bad = cli(capsys, "agreement", gold, "--runs", runs[0], runs[1], "-j", qrels, "-m", "nDCG@3")
    assert bad.returncode == 2 and "gold.txt:2" in bad.stderr


def test_meta_agreement_command_on_xie_images(tmp_path, capsys):
    folder = testdata_path("xie2020_image_prefs")
    result = cli(
        capsys, "agreement", folder / "SERP_level_preference", "--gold-labels", "0", "1", "2",
        "--image-pairs", folder / "image_pairs_annotation", "--positions", folder / "Image_position.json",
        "--orders", "manhattan", "--binomial", "normal", "--plot", tmp_path / "grid.png",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "PGC(p=0.95, order=manhattan)" in result.stdout and "sogou better" in result.stdout
    written(tmp_path / "grid.png")
