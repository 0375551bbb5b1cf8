"""Experiment tables (:func:`~ir_pref_measures.experiment.front.Experiment`) as text: aligned blocks, CSV, JSON,
markdown,
and paper-ready LaTeX and HTML.

The paper-ready forms (:func:`paper_table`: :func:`to_latex`, :func:`to_html`) follow ranx's comparison report (E.
Bassani, ECIR 2022): one row per run, one column per measure, the best value of each measure in bold, and a marker
where a run is significantly better (up arrow) or worse (down arrow) than a baseline (the corrected p-value when the
table has one, else the p-value, below ``alpha``), explained in a legend. Counts print as integers.
"""

from __future__ import annotations

import html
import math
import re

import numpy as np
import pandas as pd

from ir_pref_measures.choices import FORMATS
from ir_pref_measures.errors import InputError
from ir_pref_measures.stats import tukey

STATISTICS = (
    "+",
    "-",
    "p-value",
    "reject",
    "p-value corrected",
    "ci low",
    "ci high",
    "diff ci low",
    "diff ci high",
    "effect size",
)
TEST_SUFFIXES = tuple(f" {s}" for s in STATISTICS)
DIGITS = 4  # decimal places shown when none are asked for
HIGHLIGHTS = (None, "bold", "color")  # pt.Experiment's highlight=
_AGAINST = re.compile(r" vs (.+)$")


def render(table: pd.DataFrame, format: str = "table", digits: int | None = None, *, alpha: float = 0.05) -> str:
    """The table as text: ``table`` (aligned; the measure values, then a block of statistics per measure), ``csv``,
    ``json`` (records), ``markdown`` (the blocks of the aligned form, one table each), ``latex`` or ``html``
    (:func:`to_latex`, :func:`to_html`; ``alpha``: the level of their significance markers). ``digits``: decimal
    places (default 4 in the aligned, markdown, LaTeX and HTML forms; full precision in csv and json). Counts
    print as integers everywhere."""
    if format == "csv":
        return _integral(table, digits).to_csv(index=False)
    if format == "json":
        return _integral(table, digits).to_json(orient="records", indent=1) + "\n"
    if format == "latex":
        return to_latex(table, digits, alpha=alpha)
    if format == "html":
        return to_html(table, digits, alpha=alpha)
    cells = {column: [_cell(column, v, digits) for v in table[column]] for column in table.columns}
    if format == "table" and "name" not in table.columns:  # the all-pairs or ANOVA table: one block
        return pd.DataFrame(cells).to_string(index=False) + "\n"
    if format == "table":
        return _text_blocks(table, _baseline_marked(table, pd.DataFrame(cells)))
    if format == "markdown" and "name" in table.columns:  # a table of runs: the blocks of the text form
        marked = _baseline_marked(table, pd.DataFrame(cells))
        return "\n".join(_markdown(table, marked, block) for block in _blocks(table))
    if format == "markdown":
        return _markdown(table, cells, {c: c for c in table.columns})
    raise InputError(f"unknown output format {format!r}", expected=", ".join(FORMATS))


def measure_columns(table: pd.DataFrame) -> list[str]:
    """The measure columns of an Experiment table (neither ``name`` nor a statistic)."""
    return [c for c in table.columns if c != "name" and not _is_statistic(c)]


def _is_statistic(column: str) -> bool:
    return _AGAINST.sub("", column).endswith(TEST_SUFFIXES)


def _integral(table: pd.DataFrame, digits: int | None) -> pd.DataFrame:
    """``+``/``-`` counts as nullable integers; values rounded to ``digits``."""
    out = table.copy()
    for column in out.columns:
        if _is_count(column):
            out[column] = out[column].astype("Int64")
        elif digits is not None and pd.api.types.is_float_dtype(out[column]):
            out[column] = out[column].round(digits)
    return out


def _is_count(column: str) -> bool:
    return _AGAINST.sub("", column).endswith((" +", " -"))


def _blocks(table: pd.DataFrame) -> list[dict[str, str]]:
    """The column blocks of an Experiment table, each ``{column: shown name}``: the values of every measure side by
    side, then per measure a block of its statistics (first column: the run names, headed by the measure)."""
    measures = ["name", *measure_columns(table)]
    blocks = [{c: c for c in measures}]
    for measure in measures[1:]:
        tests = [c for c in table.columns if c.startswith(measure + " ") and _is_statistic(c)]
        tests = [c for c in tests if measure_of(c, measures[1:]) == measure]
        if tests:
            blocks.append({"name": measure} | {c: c[len(measure) + 1 :] for c in tests})
    return blocks


def _text_blocks(table: pd.DataFrame, cells: pd.DataFrame) -> str:
    """The blocks of :func:`_blocks`, aligned, one below the other."""
    parts = [cells[list(block)].rename(columns=block).to_string(index=False) for block in _blocks(table)]
    return "\n\n".join(parts) + "\n"


def _markdown(table: pd.DataFrame, cells: dict[str, list[str]], columns: dict[str, str]) -> str:
    """One markdown table of ``columns`` (``{column: shown name}``), numbers right-aligned, every cell escaped."""
    right = {c: pd.api.types.is_numeric_dtype(table[c]) for c in columns}
    lines = ["| " + " | ".join(_markdown_escape(name) for name in columns.values()) + " |"]
    lines.append("|" + "|".join("---:" if right[c] else ":---" for c in columns) + "|")
    lines += ["| " + " | ".join(_markdown_escape(cells[c][i]) for c in columns) + " |" for i in range(len(table))]
    return "\n".join(lines) + "\n"


def _baseline_marked(table: pd.DataFrame, cells: pd.DataFrame) -> pd.DataFrame:
    """The text cells with ``baseline`` in the ``reject`` cells of each baseline's own row (the table holds False
    there, as ``pt.Experiment``'s, which reads as a verdict)."""
    try:
        baselines = _baselines(table) if "name" in table.columns else []
    except InputError:  # no +/- columns to tell the baseline by (a table made by hand)
        return cells
    cells = cells.copy()
    for baseline, suffix in baselines:
        rows = (table["name"] == baseline).to_numpy()
        for column in (c for c in table.columns if c.endswith(" reject" + suffix)):
            cells.loc[rows, column] = "baseline"
    return cells


def measure_of(column: str, measures: list[str]) -> str | None:
    """The measure a statistic column belongs to (the longest measure name it starts with)."""
    owners = [m for m in measures if column.startswith(m + " ")]
    return max(owners, key=len) if owners else None


def _cell(column: str, value, digits: int | None = None) -> str:
    if isinstance(value, bool | np.bool_) or not isinstance(value, float | np.floating):
        return str(value)
    if math.isnan(value):
        return ""
    if _is_count(column):
        return str(int(value))
    if "p-value" in column and value < 1e-3:
        return f"{value:.1e}"
    return f"{value:.{DIGITS if digits is None else digits}f}"


# -- paper-ready tables -------------------------------------------------------------------------------------


def _baselines(table: pd.DataFrame) -> list[tuple[str, str]]:
    """``(baseline run, column suffix)`` of each baseline of the table ("" for a single one)."""
    suffixes = sorted({match.group(0) for c in table.columns if (match := _AGAINST.search(c)) and " p-value" in c})
    if not suffixes:
        suffixes = [""] if any(c.endswith(" p-value") for c in table.columns) else []
    found = []
    for suffix in suffixes:
        plus = [c for c in table.columns if c.endswith(" +" + suffix)]
        rows = table["name"][table[plus].isna().all(axis=1)] if plus else table["name"][:0]
        if len(rows) != 1:
            raise InputError("cannot tell the baseline of the table: its +/- columns are missing or ambiguous")
        found.append((str(rows.iloc[0]), suffix))
    return sorted(found, key=lambda item: list(table["name"]).index(item[0]))


def _markers(table: pd.DataFrame, measure: str, alpha: float) -> list[list[tuple[str, int]]]:
    """Per row: ``(direction, baseline number)`` of each significant difference (direction "up" or "down")."""
    out: list[list[tuple[str, int]]] = [[] for _ in range(len(table))]
    for number, (baseline, suffix) in enumerate(_baselines(table)):
        p_column = f"{measure} p-value corrected{suffix}"
        if p_column not in table.columns:
            p_column = f"{measure} p-value{suffix}"
        if p_column not in table.columns:
            continue
        reference = table.loc[table["name"] == baseline, measure].iloc[0]
        for row, (p, value) in enumerate(zip(table[p_column], table[measure], strict=True)):
            if isinstance(p, float | np.floating) and not math.isnan(p) and p < alpha and value != reference:
                out[row].append(("up" if value > reference else "down", number))
    return out


def _value_text(table: pd.DataFrame, measure: str, value, digits: int | None) -> str:
    if isinstance(value, int | np.integer) or pd.api.types.is_integer_dtype(table[measure]):
        return str(int(value))
    return "" if math.isnan(value) else f"{value:.{DIGITS if digits is None else digits}f}"


def _paper_rows(table: pd.DataFrame, digits: int | None, alpha: float):
    """Per measure, per row: ``(text, bold, markers)``."""
    cells = {}
    baselines = {name for name, _ in _baselines(table)}
    for measure in measure_columns(table):
        values = table[measure].to_numpy(dtype=np.float64)
        shown = [_value_text(table, measure, v, digits) for v in table[measure]]
        # a pairwise preference is over the baseline: the baseline's 0 is no value to compare, never the best
        candidate = [
            bool(s)
            and not (measure in table.attrs.get("pairwise", ()) and name in baselines)
            and measure not in table.attrs.get("plain", ())  # columns where the largest is not the best
            for s, name in zip(shown, table["name"], strict=True)
        ]
        best = max((float(s) for s, c in zip(shown, candidate, strict=True) if c), default=math.nan)
        markers = _markers(table, measure, alpha)
        cells[measure] = [
            (text, c and float(text) == best and not math.isnan(v), marks)
            for text, c, v, marks in zip(shown, candidate, values, markers, strict=True)
        ]
    return cells


TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "permutation": "paired permutation (randomisation) test",
    "bootstrap": "paired bootstrap test",
    **{test: f"{name} over all pairs of runs" for test, name in tukey.NAMES.items()},
}


def _legend(table: pd.DataFrame, alpha: float, letters: bool) -> str:
    baselines = _baselines(table)
    parts = ["Bold: the best value of each measure."]
    if baselines:
        corrected = any(" p-value corrected" in c for c in table.columns)
        adjusted = table.attrs.get("test") in tukey.TESTS
        which = "corrected p-value" if corrected else "adjusted p-value" if adjusted else "p-value"
        named = ", ".join(f"{_letter(i) + ': ' if letters else ''}{b}" for i, (b, _) in enumerate(baselines))
        parts.append(
            f"\u2191/\u2193: significantly better/worse than the baseline{'s' if len(baselines) > 1 else ''} "
            f"{named} ({which} < {alpha:g})."
        )
        parts.append(_tests_used(table))
    return " ".join(part for part in parts if part)


def _tests_used(table: pd.DataFrame) -> str:
    """The test and the correction, as the table's ``attrs`` record them (``summary_table``); pairwise
    preferences take the sign test unless the test resamples."""
    test = table.attrs.get("test")
    if test is None:
        return ""
    text = f"Test: {TEST_NAMES.get(test, test)}"
    if table.attrs.get("pairwise") and test not in ("permutation", "bootstrap"):
        text += f" (sign test for {', '.join(table.attrs['pairwise'])})"
    correction = table.attrs.get("correction")
    if test in tukey.TESTS:  # adjusted over the family already
        return text + "."
    return text + (f"; {correction} correction." if correction else "; no correction.")


def _check_runs(table: pd.DataFrame, format: str) -> None:
    """A paper-ready table shows runs: not the all-pairs or ANOVA table (no ``name`` column)."""
    if "name" not in table.columns:
        raise InputError(f"a {format} table shows the runs, not the all-pairs or ANOVA table")


def _letter(number: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[number % 26]


def _captioned(caption: str | None, legend: str) -> str:
    """``caption`` then ``legend``, as two sentences (a full stop ends the caption unless it ends a sentence)."""
    caption = (caption or "").strip()
    if not caption:
        return legend
    return f"{caption}{'' if caption[-1] in '.!?' else '.'} {legend}"


def to_latex(table: pd.DataFrame, digits: int | None = None, *, alpha: float = 0.05, caption: str | None = None) -> str:
    """A LaTeX ``table`` (booktabs rules) of an Experiment table: one row per run, the best value of each
    measure in bold, ``$^{\\uparrow}$`` / ``$^{\\downarrow}$`` where a run is significantly better / worse than
    the baseline (followed by the baseline's letter with several), and the legend as the caption (after
    ``caption``)."""
    _check_runs(table, "LaTeX")
    measures = measure_columns(table)
    letters = len(_baselines(table)) > 1
    cells = _paper_rows(table, digits, alpha)
    legend = _captioned(caption, _legend(table, alpha, letters))
    lines = [
        "\\begin{table}",
        "\\centering",
        f"\\caption{{{_latex_escape(legend)}}}",
        "\\begin{tabular}{l" + "r" * len(measures) + "}",
        "\\toprule",
        " & ".join(["Run", *(_latex_escape(m) for m in measures)]) + " \\\\",
        "\\midrule",
    ]
    for row, name in enumerate(table["name"]):
        parts = [_latex_escape(str(name))]
        for measure in measures:
            text, bold, marks = cells[measure][row]
            text = f"\\textbf{{{text}}}" if bold else text
            arrows = "".join(
                ("\\uparrow" if d == "up" else "\\downarrow") + (f"\\mathrm{{{_letter(n)}}}" if letters else "")
                for d, n in marks
            )
            parts.append(text + (f"$^{{{arrows}}}$" if arrows else ""))
        lines.append(" & ".join(parts) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    return "\n".join(lines) + "\n"


_LATEX_SPECIAL = {"&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "_": "\\_", "{": "\\{", "}": "\\}"}
_LATEX_SPECIAL |= {"~": "\\textasciitilde{}", "^": "\\textasciicircum{}", "\\": "\\textbackslash{}"}
_LATEX_SPECIAL |= {"\u2191": "$\\uparrow$", "\u2193": "$\\downarrow$", "<": "$<$", ">": "$>$", "|": "\\textbar{}"}
_LATEX_SPECIAL |= {
    '"': "{\\ttfamily\\char34}",
    "'": "\\textquotesingle{}",
    "`": "\\textasciigrave{}",
}  # straight quotes
_LATEX_SPECIAL |= {"\n": " ", "\r": " ", "\t": " "}  # a blank line would end the cell's paragraph


def _latex_escape(text: str) -> str:
    """``text`` shown verbatim in LaTeX: the ten specials and the symbols OT1 fonts lack as commands, ``--``
    unjoined, line breaks as spaces, and ``{}`` before a leading ``[`` or ``*`` (else read as the option of the
    ``\\\\`` or ``\\midrule`` before it)."""
    out = "".join(
        "-{}" if c == "-" and text[k + 1 : k + 2] == "-" else _LATEX_SPECIAL.get(c, c) for k, c in enumerate(text)
    )
    return "{}" + out if out.startswith(("[", "*")) else out


_MARKDOWN_SPECIAL = frozenset("\\`*_[]<>|&~$")  # backslash-escaped: no emphasis, link, code, HTML, entity or cell end
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _markdown_escape(text: str) -> str:
    """``text`` shown verbatim in a (GitHub) markdown table cell: punctuation with a meaning backslash-escaped
    (``|`` too), line breaks as ``<br>``, leading and trailing spaces as ``&#32;`` (a cell is stripped)."""
    out = _LINE_BREAK.sub("<br>", "".join("\\" + c if c in _MARKDOWN_SPECIAL else c for c in text))
    body = out.strip(" ")
    start = len(out) - len(out.lstrip(" "))
    return "&#32;" * start + body + "&#32;" * (len(out) - start - len(body))


def _html_escape(text: str) -> str:
    """``text`` in HTML: ``<``, ``>``, ``&`` and quotes escaped, line breaks as ``<br>``."""
    return _LINE_BREAK.sub("<br>", html.escape(text))


def to_html(table: pd.DataFrame, digits: int | None = None, *, alpha: float = 0.05, caption: str | None = None) -> str:
    """An HTML ``<table>`` of an Experiment table: one row per run, the best value of each measure in ``<b>``,
    ``<sup>`` markers where a run is significantly better / worse than the baseline, the legend as the
    ``<caption>`` (after ``caption``)."""
    _check_runs(table, "HTML")
    measures = measure_columns(table)
    letters = len(_baselines(table)) > 1
    cells = _paper_rows(table, digits, alpha)
    legend = _captioned(caption, _legend(table, alpha, letters))
    lines = ["<table>", f"<caption>{_html_escape(legend)}</caption>", "<thead>", "<tr><th>Run</th>"]
    lines[-1] += "".join(f"<th>{_html_escape(m)}</th>" for m in measures) + "</tr>"
    lines += ["</thead>", "<tbody>"]
    for row, name in enumerate(table["name"]):
        parts = [f"<tr><td>{_html_escape(str(name))}</td>"]
        for measure in measures:
            text, bold, marks = cells[measure][row]
            text = f"<b>{text}</b>" if bold else text
            arrows = "".join(("\u2191" if d == "up" else "\u2193") + (_letter(n) if letters else "") for d, n in marks)
            parts.append(f'<td style="text-align:right">{text}{f"<sup>{arrows}</sup>" if arrows else ""}</td>')
        lines.append("".join(parts) + "</tr>")
    lines += ["</tbody>", "</table>"]
    return "\n".join(lines) + "\n"


def paper_table(
    result, format: str = "latex", digits: int | None = None, *, alpha: float = 0.05, caption: str | None = None
) -> str:
    """The paper-ready table of an :func:`~ir_pref_measures.experiment.front.Experiment` result, as LaTeX
    (:func:`to_latex`: booktabs rules, every name escaped) or HTML (:func:`to_html`): one row per run, each
    measure's best value in bold, an arrow where a run is significantly better or worse than the baseline, the
    legend in the caption. pandas' own ``to_latex`` knows none of this.

    Parameters
    ----------
    result : the table Experiment returns (a DataFrame, or the Styler of ``highlight=``).
    format : ``"latex"`` or ``"html"``.
    digits : decimal places (default 4).
    alpha : a p-value (corrected when the table has one) below it marks a run significantly better or worse.
    caption : the caption's text, before the legend.

    Returns
    -------
    str : the table's LaTeX or HTML source.
    """
    table = getattr(result, "data", result)  # a Styler holds its table as .data
    if not isinstance(table, pd.DataFrame):
        raise InputError(f"a paper table is made from the table Experiment returns, not a {type(result).__name__}")
    if format == "latex":
        return to_latex(table, digits, alpha=alpha, caption=caption)
    if format == "html":
        return to_html(table, digits, alpha=alpha, caption=caption)
    raise InputError(f"unknown paper table format {format!r}", expected="latex or html")


def plain(table: pd.DataFrame, format: str, digits: int | None = None, *, caption: str | None = None) -> str:
    """Any table (not an Experiment table) as a LaTeX ``table`` (booktabs rules) or an HTML ``<table>``: every
    column as it is, numbers to ``digits`` places (default 4; integers as integers), every cell escaped; no best
    value, no markers."""
    if format not in ("latex", "html"):
        raise InputError(f"unknown output format {format!r}", expected="latex or html")

    def text(column: str, value) -> str:
        if isinstance(value, float | np.floating) and pd.api.types.is_float_dtype(table[column]):
            return "" if math.isnan(value) else f"{value:.{DIGITS if digits is None else digits}f}"
        return str(value)

    rows = [[text(c, v) for c, v in zip(table.columns, row, strict=True)] for row in table.itertuples(index=False)]
    numeric = [pd.api.types.is_numeric_dtype(table[c]) for c in table.columns]
    if format == "latex":
        lines = ["\\begin{table}", "\\centering"]
        lines += [f"\\caption{{{_latex_escape(caption)}}}"] if caption else []
        lines += ["\\begin{tabular}{" + "".join("r" if n else "l" for n in numeric) + "}", "\\toprule"]
        lines.append(" & ".join(_latex_escape(str(c)) for c in table.columns) + " \\\\")
        lines.append("\\midrule")
        lines += [" & ".join(_latex_escape(cell) for cell in row) + " \\\\" for row in rows]
        return "\n".join([*lines, "\\bottomrule", "\\end{tabular}", "\\end{table}"]) + "\n"
    lines = ["<table>"] + ([f"<caption>{_html_escape(caption)}</caption>"] if caption else [])
    lines += ["<thead>", "<tr>" + "".join(f"<th>{_html_escape(str(c))}</th>" for c in table.columns) + "</tr>"]
    lines += ["</thead>", "<tbody>"]
    for row in rows:
        cells = [
            f'<td style="text-align:right">{_html_escape(c)}</td>' if n else f"<td>{_html_escape(c)}</td>"
            for c, n in zip(row, numeric, strict=True)
        ]
        lines.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join([*lines, "</tbody>", "</table>"]) + "\n"
