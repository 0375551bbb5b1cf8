"""What an experiment evaluates: its judgment sets (by name) and, per (judgment set, judgment group), the measures
with their column names, in the order given.

A measure is an ir_measures Measure (ours or ir_measures') or a pairwise preference between runs
(:class:`~ir_pref_measures.measures.names.PairwiseMeasure`), read by
:func:`~ir_pref_measures.measures.names.measure_columns`; ``SET:MEASURE`` names a set, ``GROUP:MEASURE`` a judgment
group of the first set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ir_pref_measures.errors import InputError
from ir_pref_measures.loading import sources
from ir_pref_measures.measures.names import PairwiseMeasure, is_package_measure, measure_columns
from ir_pref_measures.model.checks import need as needs
from ir_pref_measures.model.judgments import Judgments

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
        key: Key
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
        for column, parsed in measure_columns([measure]):
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
    out: list[tuple[str | None, object]] = []
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


@dataclass(frozen=True)
class Plan:
    """The judgment sets and, per (set, group), its ``(column, measure)`` items; ``order``: the columns as given."""

    sets: dict[str, Judgments]
    items: dict[Key, list[tuple[str, object]]]
    order: list[str]

    @classmethod
    def of(cls, judgments, measures) -> Plan:
        """The plan of ``measures`` on the judgment sets of ``judgments`` (:func:`judgment_sets`); measures that need
        grades on a set of preferences alone are an :class:`InputError`."""
        sets = judgment_sets(judgments)
        items, order = plan_measures(measures, sets)
        for key, part in items.items():
            _check_graded(part, judgments_of(sets, key))
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


def _check_graded(measures: list[tuple[str, object]], judgments: Judgments) -> None:
    """:class:`InputError` naming the measures that need grades (ir_measures' own, the pairwise preferences) when
    the judgments hold only preferences."""
    if judgments.graded.any():
        return
    need = [column for column, m in measures if is_pairwise(m) or not is_package_measure(m)]
    if need:
        raise InputError(f"{needs(need)} graded judgments, but the judgments hold only preferences")
