"""The answer cache on PostgreSQL (the server of ``conftest.py``): a second effort asking the same prompts at a
concurrency above one sends nothing and exports the same bytes; a write that PostgreSQL holds up (the table locked
by another connection) leaves the event loop the LLM judge's workers share free meanwhile."""

from __future__ import annotations

import asyncio
import threading
import time

import psycopg
from conftest import run_cli
from judging.chat_server import ChatServer
from judging.efforts import make_effort

from ir_pref_measures.judging.judges.cache import AnswerCache

HELD = 0.6  # seconds the test's connection holds the cache's table locked


def test_a_second_effort_with_a_postgresql_cache_sends_nothing_and_exports_the_same(tmp_path, postgresql_server):
    cache = postgresql_server.new_database()
    exports, sent = [], []
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        store, texts = make_effort(tmp_path / folder, "insertion", {"q1": 6, "q2": 5, "q3": 4})
        with ChatServer(lambda messages: "Passage 1" if len(messages[-1]["content"]) % 2 else "2") as server:
            options = ["model=test-model", f"base_url={server.url}", "concurrency=8", *texts]
            argv = ["judge", "run", store, "--judge", "llm", "--cache", cache]
            out, err, status = run_cli(argv + [a for o in options for a in ("--option", o)])
            sent.append(sum(server.asked.values()))
        assert status == 0, err
        exports.append(run_cli(["judge", "export", store, "--format", "log"])[0])
    assert sent[0] > 8 and sent[1] == 0
    assert exports[0] == exports[1] and exports[0]
    assert f"usage: {sent[0]} prompts (0 without an answer, {sent[0]} from the cache), 0 attempts" in out
    with psycopg.connect(cache) as db:
        assert db.execute("SELECT COUNT(*) FROM replies").fetchone() == (sent[0],)


def test_a_write_held_up_by_postgresql_leaves_the_event_loop_free(postgresql_server):
    location = postgresql_server.new_database()
    cache = AnswerCache(location)
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:  # another connection locks the table against writes (reads go on) for HELD seconds
        with psycopg.connect(location) as db, db.transaction():
            db.execute("LOCK TABLE replies IN EXCLUSIVE MODE")
            locked.set()
            release.wait(HELD)

    holder = threading.Thread(target=hold)
    holder.start()
    assert locked.wait(10)

    async def main() -> tuple[int, float]:
        ticks = 0
        start = time.perf_counter()
        write = asyncio.ensure_future(cache.put("k", "m", "Passage 1", 3, 1, 0.7))
        while not write.done():  # the loop runs other work while PostgreSQL holds the write up
            await asyncio.sleep(0.01)
            ticks += 1
        await write
        return ticks, time.perf_counter() - start

    ticks, seconds = asyncio.run(main())
    holder.join()
    assert seconds >= HELD / 2 and ticks >= seconds / 0.01 / 4  # held up, and the loop ran meanwhile
    assert asyncio.run(cache.get("k")) == ("Passage 1", 3, 1, 0.7)
    cache.close()
