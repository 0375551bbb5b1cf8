"""The app keeps the desk's work off the event loop: a slow page holds up no other request, and the desk stays
consistent when its methods are called from many threads at once."""

from __future__ import annotations

import asyncio
import threading
import time

import httpx
import pytest

from ir_pref_measures.judging import AllPairs, Store, load_texts
from ir_pref_measures.judging.web import open_desk

pytest.importorskip("starlette")

POOLS = {f"q{q}": [f"q{q}d{i}" for i in range(6)] for q in range(4)}
TEXTS = load_texts({q: f"query {q}" for q in POOLS}, {d: f"text {d}" for docs in POOLS.values() for d in docs})


def make_desk(tmp_path, assessors, overlap=0.0):
    store = Store(tmp_path / "effort.sqlite")
    return open_desk(store, AllPairs(POOLS, seed=1), list(assessors), TEXTS, seed=1, overlap=overlap)


def test_a_slow_page_holds_up_neither_the_static_files_nor_other_assessors(tmp_path):
    from ir_pref_measures.judging.web.app import create_app

    d = make_desk(tmp_path, ["ann", "ben"])
    view = d.view

    def slow_view(who):
        if who == "ann":
            time.sleep(1.5)  # a slow store, selector or text source
        return view(who)

    d.view = slow_view
    app = create_app(d)

    async def run() -> tuple[float, float, bool, int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            slow = asyncio.create_task(client.get(f"/a/{d.assessors['ann']}"))
            await asyncio.sleep(0.2)
            t0 = time.monotonic()
            static = await client.get("/static/style.css")
            static_seconds = time.monotonic() - t0
            t0 = time.monotonic()
            other = await client.get(f"/a/{d.assessors['ben']}")
            other_seconds = time.monotonic() - t0
            pending = not slow.done()
            assert static.status_code == other.status_code == 200
            return static_seconds, other_seconds, pending, (await slow).status_code

    static_seconds, other_seconds, pending, slow_status = asyncio.run(run())
    assert pending, "the slow page should still be on its way"
    assert static_seconds < 1.0 and other_seconds < 1.0
    assert slow_status == 200


def test_many_threads_answering_at_once_leave_every_pair_answered_as_wanted(tmp_path):
    names = [f"a{i}" for i in range(8)]
    d = make_desk(tmp_path, names, overlap=0.5)
    errors = []

    def work(who: str) -> None:
        try:
            while (shown := d.next_pair(who)) is not None:
                d.view(who)
                d.answer(who, shown.assignment, "left")
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    by_request: dict[int, list[str]] = {}
    for s in d.store.answers():
        by_request.setdefault(s.request_id, []).append(s.answer.assessor)
    requests = d.store.requests()
    assert len(by_request) == len(requests) == 4 * 15
    for r in requests:
        who = by_request[r.id]
        assert len(who) == len(set(who)) == d._wanted(r)
    reopened = make_desk(tmp_path, names, overlap=0.5)
    assert all(reopened.view(n) == d.view(n) for n in names)
