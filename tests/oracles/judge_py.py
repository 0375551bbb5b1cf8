"""A direct reading of Arabzadeh and Clarke's ``Pref/judge.py`` rules (as specified, not as the package codes them):
the reading of one response, the rule of the two orders, the ``@`` line; and a reader of its transcripts."""

from __future__ import annotations

import re
from dataclasses import dataclass


def reading(response: str) -> int:
    """1 (Passage 1), -1 (Passage 2) or 0 (unusable)."""
    response = response.replace("\n", " ")
    if "Passage 1" in response:
        return 1
    if "Passage 2" in response:
        return -1
    if "1" in response and "2" not in response:
        return 1
    if "1" not in response and "2" in response:
        return -1
    return 0


def better(x: int, y: int) -> int:
    """x: the reading with a first; y: with b first. 1: a wins, -1: b wins, 0: a tie."""
    if x == 1 and y == -1:
        return 1
    if x == -1 and y == 1:
        return -1
    if x == 0:
        return -y
    if y == 0:
        return x
    return 0


def at_line(topic: str, a: str, b: str, passages: dict[str, str], x: int | None, y: int | None) -> str:
    """The ``@`` line judge.py prints for the pair ``a b`` (``x``, ``y`` unused when a passage is missing)."""
    if a in passages and b in passages:
        result = better(x, y)
        if result == 1:
            return f"@ {topic} {a} {b} !"
        if result == -1:
            return f"@ {topic} {b} {a} !"
        return f"@ {topic} {a} {b} =" if len(passages[a]) < len(passages[b]) else f"@ {topic} {b} {a} ="
    if a in passages:
        return f"@ {topic} {a} {b} ?"
    if b in passages:
        return f"@ {topic} {b} {a} ?"
    return f"@ {topic} {a} {b} ?"


@dataclass(frozen=True)
class Exchange:
    """One pair of a transcript: the pair, the question, both passages, both prompts and responses, the
    readings and lengths judge.py printed, and its ``@`` line."""

    topic: str
    a: str
    b: str
    question: str
    passage_a: str
    passage_b: str
    prompts: tuple[str, str]
    responses: tuple[str, str]
    readings: tuple[int, int]
    lengths: tuple[int, int]
    line: str


PROMPT = re.compile(r"\n(.*\nQuestion:\n(.*)\nPassage 1:\n(.*)\nPassage 2:\n(.*)\n)\nResponse: (.*)\n")


def read_transcript(text: str) -> list[Exchange]:
    """The exchanges of a judge.py stdout (``--- topic a b``, two prompts and responses, ``x y len_a len_b``,
    the ``@`` line); each prompt is printed with its leading and trailing line break."""
    exchanges = []
    for block in text.split("--- ")[1:]:
        head, rest = block.split("\n", 1)
        topic, a, b = head.split(" ")
        prompts = list(PROMPT.finditer(rest))
        assert len(prompts) == 2, f"pair {head}: {len(prompts)} prompts"
        (first, second), tail = prompts, rest[prompts[1].end() :].split("\n")
        x, y, len_a, len_b = (int(v) for v in tail[0].split(" "))
        assert first.group(2) == second.group(2) and first.group(3) == second.group(4) == first.group(3)
        assert first.group(4) == second.group(3)
        exchanges.append(
            Exchange(
                topic,
                a,
                b,
                first.group(2),
                first.group(3),
                first.group(4),
                ("\n" + first.group(1), "\n" + second.group(1)),
                (first.group(5), second.group(5)),
                (x, y),
                (len_a, len_b),
                tail[1],
            )
        )
    return exchanges
