"""The desk without HTTP: queues, sides, overlap, skip, undo and the admin's figures, on a real SQLite store."""

from __future__ import annotations

import numpy as np

from ir_pref_measures.judging import AllPairs, BinaryInsertion, Store, TopK, load_texts
from ir_pref_measures.judging.web import open_desk

POOLS = {"q1": ["a", "b", "c", "d"], "q2": ["e", "f", "g"]}
TEXTS = load_texts({"q1": "one", "q2": "two"}, {d: f"text {d}" for docs in POOLS.values() for d in docs})


def desk(tmp_path, assessors=("ann", "ben"), overlap=0.0, selector=None, name="effort.sqlite"):
    store = Store(tmp_path / name)
    return open_desk(store, selector or AllPairs(POOLS, seed=3), list(assessors), TEXTS, seed=3, overlap=overlap)


def judge_all(d, assessor, key="left", limit=100) -> int:
    n = 0
    while (shown := d.next_pair(assessor)) is not None and n < limit:
        d.answer(assessor, shown.assignment, key)
        n += 1
    return n


def test_tokens_and_links_survive_a_reopen(tmp_path):
    first = desk(tmp_path)
    again = desk(tmp_path)
    assert first.assessors == again.assessors and first.admin_token == again.admin_token
    assert len({*first.assessors.values(), first.admin_token}) == 3


def test_the_open_pair_is_the_same_until_answered_and_an_answer_is_stored_once(tmp_path):
    d = desk(tmp_path)
    shown = d.next_pair("ann")
    assert d.next_pair("ann") == shown  # a second tab, a reload
    d.answer("ann", shown.assignment, "left")
    d.answer("ann", shown.assignment, "right")  # a double click: the assignment is answered already
    answers = d.store.answers()
    assert [a.answer.answer for a in answers] == ["first"]
    assert (answers[0].answer.pair.first, answers[0].answer.pair.second) == (shown.left, shown.right)


def test_every_pair_is_judged_once_without_overlap_and_progress_ends_at_the_total(tmp_path):
    d = desk(tmp_path)
    done = judge_all(d, "ann") + judge_all(d, "ben")
    assert done == 6 + 3
    assert d.progress("ann")[0] + d.progress("ben")[0] == 9
    assert all(total == done_ for done_, total in (d.progress("ann"), d.progress("ben")))


def test_full_overlap_gives_every_pair_to_both_and_their_agreement(tmp_path):
    d = desk(tmp_path, overlap=1.0)
    assert judge_all(d, "ann", "left") == 9
    assert judge_all(d, "ben", "left") == 9
    report = d.report()
    (row,) = report["agreement"]
    assert row[:3] == ["ann", "ben", 9]
    # both chose "left", but each saw its own sides: they agree exactly where the sides were the same
    answers = [s.answer for s in d.store.answers()]
    sides = {}
    for a in answers:
        sides.setdefault(a.assessor, {})[frozenset((a.pair.first, a.pair.second))] = a.pair.first
    same = sum(sides["ann"][k] == sides["ben"][k] for k in sides["ann"])
    assert row[3] == same


def test_sides_are_random_seeded_and_recorded(tmp_path):
    a = desk(tmp_path, name="a.sqlite")
    b = desk(tmp_path, name="b.sqlite")
    shown_a = [(s.left, s.right) for s in iter(lambda: _take(a), None)]
    shown_b = [(s.left, s.right) for s in iter(lambda: _take(b), None)]
    assert shown_a == shown_b  # the same seed: the same sides
    assert any(left > right for left, right in shown_a) and any(left < right for left, right in shown_a)


def _take(d):
    shown = d.next_pair("ann")
    if shown is not None:
        d.answer("ann", shown.assignment, "tie")
    return shown


def test_a_skipped_pair_goes_to_another_assessor(tmp_path):
    d = desk(tmp_path)
    shown = d.next_pair("ann")
    d.answer("ann", shown.assignment, "skip")
    assert d.next_pair("ann") != shown
    pairs_for_ben = set()
    while (s := d.next_pair("ben")) is not None:
        pairs_for_ben.add(frozenset((s.left, s.right)))
        d.answer("ben", s.assignment, "right")
    assert frozenset((shown.left, shown.right)) in pairs_for_ben


def test_undo_withdraws_the_last_answer_and_shows_its_pair_again(tmp_path):
    d = desk(tmp_path, assessors=("ann",))
    shown = d.next_pair("ann")
    d.answer("ann", shown.assignment, "bad-left")
    assert d.can_undo("ann")
    d.undo("ann")
    again = d.next_pair("ann")
    assert (again.left, again.right) == (shown.left, shown.right)
    assert d.store.answers() == []  # withdrawn: kept in the file, no longer read
    d.answer("ann", again.assignment, "tie")
    (stored,) = d.store.answers()
    assert (stored.answer.answer, stored.answer.sample) == ("tie", 1)


def test_a_round_by_round_selector_feeds_the_queue_live(tmp_path):
    grades = {"q1": {d: float(g) for d, g in zip("abcdefghijkl", [3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1], strict=True)}}
    d = desk(tmp_path, assessors=("ann",), selector=TopK(grades, 0))
    rng = np.random.default_rng(0)
    n = 0
    while (s := d.next_pair("ann")) is not None and n < 500:
        better = s.left if grades["q1"][s.left] >= grades["q1"][s.right] else s.right
        key = "left" if better == s.left else "right"
        d.answer("ann", s.assignment, key if rng.random() > 0.05 else "tie")
        n += 1
    rounds = {r.round for r in d.store.requests()}
    assert len(rounds) > 1 and n == len(d.store.answers())  # later rounds came from earlier answers
    assert d.next_pair("ann") is None


def test_a_reopened_desk_reads_the_state_the_first_one_left(tmp_path):
    """The desk's state in memory is the store's: a desk opened on the store after answers, skips and undos shows
    each assessor what the first one would, with the same progress and figures."""
    d = desk(tmp_path, assessors=("ann", "ben", "cy"), overlap=0.5)
    for k in range(7):
        for who, key in (("ann", "left"), ("ben", "skip" if k % 3 == 0 else "tie"), ("cy", "right")):
            shown = d.next_pair(who)
            if shown is not None:
                d.answer(who, shown.assignment, key)
    d.undo("ann")
    d.undo("ben")
    d.next_pair("cy")  # an open assignment left open
    again = desk(tmp_path, assessors=("ann", "ben", "cy"), overlap=0.5)
    for who in ("ann", "ben", "cy"):
        assert again.view(who) == d.view(who)
    assert again.report() == d.report()
    for who in ("ann", "ben", "cy"):  # the reopened desk carries on to the end
        judge_all(again, who, "left")
    assert all(again.next_pair(who) is None for who in ("ann", "ben", "cy"))
    assert {a.request_id for a in again.store.answers()} == {r.id for r in again.store.requests()}


def test_the_export_has_one_line_per_judgment(tmp_path):
    from ir_pref_measures.judging import export_lines

    d = desk(tmp_path, assessors=("ann",))
    judge_all(d, "ann", "left")
    for fmt in d.formats():
        text = d.export(fmt)
        assert "\n\n" not in text and text.endswith("\n"), fmt
        assert text == "".join(export_lines(d.store, fmt, rule=d.rule)), fmt


def test_the_rating_selector_is_handed_each_history_extended(tmp_path):
    """The desk keeps each round's verdicts: every history it hands the selector extends the one before, so the
    rating selector's fit starts from its last one (a fit from zero only at the start)."""
    from ir_pref_measures.judging import RatingDriven

    pools = {"q1": [f"d{i:02d}" for i in range(12)]}
    selector = RatingDriven(pools, seed=3, batch=2)
    histories = []
    ask = selector.next_round

    def next_round(query_id, history):
        histories.append([list(r) for r in history])
        return ask(query_id, history)

    selector.next_round = next_round
    texts = load_texts({"q1": "one"}, {d: f"text {d}" for d in pools["q1"]})
    d = open_desk(Store(tmp_path / "rating.sqlite"), selector, ["ann"], texts, seed=3)
    assert judge_all(d, "ann", "left", limit=20) == 20
    assert len(histories) >= 9
    for before, after in zip(histories, histories[1:], strict=False):
        assert len(after) == len(before) + 1 and after[: len(before)] == before


def preferring(shown, smaller: bool) -> str:
    """The key that prefers the doc of the smaller id (``smaller``) or of the larger one, as the pair is shown."""
    return "left" if (shown.left < shown.right) == smaller else "right"


def test_dynamic_overlap_a_disagreement_gets_exactly_one_more_assessor_an_agreement_none(tmp_path):
    d = open_desk(Store(tmp_path / "effort.sqlite"), AllPairs(POOLS, seed=3), ["ann", "ben", "cho", "dan"], TEXTS,
                  seed=3, overlap=1.0, max_assessors=3)  # fmt: skip
    while (shown := d.next_pair("ann")) is not None:
        d.answer("ann", shown.assignment, preferring(shown, True))
    while (shown := d.next_pair("ben")) is not None:  # agrees with ann on q1, disagrees on q2
        d.answer("ben", shown.assignment, preferring(shown, shown.query_id == "q1"))
    third = []
    while (shown := d.next_pair("cho")) is not None:
        third.append(shown)
        d.answer("cho", shown.assignment, "tie")  # no majority still: but three is the most
    assert sorted((s.query_id, min(s.left, s.right), max(s.left, s.right)) for s in third) == [
        ("q2", "e", "f"), ("q2", "e", "g"), ("q2", "f", "g")
    ]  # fmt: skip
    assert d.next_pair("dan") is None
    per_request: dict[int, int] = {}
    for s in d.store.answers():
        per_request[s.request_id] = per_request.get(s.request_id, 0) + 1
    assert sorted(per_request.values()) == [2] * 6 + [3] * 3


def test_without_max_assessors_a_disagreement_gets_no_third_assessor(tmp_path):
    d = open_desk(Store(tmp_path / "effort.sqlite"), AllPairs(POOLS, seed=3), ["ann", "ben", "cho"], TEXTS, seed=3,
                  overlap=1.0)  # fmt: skip
    for name, smaller in (("ann", True), ("ben", False)):
        while (shown := d.next_pair(name)) is not None:
            d.answer(name, shown.assignment, preferring(shown, smaller))
    assert d.next_pair("cho") is None


def test_a_disagreement_holds_its_round_until_the_third_answer(tmp_path):
    pools = {"q1": ["a", "b", "c", "d", "e"]}
    texts = load_texts({"q1": "one"}, {x: x for x in pools["q1"]})
    d = open_desk(Store(tmp_path / "effort.sqlite"), BinaryInsertion(pools, seed=1), ["ann", "ben", "cho"], texts,
                  seed=1, overlap=1.0, max_assessors=3)  # fmt: skip
    first = d.next_pair("ann")
    d.answer("ann", first.assignment, preferring(first, True))
    shown = d.next_pair("ben")
    assert (shown.left, shown.right) in ((first.left, first.right), (first.right, first.left))
    d.answer("ben", shown.assignment, preferring(shown, False))
    assert d.next_pair("ann") is None and d.next_pair("ben") is None  # the round waits for the third answer
    third = d.next_pair("cho")
    assert {third.left, third.right} == {first.left, first.right}
    d.answer("cho", third.assignment, preferring(third, True))
    assert d.next_pair("ann") is not None  # the next round
