"""The checks of ``ir-pref-measures judge``, made before any work, in one place for every action.

Values are checked as they are read (the option types of ``judge``'s parsers: a share is ``[0, 1]``, a seed an
integer ``>= 0``, a port ``1..65535``); :func:`check` then checks what involves several options or a file:

* **paths**: every path an action writes (the store of ``plan``, ``--requests``, ``-o``, ``--plot``) is none of the
  inputs of the command or of its effort (its qrels, runs, truth, judgments, answers, store), by any spelling
  (:func:`~ir_pref_measures.commands.output.check_outputs`); a store is never another program's file; a command
  that only reads a store (``run`` reads it before writing, ``status``, ``export``, ``serve``) needs one that
  exists and creates nothing;
* **options that would be ignored** are refused: an option of another judge or selector, ``--option KEY=VALUE``
  for a built-in judge (each of its options has its flag), ``--qrels`` with the replay judge's coin fallback;
* a plot's file type and matplotlib, and the simulator's ``--budgets`` against ``--per-topic``.
"""

from __future__ import annotations

import argparse
import json

from ir_pref_measures.commands.options import key_values
from ir_pref_measures.commands.output import check_outputs, same_file
from ir_pref_measures.errors import InputError
from ir_pref_measures.judging import database

# the built-in judges' options (factory keyword -> flag): each has its flag, so --option KEY=VALUE is refused
BUILT_IN_OPTIONS = {
    "simulated": {
        "qrels": "--qrels", "seed": "--judge-seed", "noise": "--noise", "tie_rate": "--tie-rate",
        "position_bias": "--position-bias", "bad_marks": "--bad-marks",
    },
    "replay": {"judgments": "--judgments", "seed": "--judge-seed", "format": "--prefs-format", "qrels": "--qrels"},
    "files": {"requests": "--requests", "judgments": "--answers", "assessor": "--assessor"},
}  # fmt: skip


# option -> (the judges it belongs to, its default): given to another judge, it would be ignored, so it is refused
OWN_OPTIONS = {
    "noise": (("simulated",), 0.0),
    "tie_rate": (("simulated",), 0.0),
    "position_bias": (("simulated",), 0.0),
    "bad_marks": (("simulated",), False),
    "judgments": (("replay",), None),
    "fallback": (("replay",), "coin"),
    "requests": (("files",), None),
    "answers": (("files",), None),
    "assessor": (("files",), None),
    "judge_seed": (("simulated", "replay"), 0),
    "qrels": (("simulated", "replay"), None),
    "prefs_format": (("replay",), None),
    "cache": (("llm",), None),
}
# option -> (the selectors it belongs to, its default), refused with another selector in the same way
SELECTOR_OPTIONS = {
    "k": (("topk", "topk+rating"), 5),
    "f": (("topk", "topk+rating"), 9),
    "p": (("topk", "topk+rating"), 7),
    "uniform": (("rating", "topk+rating"), 0.5),
    "batch": (("all", "random", "rating", "topk+rating"), None),
    "pairs": (("list",), None),
}


def refuse_options_of_others(args, options: dict, kind: str) -> None:
    """An option of ``options`` given with another ``--KIND`` than its own is an error, not silently ignored."""
    chosen = getattr(args, kind)
    for name, (owners, default) in options.items():
        if chosen not in owners and getattr(args, name, default) != default:
            flag = "--" + name.replace("_", "-")
            owner = " and ".join(owners) + f" {kind}" + ("s" if len(owners) > 1 else "")
            raise InputError(f"{flag} is an option of the {owner}, not of --{kind} {chosen}")


def check(args: argparse.Namespace) -> None:
    """Every check of ``judge``'s action ``args.action_name`` (module docstring); an :class:`InputError` when one
    fails, before anything is read or written."""
    CHECKS[args.action_name](args)


def _plan(args) -> None:
    refuse_options_of_others(args, SELECTOR_OPTIONS, "selector")
    if args.selector == "list" and not args.pairs:
        raise InputError("--selector list asks the questions of a list: give --pairs FILE")
    if args.selector == "list" and (args.qrels or args.runs):
        raise InputError("--selector list asks the questions of --pairs: give no --qrels and no --runs")
    if database.is_url(args.store):
        return
    database.check_creatable(args.store)
    inputs = {"--qrels": args.qrels, "--runs": args.runs, "--llm": args.llm, "--pairs": args.pairs}
    check_outputs({"the store": args.store}, inputs)


def _run(args) -> None:
    database.check_existing(args.store)
    refuse_options_of_others(args, OWN_OPTIONS, "judge")
    if args.judge == "replay" and args.qrels and args.fallback != "qrels":
        raise InputError("--qrels is read by the replay judge only with --fallback qrels (pairs never recorded)")
    for item in args.option:
        key = item.partition("=")[0].replace("-", "_")
        own = BUILT_IN_OPTIONS.get(args.judge)
        if own is None or not key:
            continue
        if key in own:
            raise InputError(f"--option {item!r}: give the {args.judge} judge's {key} as {own[key]}")
        flags = ", ".join(dict.fromkeys(own.values()))
        raise InputError(f"--option {item!r}: the {args.judge} judge has no option {key!r} (its options: {flags})")
    if args.requests and args.answers and same_file(args.requests, args.answers):  # the answers may not exist yet
        raise InputError(
            f"{args.requests}: --requests and --answers name one file; the questions would be read back as answers"
        )
    inputs = {"the store": args.store, "--qrels": args.qrels, "--judgments": args.judgments, "--answers": args.answers}
    check_outputs({"--requests": args.requests}, inputs | effort_inputs(args.store))


def _status(args) -> None:
    database.check_existing(args.store)


def _export(args) -> None:
    database.check_existing(args.store)
    if args.documents and args.format != "log":
        raise InputError(f"--documents orders the lines of the log format, not of --format {args.format}")
    if args.tie_band is not None and args.format in ("shown", "soft"):
        raise InputError(f"--tie-band makes verdicts, which the {args.format} format does not hold")
    check_outputs({"--output": args.output}, {"the store": args.store} | effort_inputs(args.store))
    if args.with_llm and args.format == "shown":
        raise InputError("--with-llm combines verdicts: give a combined format (log, carterette, winner, pairs)")


def _simulate(args) -> None:

    own = {k: v for k, v in OWN_OPTIONS.items() if not (k == "prefs_format" and args.truth)}  # --truth's format too
    refuse_options_of_others(args, own, "judge")
    if args.judge == "replay" and not args.judgments:
        raise InputError("the replay judge needs --judgments")
    if args.per_topic and args.budgets:
        raise InputError("give --budgets (shares of the pairs) or --per-topic (judgments per topic), not both")
    if args.plot is not None:
        from ir_pref_measures.meta.plots import check_path

        check_path(args.plot)  # matplotlib there, and a file type it writes: before the simulation, not after
    inputs = {"--runs": args.runs, "--qrels": args.qrels, "--truth": args.truth, "--judgments": args.judgments}
    check_outputs({"--output": args.output, "--plot": args.plot}, inputs)


def _serve(args) -> None:
    database.check_existing(args.store)  # never made here: 'judge plan' makes a store
    if not (args.gold or args.gold_qrels):
        for flag, value in (("--gold-share", args.gold_share), ("--gold-format", args.gold_format)):
            if value is not None:
                raise InputError(f"{flag} needs gold pairs (--gold FILE or --gold-qrels QRELS)")
    if not (args.assessors or args.study):
        raise InputError("name the assessors (--assessors NAME ...) or enable the open study link (--study)")
    if not args.study:
        for flag in ("participant_param", "completion_url", "completion_after"):
            if getattr(args, flag) is not None:
                raise InputError(f"--{flag.replace('_', '-')} is an option of the open study link: give --study")
    if (args.completion_url is None) != (args.completion_after is None):
        raise InputError("--completion-url and --completion-after go together (where, and after how many judgments)")
    if args.completion_url is not None:
        from ir_pref_measures.judging.web.study import completion_url

        completion_url(args.completion_url)
    if args.max_assessors < 2:
        raise InputError(
            f"--max-assessors must be at least 2 (two disagree before one more is asked), not {args.max_assessors}"
        )
    if args.gold_gap is not None and not args.gold_qrels:
        raise InputError("--gold-gap is the grade gap of --gold-qrels pairs: give --gold-qrels")
    if args.gold_format is not None and not args.gold:
        raise InputError("--gold-format is the format of --gold: give --gold")


def effort_inputs(store: str) -> dict[str, list[str]]:
    """The files the effort at ``store`` reads (its qrels, its runs), as ``{label: paths}``; an ir_datasets ID names
    no file."""
    from ir_pref_measures.judging.effort import stored_settings

    settings = stored_settings(store)
    found: dict[str, list[str]] = {}
    if settings.get("qrels") and not settings["qrels"].startswith("irds:"):
        found["--qrels of the effort"] = [settings["qrels"]]
    if settings.get("runs"):
        found["--runs of the effort"] = list(json.loads(settings["runs"]))
    if settings.get("llm") and not database.is_url(settings["llm"]):
        found["--llm of the effort"] = [settings["llm"]]
    if settings.get("pairs"):
        found["--pairs of the effort"] = [settings["pairs"]]
    return found


def _grade(args) -> None:
    options = key_values(args.option)
    texts = {f"--option {name}": options[name] for name in ("queries", "documents") if name in options}
    cache = {"--cache": args.cache} if args.cache and not database.is_url(args.cache) else {}
    check_outputs({"--output": args.output}, {"--qrels": args.qrels} | texts | cache)


CHECKS = {
    "plan": _plan,
    "run": _run,
    "status": _status,
    "export": _export,
    "simulate": _simulate,
    "serve": _serve,
    "grade": _grade,
}
