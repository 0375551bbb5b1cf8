"""Measure names: the one parser of every command and the API, for the measures of one run (ir_measures names,
ours and theirs; trec_eval names such as ``map``, ``ndcg_cut_10``, ``P_10``) and the measures between two runs
(:data:`~ir_pref_measures.measures.catalog.PAIRWISE`: ``rpp``, ``ap@10``, ``rbp@0.8,100``, ``rbo_a_ext@0.9``).

Our per-run measures are registered with ir_measures on ``import ir_pref_measures``, so ``ir_measures.parse_measure``
knows them; a parameter is checked against the catalog's declaration. An unknown name suggests the closest known
names (:func:`suggestions`) rather than listing them all.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import io
import itertools
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

import numpy as np

from ir_pref_measures.errors import InputError
from ir_pref_measures.measures.catalog import (
    PAIRWISE,
    PAIRWISE_ALIASES,
    PARAMS,
    RBO_SCORES,
    RBO_TIES,
    SPECS,
    TREC_EVAL,
    MeasureSpec,
    PairwiseSpec,
)

PREFERENCES = ("preference",)
"""The kinds of measures between two runs an experiment table takes (each run's preference over a baseline)."""
BETWEEN_RUNS = ("preference", "difference", "similarity")
"""Every kind of measure between two runs (the compare API)."""


def is_package_measure(measure) -> bool:
    """True for a measure this package defines (the catalog's :data:`~ir_pref_measures.measures.catalog.SPECS`,
    registered with ir_measures: ``ppref``, ``PGC``, ``prefs_*``, ``RBPResidual``, ...; computed by the engine on
    any judgments), False for ir_measures' own (which need graded qrels)."""
    return measure.NAME in SPECS


def declared(measure) -> MeasureSpec | None:
    """The catalog's declaration of ``measure``: ours, or ir_measures' own measures that the catalog declares
    (:data:`~ir_pref_measures.measures.catalog.TREC_EVAL`); ``None`` for the others."""
    return SPECS.get(measure.NAME) or TREC_EVAL.get(measure.NAME)


def invalid(measure, name: str, value, allowed: str, desc: str | None = None, text: str | None = None) -> InputError:
    """The one message form of a bad measure parameter (``text``: the measure as the user wrote it)."""
    about = f" ({desc})" if desc else ""
    return InputError(f"invalid measure {_written(measure, text)}: {name}{about} must be {allowed}, not {value!r}")


def _written(measure, text: str | None = None) -> str:
    """``text`` (the measure as written), else the measure by its name (``P@0``), or with an unknown parameter
    (which ``str`` fails on), its name and every parameter given."""
    if text is not None:
        return text
    if all(name in measure.SUPPORTED_PARAMS for name in measure.params):
        return str(measure)
    params = ", ".join(f"{k}={v!r}" for k, v in measure.params.items())
    return f"{measure.NAME}({params})"


def check_declared(measure, text: str | None = None) -> None:
    """Raise :class:`InputError` in one form when a parameter of ``measure`` lies outside the range the catalog
    declares for it: every declared parameter of a declared measure, and the cutoff of any measure (an integer
    >= 1), before any provider sees it. Parameters the catalog does not declare are left to ir_measures."""
    spec = declared(measure)
    for name, value in measure.params.items():
        if spec is not None and name in spec.params or name == "cutoff":
            param = PARAMS[name]
            if not param.test(value):
                raise invalid(measure, name, value, param.allowed, param.desc, text)


def validate(measure, text: str | None = None) -> None:
    """Raise :class:`InputError` naming ``measure`` when a parameter is unknown, outside the range the catalog
    declares (:func:`check_declared`), missing where the catalog needs it and no installed provider computes the
    measure without it, or (a parameter the catalog does not declare) fails ir_measures' own check. ``text``: the
    measure as the user wrote it, for the message."""
    from ir_measures.measures import base as measures_base

    supported = measure.SUPPORTED_PARAMS
    unknown = [name for name in measure.params if name not in supported]
    if unknown:
        raise InputError(
            f"invalid measure {_written(measure, text)}: unknown parameter {unknown[0]!r}",
            expected=", ".join(supported),
        )
    check_declared(measure, text)
    spec = declared(measure)
    for name, info in supported.items():  # ir_measures' own check of the parameters the catalog leaves to it
        value = measure.params.get(name, measures_base._NOT_PROVIDED)
        if (spec is None or name not in spec.params) and name != "cutoff" and not info.validate(value):
            if name not in measure.params:
                raise InputError(f"invalid measure {_written(measure, text)}: {name} ({info.desc}) must be given")
            allowed = f"of type {getattr(info.dtype, '__name__', info.dtype)}"
            if info.choices is not measures_base._NOT_PROVIDED:
                allowed = f"one of {', '.join(map(repr, info.choices))}"
            raise invalid(measure, name, value, allowed, info.desc, text)
    if spec is None:
        return
    missing = [name for name in spec.needs if name not in measure.params]
    if missing and spec.family == "trec_eval" and not _provided_elsewhere(measure):
        param = PARAMS[missing[0]]
        raise InputError(
            f"invalid measure {_written(measure, text)}: {missing[0]} ({param.desc}) must be given, as {param.allowed} "
            f"(no installed provider computes {measure.NAME} without it)"
        )
    if "order" in measure.params and "cols" not in measure.params:
        raise InputError(f"invalid measure {_written(measure, text)}: an examination order needs a grid (cols=...)")


def _provided_elsewhere(measure) -> bool:
    """True when an installed ir_measures provider computes ``measure`` as it is."""
    import ir_measures

    try:
        return ir_measures.DefaultPipeline.supports(measure)
    except (AssertionError, TypeError, ValueError):
        return False


def literal_measure(text: str):
    """``NAME(param=value, ...)[@cutoff]`` read with Python literals for the values (``rel=-1``, which
    ir_measures' parser does not read), or ``None`` when ``text`` is not of that form or names no measure."""
    import ast

    from ir_measures.measures import base as measures_base

    head, at, cutoff = text.partition("@")
    try:
        call = ast.parse(head.strip(), mode="eval").body
        if isinstance(call, ast.Name):
            call = ast.Call(call, [], [])
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name) or call.args:
            return None
        if any(k.arg is None for k in call.keywords):  # **kwargs
            return None
        params = {str(k.arg): ast.literal_eval(k.value) for k in call.keywords}
        if at:
            params["cutoff"] = ast.literal_eval(cutoff.strip())
    except (SyntaxError, ValueError, TypeError):
        return None
    base = measures_base.registry.get(call.func.id)
    return None if base is None else base(**params)


# -- measures between two runs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairwiseMeasure:
    """A measure between two runs as named (``ap@10``, ``rbp@0.8,100``, ``LR``, ``rbo_b_min@0.8``; ``name``, the
    column) and its parameters: ``cutoff`` (rank cutoff k, ``inf``: none), ``persistence`` (RBP's or RBO's),
    ``depth`` (RBO's, ``inf``: none), ``ties`` and ``score`` (RBO's variant and score)."""

    name: str
    spec: PairwiseSpec
    cutoff: float = np.inf
    persistence: float | None = None
    depth: float = np.inf
    ties: str | None = None
    score: str | None = None

    @property
    def family(self) -> str:
        """The catalog's name of the measure (``lexirecall`` for ``LR``)."""
        return self.spec.name

    @property
    def kind(self) -> str:
        """``preference``, ``difference`` or ``similarity``
        (:class:`~ir_pref_measures.measures.catalog.PairwiseSpec`)."""
        return self.spec.kind

    @property
    def is_metric(self) -> bool:
        """True for a metric difference M(run i) − M(run j), whose per-run values M are reported too."""
        return self.spec.kind == "difference"


_PAIRWISE_NAME = re.compile(r"([A-Za-z]+)((?:_[a-z]+)*)(?:@(.*))?", re.S)
_INTEGER = re.compile(r"\d+")
_NUMBER = re.compile(r"\d*\.?\d+(?:e-?\d+)?")


def parse_pairwise(text: str) -> PairwiseMeasure | None:
    """The measure between two runs named ``text`` (``NAME[_VARIANT...][@A[,B]]``, as the catalog declares it), or
    ``None`` when ``text`` names none (an unknown name, a value out of range, a malformed parameter)."""
    match = _PAIRWISE_NAME.fullmatch(text)
    if match is None:
        return None
    spec = PAIRWISE.get(PAIRWISE_ALIASES.get(match[1], match[1]))
    if spec is None or (match[1] in PAIRWISE_ALIASES and (match[2] or match[3] is not None)):
        return None
    values = dict(spec.defaults)
    suffixes = match[2].split("_")[1:]
    for name in spec.variants:  # each optional, in the declared order
        if suffixes and PARAMS[name].test(suffixes[0]):
            values[name] = suffixes.pop(0)
    given = [] if match[3] is None else match[3].split(",")
    if suffixes or len(given) > len(spec.at) or (match[3] is not None and not given[0]):
        return None
    for name, written in zip(spec.at, given, strict=False):
        value = _at_value(name, written, spec)
        if value is None:
            return None
        values[name] = value
    if any(name not in values for name in spec.needs):
        return None
    return PairwiseMeasure(text, spec, **values)


def _at_value(name: str, written: str, spec: PairwiseSpec) -> float | None:
    """A parameter written after ``@``: an integer >= 1 (or 0 for "none" where the spec says so: ``inf``), or a
    number in the parameter's range; ``None`` when it is neither."""
    if name in ("cutoff", "depth"):
        if not _INTEGER.fullmatch(written):
            return None
        count = int(written)
        if count == 0 and spec.zero_is_none:
            return np.inf
        return float(count) if count >= 1 else None
    value = float(written) if _NUMBER.fullmatch(written) else np.nan
    return value if PARAMS[name].test(value) else None


def pairwise_measures(names: str | Iterable[str]) -> list[PairwiseMeasure]:
    """The measures between two runs ``names`` in order (:func:`parse_measure`); a name given twice counts once."""
    if isinstance(names, str):
        names = [names]
    return [parse_measure(name, per_run=False, between_runs=BETWEEN_RUNS) for name in dict.fromkeys(names)]


def pairwise_names(kinds: Collection[str] = BETWEEN_RUNS) -> list[str]:
    """The names (and aliases) of the measures between two runs of ``kinds``, as one may write them bare."""
    return [name for spec in PAIRWISE.values() if spec.kind in kinds for name in (spec.name, *spec.aliases)]


# -- one parser ------------------------------------------------------------------------------------------------------


def parse_measure(text: str, *, per_run: bool = True, between_runs: Collection[str] = ()):
    """The measure named ``text``: with ``per_run``, a measure of one run, an ir_measures Measure (an ir_measures
    name, ours or theirs, or a trec_eval name of one measure: ``map``, ``ndcg_cut_10``, ``P_10``), validated; or a
    :class:`PairwiseMeasure` of one of the kinds ``between_runs`` (:data:`PREFERENCES`, :data:`BETWEEN_RUNS`). An
    unknown name is an :class:`InputError` suggesting the closest known names."""
    measure = _known_measure(text, per_run=per_run, between_runs=between_runs)
    if measure is None:
        raise unknown_measure(text, per_run=per_run, between_runs=between_runs)
    return measure


def _known_measure(text: str, *, per_run: bool, between_runs: Collection[str]):
    """:func:`parse_measure`'s measure, or None for an unknown name (an invalid parameter raises)."""
    if between_runs and (found := parse_pairwise(text)) is not None and found.kind in between_runs:
        return found
    if per_run:
        measure = _ir_measures_name(text)
        if measure is None:
            measure = literal_measure(text)
        if measure is None and len(trec := trec_eval_measures(text)) == 1:
            measure = trec[0][1]
        if measure is not None:
            validate(measure, text)
            return measure
    return None


def parses(text: str, *, per_run: bool = True, between_runs: Collection[str] = ()) -> bool:
    """Whether :func:`parse_measure` reads ``text`` as a valid measure in that context."""
    try:
        return _known_measure(text, per_run=per_run, between_runs=between_runs) is not None
    except (InputError, ValueError, TypeError, SyntaxError, NameError, AttributeError):
        return False


def _ir_measures_name(text: str):
    import ir_measures

    try:
        return ir_measures.parse_measure(text)
    except (NameError, ValueError, SyntaxError, TypeError, AttributeError):
        return None


def measure_columns(measures, *, between_runs: Collection[str] = PREFERENCES) -> list[tuple[str, object]]:
    """``(column name, measure)`` pairs of ``measures`` (names or ir_measures Measures), as an experiment table
    reads them. A string is read by PyTerrier's rule: a trec_eval name (:func:`trec_eval_measures`) if it is one, else
    a name of :func:`parse_measure` (ours too, and the measures between two runs of the kinds ``between_runs``). A
    measure given twice counts once; an unknown name suggests the closest known names."""
    import ir_measures

    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    parsed: dict[str, object] = {}
    for measure in measures:
        if isinstance(measure, str) and between_runs and (found := parse_pairwise(measure)) is not None:
            if found.kind in between_runs:
                parsed.setdefault(measure, found)
                continue
        if isinstance(measure, str) and (trec := trec_eval_measures(measure)):
            for column, m in trec:
                validate(m)
                parsed.setdefault(column, m)
            continue
        if isinstance(measure, str):
            measure = parse_measure(measure, between_runs=between_runs)
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
    import ir_measures

    try:
        with contextlib.redirect_stdout(io.StringIO()):  # "skipped [...]: measures not yet supported" for families
            found = ir_measures.parse_trec_measure(text)
    except (NameError, ValueError, SyntaxError, KeyError, TypeError):
        return []
    if len(found) == 1:
        return [(text, found[0])]
    return [(str(m), m) for m in found]


# -- unknown names ---------------------------------------------------------------------------------------------------

_BASE = re.compile(r"[A-Za-z][A-Za-z_]*[A-Za-z]|[A-Za-z]")


def known_names(*, per_run: bool = True, between_runs: Collection[str] = ()) -> list[str]:
    """Every measure name (without parameters) of the contexts given: ir_measures' registry (ours included; its
    names before its aliases) and the trec_eval names it reads for ``per_run``; the measures between two runs of
    ``between_runs``, with RBO's variants."""
    names: list[str] = []
    if per_run:
        from ir_measures.measures import base as measures_base

        registry = measures_base.registry
        names += sorted(name for name, measure in registry.items() if measure.NAME == name)
        names += sorted(name for name, measure in registry.items() if measure.NAME != name)
        with contextlib.suppress(ImportError):
            import pytrec_eval

            trec = set(pytrec_eval.supported_measures) | set(pytrec_eval.supported_nicknames)
            names += sorted(name for name in trec if trec_eval_measures(name))
    for spec in PAIRWISE.values():
        if spec.kind in between_runs:
            names += [spec.name, *spec.aliases]
            choices = [[""] + [f"_{v}" for v in _allowed(name)] for name in spec.variants]
            names += [spec.name + "".join(parts) for parts in itertools.product(*choices) if any(parts)]
    return list(dict.fromkeys(names))


def _allowed(param: str) -> tuple[str, ...]:
    return {"ties": RBO_TIES, "score": RBO_SCORES}[param]


def suggestions(
    text: str, known: Iterable[str], n: int = 3, *, valid: Callable[[str], bool] | None = None
) -> list[str]:
    """Up to ``n`` names closest to ``text`` among those built from the names of ``known`` (with difflib's ratio >=
    0.6 to the name ``text`` starts with, case ignored) and the rest of ``text`` after its name, as written or mended
    (``nDGC@10`` -> ``nDCG@10``, ``ppref10`` -> ``ppref@10``, ``ppref@`` -> ``ppref@10``, ``ndcg_cut10`` ->
    ``ndcg_cut_10``, or the bare name); with ``valid``, only the names it accepts (that parse). They are ranked by
    the edit distance (optimal string alignment, case ignored, then case counted) over the full name with its
    parameters, and none is farther from ``text`` than half its length (at least 3 edits)."""
    match = _BASE.match(text)
    base, rest = (match[0], text[match.end() :]) if match else (text, "")
    by_lower: dict[str, str] = {}
    for name in known:
        by_lower.setdefault(name.lower(), name)
    candidates: dict[str, tuple[int, int]] = {}
    limit = max(3, len(text) // 2)
    for name in difflib.get_close_matches(base.lower(), list(by_lower), n=max(10, n), cutoff=0.6):
        for ending in _endings(rest):
            candidate = by_lower[name] + ending
            if candidate != text and candidate not in candidates:
                distance = _edits(candidate.lower(), text.lower())
                if distance <= limit:
                    candidates[candidate] = (distance, _edits(candidate, text))
    found = []
    for candidate in sorted(candidates, key=candidates.__getitem__):  # stable: difflib's order breaks ties
        if valid is None or valid(candidate):
            found.append(candidate)
            if len(found) == n:
                break
    return found


_CUTOFF = re.compile(r"[@_]?(\d+(?:\.\d+)?)")


def _endings(rest: str) -> list[str]:
    """What may follow a name in place of ``rest``: ``rest`` itself, the number it starts with as a cutoff
    (``@10``) or a trec_eval suffix (``_10``), a cutoff of 10 where none is given, and nothing."""
    endings = [rest]
    number = _CUTOFF.match(rest[1:] if rest.startswith("@") else rest)
    if number:
        endings += [f"@{number[1]}", f"_{number[1]}"]
    else:
        endings.append("@10")
    endings.append("")
    return list(dict.fromkeys(endings))


def _edits(a: str, b: str) -> int:
    """The optimal string alignment distance: insertions, deletions, substitutions, and swaps of two neighbours."""
    previous: list[int] = []  # the row before the previous one, read from the third row on
    current = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        before, previous, current = previous, current, [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
    return current[len(b)]


class UnknownMeasureError(InputError):
    """An unknown measure name: an :class:`InputError` whose ``suggestions`` are the closest known names."""

    def __init__(self, message: str, *, name: str, suggestions: list[str], expected: str) -> None:
        super().__init__(message, expected=expected)
        self.name, self.suggestions = name, suggestions


def unknown_measure(text: str, *, per_run: bool = True, between_runs: Collection[str] = ()) -> UnknownMeasureError:
    """The error of an unknown measure name: the closest known names, and the kinds of names known."""
    known = known_names(per_run=per_run, between_runs=between_runs)
    close = suggestions(text, known, valid=functools.partial(parses, per_run=per_run, between_runs=between_runs))
    hint = f"; did you mean {' or '.join(repr(name) for name in close)}?" if close else ""
    kinds = []
    if per_run:
        kinds.append(
            "an ir_measures name (nDCG@10, AP, P@10, RBP(p=0.8), ...), one of this package's (ppref@10, APpref, "
            "PGC(p=0.8), prefs_simp, ...; docs/measures.md), or a trec_eval name (map, ndcg_cut_10, P_10)"
        )
    if between_runs:
        kinds.append(f"a measure between two runs ({_between_runs_help(between_runs)})")
    return UnknownMeasureError(
        f"unknown measure {text!r}{hint}", name=text, suggestions=close, expected="; or ".join(kinds)
    )


def _between_runs_help(kinds: Collection[str]) -> str:
    parts = [", ".join(pairwise_names(("preference",)))] if "preference" in kinds else []
    if "difference" in kinds:
        parts.append("the differences ap, ap@k, rbp, rbp@p, rbp@p,k, rr, rr@k, ndcg, ndcg@k, rp, p@k, r@k")
    if "similarity" in kinds:
        parts.append("rbo[_w|_a|_b][_ext|_min|_max|_res][@p[,depth]] (default rbo_a_ext@0.9)")
    return "; ".join(parts)
