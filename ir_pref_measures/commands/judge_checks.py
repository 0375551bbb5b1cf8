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
    if database.is_url(args.store):
        return
    database.check_creatable(args.store)
    check_outputs({"the store": args.store}, {"--qrels": args.qrels, "--runs": args.runs})


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
    check_outputs({"--output": args.output}, {"the store": args.store} | effort_inputs(args.store))


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


def effort_inputs(store: str) -> dict[str, list[str]]:
    """The files the effort at ``store`` reads (its qrels, its runs), as ``{label: paths}``; an ir_datasets ID names
    no file."""
    from ir_pref_measures.judging.store import Store

    with Store(store) as opened:
        settings = opened.settings()
    found: dict[str, list[str]] = {}
    if settings.get("qrels") and not settings["qrels"].startswith("irds:"):
        found["--qrels of the effort"] = [settings["qrels"]]
    if settings.get("runs"):
        found["--runs of the effort"] = list(json.loads(settings["runs"]))
    return found


CHECKS = {
    "plan": _plan,
    "run": _run,
    "status": _status,
    "export": _export,
    "simulate": _simulate,
    "serve": _serve,
}
