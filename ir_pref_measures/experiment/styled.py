"""The Styler ``Experiment(..., highlight=...)`` returns (pandas' Styler needs jinja2: imported when asked for)."""

from __future__ import annotations

import pandas as pd
from pandas.io.formats.style import Styler

from ir_pref_measures.errors import InputError
from ir_pref_measures.experiment.render import HIGHLIGHTS, measure_columns, paper_table


class ExperimentStyler(Styler):
    """pandas' Styler of an Experiment table, whose ``to_latex()`` is the paper table
    (:func:`~ir_pref_measures.experiment.render.paper_table`): Styler's own would write the CSS of the highlight
    as LaTeX commands (``\\font-weightbold``) and leave names such as ``CKNRM_B`` unescaped."""

    def to_latex(self, buf=None, *, caption: str | None = None, **options) -> str | None:
        """The LaTeX paper table (written to ``buf``, a path or a file object, when given; ``caption`` before the
        legend). Styler's other options do not apply to it: they are an error, not ignored."""
        if options:
            raise InputError(
                f"to_latex of an Experiment table takes buf and caption, not {', '.join(sorted(options))}",
                expected="ir_pref_measures.paper_table(table, 'latex', digits, alpha=...), or pandas' own LaTeX: "
                "table.data.style.to_latex(...)",
            )
        text = paper_table(self.data, "latex", caption=caption)
        if buf is None:
            return text
        if hasattr(buf, "write"):
            buf.write(text)
        else:
            with open(buf, "w", encoding="utf-8") as file:
                file.write(text)
        return None


def highlight(table: pd.DataFrame, how: str = "bold") -> ExperimentStyler:
    """A pandas Styler of the table with each measure's best value in bold (``"bold"``) or on a green
    background (``"color"``), as ``pt.Experiment(highlight=...)``; its ``to_latex()`` is
    :func:`~ir_pref_measures.experiment.render.paper_table`'s."""
    style = {"bold": "font-weight: bold", "color": "background-color: lightgreen"}
    if how not in HIGHLIGHTS[1:]:
        raise InputError(f"unknown highlight {how!r}", expected="bold or color")
    measures = measure_columns(table)
    return ExperimentStyler(table).highlight_max(subset=measures, props=style[how])
