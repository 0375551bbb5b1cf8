"""Document and query text as safe HTML: every character escaped, the query's terms marked.

Text is never rendered as HTML: a document holding ``<script>`` shows those characters. Terms are the query's
words (letters and digits, case-folded, words of one character and a few stop words left out); a document word
that equals a term, case-folded, is wrapped in ``<mark>``."""

from __future__ import annotations

import html
import re

from markupsafe import Markup

_WORD = re.compile(r"\w+", re.UNICODE)
_STOP = frozenset(
    "a an and are as at be by do does for from how in is it of on or the to was what when where which who why "
    "with".split()
)


def query_terms(query: str) -> frozenset[str]:
    """The words of ``query`` worth marking: case-folded, longer than one character, not a stop word."""
    return frozenset(w for w in (m.group().casefold() for m in _WORD.finditer(query)) if len(w) > 1 and w not in _STOP)


def highlighted(text: str, terms: frozenset[str]) -> Markup:
    """``text`` escaped for HTML, each word in ``terms`` (case-folded) inside ``<mark>``."""
    out: list[str] = []
    last = 0
    for match in _WORD.finditer(text):
        if match.group().casefold() in terms:
            out.append(html.escape(text[last : match.start()]))
            out.append(f"<mark>{html.escape(match.group())}</mark>")
            last = match.end()
    out.append(html.escape(text[last:]))
    return Markup("".join(out))
