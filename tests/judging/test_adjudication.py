"""People where the LLM is unsure, on DL 2019 (two runs' pools, a few queries): a simulated LLM judge asked in both
orders, with position bias and noise (so its orders disagree on some pairs) and unusable answers on others; an
``adjudication`` effort asks people exactly those pairs, and the combined export is the LLM's export with those
pairs replaced by the people's verdicts."""

from __future__ import annotations

import hashlib

from judging.efforts import dl2019_runs

from ir_pref_measures.commands import main
from ir_pref_measures.judging import (
    Answer,
    Pair,
    SimulatedJudge,
    Store,
    load_texts,
    read_grades,
    run,
    selector_of,
    web,
)

RUNS = ("ICT-BERT2", "ICT-CKNRM_B")
FLIP = {"first": "second", "second": "first", "tie": "tie"}


class BothOrders:
    """A simulated LLM judge asked in both orders: each order answered by a simulated judge with position bias and
    noise; one pair in eleven unusable in both orders."""

    name = "simulated-llm"

    def __init__(self, grades) -> None:
        self.simulated = SimulatedJudge(grades, seed=4, noise=0.1, position_bias=0.25)

    def unusable(self, pair: Pair) -> bool:
        text = f"{pair.query_id} {min(pair.first, pair.second)} {max(pair.first, pair.second)}"
        return hashlib.sha256(text.encode()).digest()[0] % 11 == 0

    def answers(self, pair: Pair) -> tuple[str, str]:
        """The answers to ``pair`` as asked and as flipped, the flipped one read back onto ``pair``."""
        flipped = Pair(pair.query_id, pair.second, pair.first)
        return self.simulated.answer(pair), FLIP[self.simulated.answer(flipped)]

    def judge(self, pairs):
        out = []
        for p in pairs:
            flipped = Pair(p.query_id, p.second, p.first)
            if self.unusable(p):
                out += [Answer(p, "unusable", self.name), Answer(flipped, "unusable", self.name)]
            else:
                out += [
                    Answer(p, self.simulated.answer(p), self.name),
                    Answer(flipped, self.simulated.answer(flipped), self.name),
                ]
        return out


def key(query: str, a: str, b: str) -> tuple[str, str, str]:
    return (query, min(a, b), max(a, b))


def lines_of(path) -> list[str]:
    return path.read_text().splitlines()


def llm_effort(data, tmp_path) -> tuple[str, dict, set, set]:
    """The LLM effort on DL 2019: its store, the qrels' grades, the pairs whose two orders disagree and the pairs
    it could not answer (both computed from the judge itself, not from the store)."""
    runs, qrels = dl2019_runs(data, tmp_path, RUNS, queries=4)
    grades = read_grades(qrels)
    llm = str(tmp_path / "llm.sqlite")
    assert main(["judge", "plan", llm, "--selector", "all", "--runs", *runs, "--depth", "5"]) == 0
    judge = BothOrders(grades)
    run(llm, judge)
    with Store(llm) as store:
        asked = [r.pair for r in store.requests()]
    disagree, unusable = set(), set()
    for pair in asked:
        as_asked, flipped = judge.answers(pair)
        if judge.unusable(pair):
            unusable.add(key(pair.query_id, pair.first, pair.second))
        elif as_asked != flipped:
            disagree.add(key(pair.query_id, pair.first, pair.second))
    assert disagree and unusable and len(disagree | unusable) < len(asked)
    return llm, grades, disagree, unusable


def people_judge(people: str, grades) -> list[tuple[str, str, str]]:
    """One person answers every pair of the adjudication effort ``people`` by the qrels; the pairs they were shown."""
    with Store(people) as store:
        selector = selector_of(store.settings())
        docs = {d: f"passage {d}" for pool in selector.pools.values() for d in pool}
        texts = load_texts({q: f"query {q}" for q in selector.pools}, docs)
        desk = web.open_desk(store, selector, ["ann"], texts)
        shown = []
        while (pair := desk.next_pair("ann")) is not None:
            shown.append(key(pair.query_id, pair.left, pair.right))
            left, right = grades[pair.query_id].get(pair.left, 0), grades[pair.query_id].get(pair.right, 0)
            desk.answer("ann", pair.assignment, "left" if left > right else "right" if right > left else "tie")
    return shown


def exports(tmp_path, llm: str, people: str) -> tuple[list[str], list[str], list[str]]:
    """The carterette exports of the LLM effort, of the people alone and of both (``--with-llm``)."""
    for store, name, extra in ((llm, "llm.txt", []), (people, "people.txt", []), (people, "both.txt", ["--with-llm"])):
        assert main(["judge", "export", store, "--format", "carterette", "-o", str(tmp_path / name), *extra]) == 0
    return lines_of(tmp_path / "llm.txt"), lines_of(tmp_path / "people.txt"), lines_of(tmp_path / "both.txt")


def test_people_judge_exactly_the_unsure_pairs_and_the_combined_export_replaces_them(data, tmp_path, capsys):
    llm, grades, disagree, unusable = llm_effort(data, tmp_path)
    people = str(tmp_path / "people.sqlite")
    assert main(["judge", "plan", people, "--selector", "adjudication", "--llm", llm]) == 0
    expected = disagree | unusable
    assert sorted(people_judge(people, grades)) == sorted(expected)
    llm_lines, people_lines, both = exports(tmp_path, llm, people)
    assert len(people_lines) == len(expected)
    kept = [line for line in llm_lines if key(*line.split()[:3]) not in expected]
    assert sorted(both) == sorted(kept + people_lines)
    capsys.readouterr()


def test_from_the_llms_shown_export_people_judge_the_pairs_its_orders_disagree_on(data, tmp_path, capsys):
    llm, grades, disagree, _ = llm_effort(data, tmp_path)
    shown = str(tmp_path / "llm.shown")
    assert main(["judge", "export", llm, "--format", "shown", "-o", shown]) == 0  # no unusable answer in it
    people = str(tmp_path / "people.sqlite")
    assert main(["judge", "plan", people, "--selector", "adjudication", "--llm", shown]) == 0
    assert sorted(people_judge(people, grades)) == sorted(disagree)
    llm_lines, people_lines, both = exports(tmp_path, llm, people)
    kept = [line for line in llm_lines if key(*line.split()[:3]) not in disagree]
    assert sorted(both) == sorted(kept + people_lines)
    capsys.readouterr()


def test_adjudication_options_are_checked(tmp_path, capsys):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    store = str(tmp_path / "people.sqlite")
    assert main(["judge", "plan", store, "--selector", "adjudication", "--qrels", str(tmp_path / "qrels.txt")]) == 2
    assert "--llm" in capsys.readouterr().err
    assert main(["judge", "plan", store, "--selector", "adjudication", "--llm", str(tmp_path / "missing.sqlite")]) == 2
    assert "no such judging store" in capsys.readouterr().err
    llm = str(tmp_path / "llm.sqlite")
    assert main(["judge", "plan", llm, "--selector", "all", "--qrels", str(tmp_path / "qrels.txt")]) == 0
    assert main(["judge", "export", llm, "--with-llm"]) == 2
    assert "adjudication effort" in capsys.readouterr().err
