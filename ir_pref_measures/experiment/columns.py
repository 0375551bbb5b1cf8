"""What an experiment evaluates: its judgment sets (by name) and, per (judgment set, judgment group), the measures
with their column names, in the order given.

A measure is an ir_measures Measure (ours or ir_measures') or a pairwise preference between runs
(:class:`~ir_pref_measures.comparison.pairwise.Measure`); ``SET:MEASURE`` names a set, ``GROUP:MEASURE`` a judgment
group of the first set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ir_pref_measures.comparison.pairwise import ALIASES, PREFERENCES
from ir_pref_measures.comparison.pairwise import Measure as PairwiseMeasure
from ir_pref_measures.comparison.pairwise import parse_measure as parse_pairwise
from ir_pref_measures.errors import InputError
from ir_pref_measures.loading import sources
from ir_pref_measures.model.judgments import Judgments

PAIRWISE_NAMES = (*PREFERENCES, *ALIASES)
DEFAULT_SET = sources.DEFAULT_SET


def judgment_sets(judgments) -> dict[str, Judgments]:
    """Judgment sets by name: a mapping name -> source, else one set named :data:`DEFAULT_SET`. A source is
    anything :func:`ir_pref_measures.loading.sources.judgments` reads, a list of sources (their union), or a string
    ``A+B`` (the union of A and B, unless a file of that name exists)."""
    if isinstance(judgments, Mapping) and not sources.is_records(judgments):
        if not judgments:
            raise InputError("no judgment sets given")
        for name in judgments:
            if not isinstance(name, str) or not name or any(c.isspace() or c == ":" for c in name):
                raise InputError(f"a judgment set name must be a non-empty string without spaces or ':', not {name!r}")
        return {name: _judgment_set(source) for name, source in judgments.items()}
    return {DEFAULT_SET: _judgment_set(judgments)}


def _judgment_set(source) -> Judgments:
    if isinstance(source, str):
        return sources.joined(source)
    if isinstance(source, list | tuple) and not sources.is_records(source):
        return sources.combined(*source)
    return sources.judgments(source)


Key = tuple[str, str | None]  # (judgment set, judgment group or None)


def plan_measures(measures, sets: Mapping[str, Judgments]) -> tuple[dict[Key, list[tuple[str, object]]], list[str]]:
    """The measures per (judgment set, group) they are evaluated on, each with its column name: ``MEASURE`` on
    the first set; ``SET:MEASURE`` on another set, ``MEASURE [SET]``; ``GROUP:MEASURE`` (no set of that name) on
    a judgment group of the first set, ``MEASURE [GROUP]``. ``measures`` may be a mapping set name -> measures.
    An unknown set or group lists the known ones. Returns the plan and the column names in the order given."""
    first = next(iter(sets))
    plan: dict[Key, list[tuple[str, object]]] = {}
    order: list[str] = []
    for prefix, measure in _prefixed(measures):
        if prefix is None:
            key = (first, None)
        elif prefix in sets:
            key = (prefix, None)
        elif len(sets) == 1:
            sets[first].group(prefix)  # an unknown group is an InputError naming the known ones
            key = (first, prefix)
        else:
            if prefix not in sets[first].groups:
                known = f"judgment sets {', '.join(sets)}; groups of {first}: {', '.join(sets[first].groups)}"
                raise InputError(
                    f"measure {prefix}:{measure}: unknown judgment set or group {prefix!r}", expected=known
                )
            key = (first, prefix)
        for column, parsed in parse_measures([measure]):
            named = column if prefix is None else f"{column} [{prefix}]"
            if named not in order:
                plan.setdefault(key, []).append((named, parsed))
                order.append(named)
    if not plan:
        raise InputError("no measures given")
    return plan, order


def _prefixed(measures) -> list[tuple[str | None, object]]:
    """``(set or group name, measure)`` in the order given."""
    if isinstance(measures, Mapping):
        return [(str(name), m) for name, group in measures.items() for _, m in _prefixed(group)]
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    out = []
    for measure in measures:
        if isinstance(measure, str) and ":" in measure.split("(")[0]:
            prefix, _, name = measure.partition(":")
            out.append((prefix, name))
        else:
            out.append((None, measure))
    return out


def judgments_of(sets: Mapping[str, Judgments], key: Key) -> Judgments:
    name, group = key
    return sets[name] if group is None else sets[name].group(group)


def summed(measure) -> bool:
    """True for a measure whose summary is a sum over queries (trec_eval's counts), not a mean."""
    import ir_measures

    return isinstance(measure, ir_measures.Measure) and isinstance(measure.aggregator(), ir_measures.SumAgg)


def parse_measures(measures) -> list[tuple[str, object]]:
    """``(column name, measure)`` pairs: an ir_measures Measure, or for a pairwise preference a
    :class:`~ir_pref_measures.comparison.pairwise.Measure`. A string is read by PyTerrier's rule: a trec_eval name
    (:func:`trec_eval_measures`) if it is one, else an ir_measures name (ours too). A measure given twice counts
    once; an unknown name lists the known ones."""
    import ir_measures

    from ir_pref_measures.measures.names import parse, validate

    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    parsed: dict[str, object] = {}
    for measure in measures:
        if isinstance(measure, str) and measure in PAIRWISE_NAMES:
            parsed.setdefault(measure, parse_pairwise(measure))
            continue
        if isinstance(measure, str) and (trec := trec_eval_measures(measure)):
            for column, m in trec:
                validate(m)
                parsed.setdefault(column, m)
            continue
        if isinstance(measure, str):
            measure = parse(measure, others=f"; or a pairwise preference: {', '.join(PAIRWISE_NAMES)}")
        elif isinstance(measure, ir_measures.Measure):
            validate(measure)
        else:
            raise MeasureTypeError(f"a measure must be an ir_measures Measure or a name, not {type(measure).__name__}")
        parsed.setdefault(str(measure), measure)
    if not parsed:
        raise InputError("no measures given")
    return list(parsed.items())


class MeasureTypeError(InputError, KeyError):
    """A measure neither a name nor a Measure: an :class:`InputError`, and the ``KeyError`` ``pt.Experiment``
    raises for it."""

    __str__ = InputError.__str__


def trec_eval_measures(text: str) -> list[tuple[str, object]]:
    """``(column, measure)`` for a trec_eval measure name, as ``pt.Experiment`` reads it (ir_measures'
    ``parse_trec_measure``): one measure keeps the name given as its column (``map``, ``ndcg_cut_10``, ``P_10``);
    a family (``P``, ``official``) gives its measures, each under its ir_measures name. Empty for other names."""
    import contextlib
    import io

    import ir_measures

    try:
        with contextlib.redirect_stdout(io.StringIO()):  # "skipped [...]: measures not yet supported" for families
            found = ir_measures.parse_trec_measure(text)
    except (NameError, ValueError, SyntaxError, KeyError, TypeError):
        return []
    if len(found) == 1:
        return [(text, found[0])]
    return [(str(m), m) for m in found]


@dataclass(frozen=True)
class Plan:
    """The judgment sets and, per (set, group), its ``(column, measure)`` items; ``order``: the columns as given."""

    sets: dict[str, Judgments]
    items: dict[Key, list[tuple[str, object]]]
    order: list[str]

    @classmethod
    def of(cls, judgments, measures) -> Plan:
        """The plan of ``measures`` on the judgment sets of ``judgments`` (:func:`judgment_sets`)."""
        sets = judgment_sets(judgments)
        items, order = plan_measures(measures, sets)
        return cls(sets, items, order)

    def judgments(self, key: Key) -> Judgments:
        return judgments_of(self.sets, key)

    def columns(self, kind) -> set[str]:
        """The columns whose measure ``kind(measure)`` holds."""
        return {column for items in self.items.values() for column, m in items if kind(m)}

    @property
    def judged(self) -> set[str]:
        """Every judged query id of every set."""
        return {str(q) for judged in self.sets.values() for q in judged.query_ids}


def is_pairwise(measure) -> bool:
    """True for a pairwise preference between runs (``rpp``, ``lexiprecision``, ...)."""
    return isinstance(measure, PairwiseMeasure)
