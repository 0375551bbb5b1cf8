"""People where the LLM is unsure, on DL 2019 (two runs' pools, a few queries): a simulated LLM judge asked in both
orders, with position bias and noise (so its orders disagree on some pairs) and unusable answers on others; an
``adjudication`` effort asks people exactly those pairs, and the combined export is the LLM's export with those
pairs replaced by the people's verdicts."""

from __future__ import annotations

import gzip
import hashlib

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


def small_runs(data, tmp_path, queries: int = 4) -> tuple[list[str], str]:
    """Two DL 2019 runs on the first ``queries`` judged queries, and the qrels."""
    qrels = data("dl_llm_prefs_arabzadeh", "qrels.dl19-passage.txt")
    judged = sorted({line.split()[0] for line in qrels.read_text().splitlines() if line.strip()})[:queries]
    paths = []
    for name in RUNS:
        with gzip.open(data("dl_llm_prefs_arabzadeh", "runs", f"input.{name}.txt.gz"), "rt") as f:
            lines = [line for line in f if line.split()[0] in judged]
        path = tmp_path / name
        path.write_text("".join(lines))
        paths.append(str(path))
    return paths, str(qrels)


def key(query: str, a: str, b: str) -> tuple[str, str, str]:
    return (query, min(a, b), max(a, b))


def lines_of(path) -> list[str]:
    return path.read_text().splitlines()


def test_people_judge_exactly_the_unsure_pairs_and_the_combined_export_replaces_them(data, tmp_path, capsys):
    runs, qrels = small_runs(data, tmp_path)
    grades = read_grades(qrels)
    llm, people = str(tmp_path / "llm.sqlite"), str(tmp_path / "people.sqlite")
    assert main(["judge", "plan", llm, "--selector", "all", "--runs", *runs, "--depth", "5"]) == 0
    judge = BothOrders(grades)
    run(llm, judge)
    with Store(llm) as store:
        asked = [r.pair for r in store.requests()]
    expected = set()
    for pair in asked:  # from the judge itself: its two orders disagree, or it is unusable
        as_asked, flipped = judge.answers(pair)
        if judge.unusable(pair) or as_asked != flipped:
            expected.add(key(pair.query_id, pair.first, pair.second))
    assert 0 < len(expected) < len(asked)

    assert main(["judge", "plan", people, "--selector", "adjudication", "--llm", llm]) == 0
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
    assert sorted(shown) == sorted(expected)

    for store, name, extra in ((llm, "llm.txt", []), (people, "people.txt", []), (people, "both.txt", ["--with-llm"])):
        assert main(["judge", "export", store, "--format", "carterette", "-o", str(tmp_path / name), *extra]) == 0
    people_lines = lines_of(tmp_path / "people.txt")
    assert len(people_lines) == len(expected)
    kept = [line for line in lines_of(tmp_path / "llm.txt") if key(*line.split()[:3]) not in expected]
    assert sorted(lines_of(tmp_path / "both.txt")) == sorted(kept + people_lines)
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
