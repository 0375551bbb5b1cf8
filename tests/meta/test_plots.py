"""Plots: matplotlib Figures built without pyplot, saved in any format matplotlib writes; and the ``meta``
commands that draw them."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from conftest import data_path
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from meta.test_evaluation import preference_rows, random_values, small_runs
from scipy import stats

from ir_pref_measures import meta, progress
from ir_pref_measures.commands import main
from ir_pref_measures.errors import InputError
from ir_pref_measures.meta import plots

MAGIC = {".png": b"\x89PNG\r\n\x1a\n", ".pdf": b"%PDF-", ".eps": b"%!PS-Adobe", ".svg": b"<?xml"}


def written(path) -> bytes:
    data = path.read_bytes()
    assert data.startswith(MAGIC[path.suffix]), data[:20]
    return data


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def example_curves() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "run": np.repeat(["a", "b"], 3),
            "cutoff": [1, 2, 3] * 2,
            "ppref": np.linspace(0.8, 0.6, 6),
            "rpref": 0.1 + 0.02 * np.arange(6),
        }
    )


def every_plot(path_of) -> list[Figure]:
    means = meta.means({"m1": random_values(0), "m2": random_values(1), "m3": random_values(2)})
    values = {"m1": random_values(0), "m2": random_values(1)}
    return [
        plots.pr_curves(example_curves(), path_of("pr"), title="two runs"),
        plots.measure_scatter(means, [("m1", "m2"), ("m1", "m3")], path_of("means")),
        plots.query_scatter(values, [("m1", "m2")], path_of("queries")),
        plots.engine_scatter({"order 1": random_values(3, runs=2), "order 2": random_values(4, runs=2)}, path_of("e")),
    ]


@pytest.mark.parametrize("suffix", [".png", ".pdf", ".svg", ".eps"])
def test_every_plot_is_a_figure_saved_in_the_format_of_its_suffix(tmp_path, suffix):
    figures = every_plot(lambda name: tmp_path / f"{name}{suffix}")
    assert all(isinstance(figure, Figure) for figure in figures)
    (tmp_path / "again").mkdir()
    every_plot(lambda name: tmp_path / "again" / f"{name}{suffix}")
    for name in ("pr", "means", "queries", "e"):
        first, again = written(tmp_path / f"{name}{suffix}"), (tmp_path / "again" / f"{name}{suffix}").read_bytes()
        # the same plot of the same data gives the same bytes: no date or version stamps, no random ids (PostScript
        # always holds the date)
        assert first == again or suffix == ".eps"


def test_without_a_path_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    figures = every_plot(lambda name: None)
    assert [len(f.axes) for f in figures] == [1, 2, 1, 2] and not list(tmp_path.iterdir())


def test_plots_never_change_the_backend_nor_load_pyplot(tmp_path):
    """A script with its own backend keeps it: the plots use the object API only."""
    code = (
        "import sys, matplotlib, pandas as pd\n"
        "from ir_pref_measures import plots\n"
        "curves = pd.DataFrame({'run': ['a', 'a'], 'cutoff': [1, 2], 'ppref': [1.0, 0.5], 'rpref': [0.1, 0.2]})\n"
        "plots.pr_curves(curves, sys.argv[1])\n"
        "print(matplotlib.get_backend(), 'matplotlib.pyplot' in sys.modules)\n"
    )
    env = dict(os.environ, MPLBACKEND="svg")
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "x.png")],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tmp_path,  # outside the checkout, whose source tree would shadow the installed package
    )
    assert out.stdout.split() == ["svg", "False"]
    written(tmp_path / "x.png")


def test_run_names_are_in_one_legend_beside_the_panels_never_on_the_points():
    names = [f"a_rather_long_run_name_{k}" for k in range(23)]
    values = {m: random_values(k, runs=len(names)).set_axis(names, axis=1) for k, m in enumerate(("x", "y", "z"))}
    for figure in (
        plots.measure_scatter(meta.means(values), [("x", "y"), ("x", "z")]),
        plots.query_scatter(values, [("x", "y")]),
    ):
        FigureCanvasAgg(figure).draw()  # lays the figure out (a canvas of this figure only)
        (legend,) = figure.legends
        assert [t.get_text() for t in legend.get_texts()] == names
        styles = {(h.get_color(), h.get_marker()) for h in legend.legend_handles}
        assert len(styles) == len(names)  # every run its own colour and marker
        box = legend.get_window_extent()
        for axes in figure.axes:
            assert not axes.texts  # no labels on the points
            assert not box.overlaps(axes.get_tightbbox())
        assert box.x1 <= figure.bbox.x1 + 1  # the legend fits in the figure


def test_pr_curves_fit_the_data_at_a_readable_size(tmp_path):
    figure = plots.pr_curves(example_curves(), tmp_path / "pr.png")
    (axes,) = figure.axes
    x0, x1 = axes.get_xlim()
    y0, y1 = axes.get_ylim()
    assert 0.08 < x0 < 0.1 and 0.2 < x1 < 0.22  # rpref spans 0.1..0.2
    assert 0.58 < y0 < 0.6 and 0.8 < y1 < 0.82  # ppref spans 0.6..0.8
    width, height = png_size(written(tmp_path / "pr.png"))
    assert width >= 1000 and height >= 700


def test_query_scatter_has_a_point_per_query_and_run_coloured_by_run():
    x, y = random_values(5, queries=7, runs=3), random_values(6, queries=9, runs=3)  # y has two more queries
    figure = plots.query_scatter({"x": x, "y": y}, [("x", "y")])
    (axes,) = figure.axes
    common = x.index.intersection(y.index)
    assert len(common) == 7 and len(axes.collections) == 3
    for run, collection in zip(x.columns, axes.collections, strict=True):
        np.testing.assert_array_equal(
            collection.get_offsets(), np.column_stack([x.loc[common, run], y.loc[common, run]])
        )
    colours = {tuple(c.get_facecolor()[0][:3]) for c in axes.collections}
    assert len(colours) == 3
    tau = stats.kendalltau(x.loc[common].to_numpy().ravel(), y.loc[common].to_numpy().ravel()).statistic
    assert f"\u03c4 = {tau:.4f}" in axes.get_title()


def test_plot_errors(tmp_path):
    means = meta.means({"m1": random_values(0)})
    with pytest.raises(InputError, match=r"(?s)cannot write a plot of this file type.*\.pdf, .*\.svg"):
        plots.measure_scatter(means, [("m1", "m1")], tmp_path / "x.docx")
    with pytest.raises(InputError, match="unknown measure"):
        plots.measure_scatter(means, [("m1", "m9")], tmp_path / "x.png")
    with pytest.raises(InputError, match="two columns"):
        plots.engine_scatter({"p": random_values(0, runs=3)}, tmp_path / "x.png")
    with pytest.raises(InputError, match="run, cutoff"):
        plots.pr_curves(pd.DataFrame(), tmp_path / "x.png")
    with pytest.raises(InputError, match="no query in common"):
        plots.query_scatter({"a": random_values(0), "b": random_values(1).set_axis(list("abcdefghijkl"))}, [("a", "b")])
    assert not list(tmp_path.iterdir())


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
        "-m", "graded:nDCG@3", "real:APpref", "both:PGC(p=0.8)", "--test", "permutation", "--plot", tmp_path / "s.png",
        "--query-plot", tmp_path / "q.pdf",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    for text in ("sensitivity (permutation test", "nDCG@3 [graded]", "APpref [real]", "PGC(p=0.8) [both]", "tau_AP"):
        assert text in result.stdout
    written(tmp_path / "s.png")
    written(tmp_path / "q.pdf")
    assert "wrote" not in result.stdout  # stdout holds the results only
    assert result.stderr.splitlines() == [f"wrote {tmp_path / 's.png'}", f"wrote {tmp_path / 'q.pdf'}"]
    bad = cli(capsys, "sensitivity", *runs, "-j", f"a={qrels}", "-j", f"b={prefs}", "-m", "nDCG@3")
    assert bad.returncode == 2 and "say which judgment set" in bad.stderr


def test_meta_stability_pr_and_agreement_commands(tmp_path, files, capsys):
    runs, prefs, qrels = files
    result = cli(capsys, "stability", *runs, "--prefs", prefs, "-m", "ppref@5", "--remove", "0.5", "--repeats", "2")
    assert result.returncode == 0, result.stderr
    assert "F reduced" in result.stdout and "ppref@5" in result.stdout
    measure, removed, kept, *_ = result.stdout.splitlines()[2].split()  # under the header and the index names
    assert (measure, removed) == ("ppref@5", "0.5") and kept.isdigit(), result.stdout  # a count: not 64.0000
    result = cli(
        capsys, "pr-curve", *runs, "-j", prefs, "--depth", "8", "--show", "1", "8", "--plot", tmp_path / "pr.pdf"
    )
    assert result.returncode == 0, result.stderr
    written(tmp_path / "pr.pdf")
    assert "wrote" not in result.stdout and result.stderr == f"wrote {tmp_path / 'pr.pdf'}\n"
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
    folder = data_path("xie2020_image_prefs")
    result = cli(
        capsys, "agreement", folder / "SERP_level_preference", "--gold-labels", "0", "1", "2",
        "--image-pairs", folder / "image_pairs_annotation", "--positions", folder / "Image_position.json",
        "--orders", "manhattan", "--binomial", "normal", "--plot", tmp_path / "grid.png",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "PGC(p=0.95, order=manhattan)" in result.stdout and "sogou better" in result.stdout
    written(tmp_path / "grid.png")


@pytest.mark.parametrize("analysis", ["runs", "pr-curve", "agreement"])
def test_a_plot_type_matplotlib_cannot_write_fails_before_any_work(tmp_path, files, capsys, analysis):
    runs, prefs, qrels = files
    given = {
        "runs": [*runs, "-m", "nDCG@3"],
        "pr-curve": runs,
        "agreement": [tmp_path / "missing-gold.txt", "--runs", runs[0], runs[1], "-m", "nDCG@3"],
    }
    result = cli(capsys, analysis, *given[analysis], "-j", qrels, "--plot", tmp_path / "plot.docx")
    assert result.returncode == 2 and result.stdout == ""
    assert "plot.docx: cannot write a plot of this file type" in result.stderr and ".pdf" in result.stderr


class Terminal(io.StringIO):
    """A stderr that says it is a terminal, so that tqdm (``disable=None``) draws its bar."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("analysis", ["runs", "stability"])
def test_long_meta_commands_show_progress_on_stderr(files, capsys, monkeypatch, analysis):
    runs, prefs, qrels = files
    monkeypatch.setattr(progress, "PROGRESS_DELAY", 0)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    if analysis == "runs":
        code = main(
            ["meta", "runs", *map(str, runs), "-j", f"a={qrels}", "-j", f"b={prefs}", "-m", "a:nDCG@3", "b:APpref"]
        )
    else:
        code = main(["meta", "stability", *map(str, runs), "--prefs", str(prefs), "-m", "ppref@5", "--repeats", "2"])
    out = capsys.readouterr().out
    assert code == 0
    bar = terminal.getvalue()
    steps = 2 if analysis == "runs" else 1 + 2 * 2  # judgment sets; the full run and 2 fractions x 2 repeats
    assert f"{'meta runs' if analysis == 'runs' else 'stability'}:   0%|          | 0/{steps} " in bar
    assert "\r" not in out and "it/s" not in out and "step" not in out
