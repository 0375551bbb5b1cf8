"""ir_pref_measures.experiment.render: paper-ready LaTeX and HTML, integers, digits."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from ir_pref_measures.errors import InputError
from ir_pref_measures.experiment.render import measure_columns, render, to_html, to_latex


@pytest.fixture
def table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "name": ["base_run", "better", "worse"],
            "m": [0.5, 0.75, 0.25],
            "m +": [np.nan, 30.0, 2.0],
            "m -": [np.nan, 3.0, 25.0],
            "m p-value": [np.nan, 0.001, 0.04],
            "m reject": [False, True, False],
            "m p-value corrected": [np.nan, 0.002, 0.08],
            "n": [0.3, 0.3, 0.1],
            "n +": [np.nan, 5.0, 1.0],
            "n -": [np.nan, 5.0, 9.0],
            "n p-value": [np.nan, 1.0, 0.01],
            "n reject": [False, False, True],
            "n p-value corrected": [np.nan, 1.0, 0.02],
            "count": np.array([12, 40, 7], dtype=np.int64),
        }
    )


def rows(latex: str) -> dict[str, list[str]]:
    lines = [line.rstrip(" \\") for line in latex.splitlines() if line.endswith("\\\\")]
    return {line.split(" & ")[0]: line.split(" & ")[1:] for line in lines[1:]}


def test_latex_bold_best_markers_legend_integers(table):
    latex = to_latex(table, 3)
    assert latex.startswith("\\begin{table}") and "\\toprule" in latex and latex.endswith("\\end{table}\n")
    got = rows(latex)
    assert list(got) == ["base\\_run", "better", "worse"]
    assert got["better"][0] == "\\textbf{0.750}$^{\\uparrow}$"  # best, and better by the corrected p-value
    assert got["worse"][0] == "0.250"  # p = 0.04 but corrected 0.08: no marker
    assert got["base\\_run"][1] == "\\textbf{0.300}" and got["better"][1] == "\\textbf{0.300}"  # ties: both bold
    assert got["worse"][1] == "0.100$^{\\downarrow}$"
    assert [cells[2] for cells in got.values()] == ["12", "\\textbf{40}", "7"]
    assert "baseline base\\_run (corrected p-value $<$ 0.05)" in latex


def test_html_mirrors_latex(table):
    html = to_html(table, caption="DL19 & co")
    assert html.count("<tr><td>") == 3
    assert '<td style="text-align:right"><b>0.7500</b><sup>\u2191</sup></td>' in html
    assert "<caption>DL19 &amp; co. Bold: the best value" in html  # the caption a sentence of its own


@pytest.mark.parametrize(("caption", "opening"), [("DL 2019 runs", "DL 2019 runs. Bold"), ("Runs!", "Runs! Bold")])
def test_the_caption_ends_before_the_legend(table, caption, opening):
    assert f"<caption>{opening}: the best value" in to_html(table, caption=caption)
    assert f"\\caption{{{opening}: the best value" in to_latex(table, caption=caption)


def test_alpha_moves_the_markers(table):
    assert all("$^{" not in cell for cells in rows(to_latex(table, alpha=0.001)).values() for cell in cells)
    assert rows(to_latex(table, alpha=0.1))["worse"][0] == "0.2500$^{\\downarrow}$"


def test_several_baselines_get_letters():
    table = pd.DataFrame(
        {
            "name": ["a", "b", "c"],
            "m": [0.1, 0.2, 0.9],
            "m + vs a": [np.nan, 1.0, 9.0],
            "m p-value vs a": [np.nan, 0.5, 0.001],
            "m + vs b": [0.0, np.nan, 9.0],
            "m p-value vs b": [0.5, np.nan, 0.01],
        }
    )
    assert measure_columns(table) == ["m"]
    latex = to_latex(table)
    assert rows(latex)["c"][0] == "\\textbf{0.9000}$^{\\uparrow\\mathrm{a}\\uparrow\\mathrm{b}}$"
    assert "a: a, b: b" in latex


def test_text_forms_print_counts_as_integers_and_honour_digits(table):
    text = render(table, "table", 2)
    assert "0.75" in text and "0.7500" not in text and "30.0" not in text
    assert " 30 " in text.split("\n\n")[1]
    csv = pd.read_csv(io.StringIO(render(table, "csv")))
    assert render(table, "csv").splitlines()[2].split(",")[2] == "30"
    np.testing.assert_allclose(csv["m"], table["m"])
    assert json.loads(render(table, "json", 1))[1]["m"] == 0.8
    markdown = render(table, "markdown", 3).split("\n\n")  # the blocks of the aligned form, one table each
    assert markdown[0].splitlines()[:3] == [
        "| name | m | n | count |",
        "|:---|---:|---:|---:|",
        "| base\\_run | 0.500 | 0.300 | 12 |",
    ]
    assert markdown[1].splitlines()[0] == "| m | + | - | p-value | reject | p-value corrected |"
    assert (
        "| better | 30 | 3 | 0.001 | True | 0.002 |" in markdown[1]
        and "| base\\_run |  |  |  | baseline |  |" in markdown[1]
    )
    with pytest.raises(InputError, match="unknown output format"):
        render(table, "pdf")


def test_the_paper_table_of_an_experiment_is_one_documented_call(table):
    """ipm.paper_table(result) is the LaTeX (or HTML) paper table, from the DataFrame Experiment returns or its
    highlight Styler, whose own to_latex() is the same table: not pandas' CSS-as-LaTeX (\\font-weightbold) with
    unescaped names."""
    import ir_pref_measures as ipm
    from ir_pref_measures.experiment.styled import highlight

    table = table.assign(name=["CKNRM_B", "better", "worse"])
    latex = ipm.paper_table(table)
    assert latex == to_latex(table) and "CKNRM\\_B" in latex and "\\textbf{0.7500}" in latex
    assert ipm.paper_table(table, "html", 2, caption="DL 2019.") == to_html(table, 2, caption="DL 2019.")
    styled = highlight(table, "bold")
    assert styled.to_latex() == latex and "font-weight" not in styled.to_latex()
    assert ipm.paper_table(styled, "latex", alpha=0.01) == to_latex(table, alpha=0.01)
    buffer = io.StringIO()
    styled.to_latex(buffer, caption="Runs.")
    assert buffer.getvalue() == to_latex(table, caption="Runs.")
    with pytest.raises(InputError, match="takes buf and caption, not hrules"):
        styled.to_latex(hrules=True)
    with pytest.raises(InputError, match="latex or html"):
        ipm.paper_table(table, "markdown")
    with pytest.raises(InputError, match="not a dict"):
        ipm.paper_table({"name": ["a"]})
