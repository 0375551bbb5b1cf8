"""Agreement of the desk's assessors on the questions they share, live on the admin page.

Input: each assessor's label per question (``{assessor: {request_id: label}}``, a label ``1`` for the doc listed
first, ``0`` a tie, ``-1`` the other; a bad mark read as a preference for the other doc), each question's label
oriented so that ``1`` prefers the doc of the smaller id (as :func:`ir_pref_measures.agreement.align` orients them),
so the statistics equal ``ipm.agreement.reliability`` on the same answers:

* :func:`reliability`: Fleiss' kappa (Gwet's form where questions have different numbers of assessors; J. L.
  Fleiss, Psychological Bulletin 76(5), 1971) and Krippendorff's alpha, nominal (K. Krippendorff, *Computing
  Krippendorff's Alpha-Reliability*, 2011), over the questions two or more assessors answered;
* :func:`pairwise` (Cohen's kappa of every two assessors on their shared questions) and :func:`with_others` (the
  share of an assessor's answers, on shared questions, that each other assessor of the question gave too).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ir_pref_measures.agreement.coefficients import (
    LABELS,
    cohen_kappa,
    coincidences,
    contingency,
    fleiss_kappa,
    fleiss_totals,
    krippendorff_alpha,
)

Labels = Mapping[str, Mapping[int, int]]  # assessor -> request id -> label (-1, 0, 1)


def _shared(labels: Labels) -> tuple[list[int], list[str], np.ndarray]:
    """The questions two or more assessors labelled, the assessors, and the ``(questions, assessors)`` labels
    (``9`` where missing)."""
    names = sorted(labels)
    counts: dict[int, int] = {}
    for given in labels.values():
        for request_id in given:
            counts[request_id] = counts.get(request_id, 0) + 1
    items = sorted(r for r, n in counts.items() if n >= 2)
    table = np.full((len(items), len(names)), 9, dtype=np.int8)
    row = {r: i for i, r in enumerate(items)}
    for k, name in enumerate(names):
        for request_id, label in labels[name].items():
            if request_id in row:
                table[row[request_id], k] = label
    return items, names, table


def reliability(labels: Labels) -> dict[str, object]:
    """``{"pairs": n, "fleiss_kappa": value, "krippendorff_alpha": value}`` over the questions two or more assessors
    answered (NaN without any, or where chance agreement is total)."""
    items, _, table = _shared(labels)
    if not items:
        return {"pairs": 0, "fleiss_kappa": float("nan"), "krippendorff_alpha": float("nan")}
    counts = np.stack([(table == v).sum(axis=1) for v in LABELS], axis=1)
    groups = np.zeros(len(items), dtype=np.int64)
    kappa = float(fleiss_kappa(fleiss_totals(counts, groups, 1))[0])
    alpha = float(krippendorff_alpha(coincidences(table, groups, 1)[0], "nominal"))
    return {"pairs": len(items), "fleiss_kappa": kappa, "krippendorff_alpha": alpha}


def pairwise(labels: Labels) -> list[list]:
    """``[a, b, shared, agree, kappa]`` for every two assessors with shared questions (kappa ``""`` when NaN)."""
    names = sorted(labels)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            shared = sorted(labels[a].keys() & labels[b].keys())
            if not shared:
                continue
            x = np.array([labels[a][r] for r in shared])
            y = np.array([labels[b][r] for r in shared])
            kappa = float(cohen_kappa(contingency(x, y, np.zeros(len(shared), dtype=np.int64), 1))[0])
            rows.append([a, b, len(shared), int((x == y).sum()), "" if np.isnan(kappa) else f"{kappa:.3f}"])
    return rows


def with_others(labels: Labels) -> dict[str, tuple[int, int]]:
    """``{assessor: (agreeing, compared)}``: over the assessor's shared questions and each other assessor of the
    question, how often the two gave the same label."""
    out = {}
    for who, given in labels.items():
        agree = compared = 0
        for other, theirs in labels.items():
            if other == who:
                continue
            for request_id in given.keys() & theirs.keys():
                compared += 1
                agree += given[request_id] == theirs[request_id]
        out[who] = (agree, compared)
    return out
