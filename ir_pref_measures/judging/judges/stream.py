"""An LLM judge's prompts as one stream for a whole judging run: pairs submitted at any time, answers handed back as
they arrive.

:class:`Stream` runs the judge's ``concurrency`` workers (:meth:`~ir_pref_measures.judging.judges.llm.LLMJudge.work`,
each with a client of one kept-alive connection) on an event loop of their own, in a thread, from the first
submission to :meth:`Stream.close`. The judging loop (:func:`ir_pref_measures.judging.runner.run`) submits a
query's next round as soon as that query's answers are in, so the requests in flight are those of every query and
round at once, up to ``concurrency``: no query waits for the slowest one, and no round pays for new clients and
connections. Answers come back on a thread-safe queue, read by the thread that owns the store
(:meth:`Stream.answers`); an error that stops the judge (:class:`~ir_pref_measures.judging.judges.llm.EndpointError`) is
raised there.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any, Protocol

from ir_pref_measures.judging.protocol import Answer, Pair


class Streamed(Protocol):
    """What a stream needs of its judge (:class:`~ir_pref_measures.judging.judges.llm.LLMJudge` has it)."""

    concurrency: int

    def split(self, pairs: Sequence[Pair], done: Collection[tuple[Pair, int]]) -> tuple[list, list]: ...

    async def work(self, take: Callable[[], Awaitable[Any]], give: Callable[[Any, Answer], None]) -> None: ...


class Stream:
    """``judge``'s workers on a loop of their own (module docstring); use as a context manager or call
    :meth:`close`."""

    def __init__(self, judge: Streamed) -> None:
        self.judge = judge
        self._out: queue.Queue = queue.Queue()  # answers, or the error that stopped the workers
        self._loop = asyncio.new_event_loop()
        self._inbox: asyncio.Queue | None = None  # made on the loop, before _ready is set
        self._ready = threading.Event()
        self._task: asyncio.Future | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._serve, name="llm-judge", daemon=True)
        self._thread.start()
        self._ready.wait()

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def submit(self, pairs: Sequence[Pair], done: Collection[tuple[Pair, int]] = ()) -> int:
        """Queue the prompts of ``pairs`` but those of ``done`` (``(pair as shown, sample)``); a prompt whose text
        is missing gets its ``unusable`` answer at once. Returns the number of answers to expect."""
        asked, at_once = self.judge.split(pairs, done)
        for _, answer in at_once:
            self._out.put(answer)
        if asked:
            inbox = self._inbox
            assert inbox is not None
            self._loop.call_soon_threadsafe(_put, inbox, asked)
        return len(asked) + len(at_once)

    def answers(self, timeout: float) -> list[Answer]:
        """The answers that arrived, waiting up to ``timeout`` seconds for the first (``[]`` if none came); the
        error that stopped the workers is raised once the answers that arrived before it are handed back."""
        if self._error is not None:
            raise self._error
        got = []
        with contextlib.suppress(queue.Empty):
            got.append(self._out.get(timeout=timeout))
            while True:
                got.append(self._out.get_nowait())
        errors = [k for k, item in enumerate(got) if isinstance(item, BaseException)]
        if errors:
            self._error = got[errors[0]]
            got = got[: errors[0]]
            if not got:
                raise self._error
        return got

    def close(self) -> None:
        """Stop the workers (requests in flight are abandoned) and the loop's thread."""
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(lambda: self._task is not None and self._task.cancel())
            self._thread.join()
        self._loop.close()

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._task = self._loop.create_task(self._work())
        self._loop.call_soon(self._ready.set)
        with contextlib.suppress(asyncio.CancelledError):
            self._loop.run_until_complete(self._task)

    async def _work(self) -> None:
        inbox = self._inbox = asyncio.Queue()

        async def take():
            return await inbox.get()

        def give(_, answer: Answer) -> None:
            self._out.put(answer)

        workers = [asyncio.ensure_future(self.judge.work(take, give)) for _ in range(self.judge.concurrency)]
        try:
            await asyncio.gather(*workers)
        except Exception as error:  # the judge stopped (EndpointError): raised by answers()
            self._out.put(error)
        finally:
            for worker in workers:
                worker.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.gather(*workers, return_exceptions=True)


def _put(inbox: asyncio.Queue, items: Sequence) -> None:
    for item in items:
        inbox.put_nowait(item)
