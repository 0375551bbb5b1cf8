"""The memory of a process that reads runs one after another: Arrow's pool and glibc's allocator.

After a large parse, :func:`release_parser_memory` gives Arrow's freed memory back to the system;
:func:`release_freed_memory` does the same for the C allocator's (numpy's arrays); :func:`limit_arenas`,
:func:`map_large_blocks` and :func:`reuse_freed_memory` set glibc's allocator for a command's process. With another
C library than glibc, the last four do nothing.
"""

from __future__ import annotations

import ctypes
import functools

import pyarrow as pa

RELEASE_BYTES = 1 << 24  # files from 16 MB give Arrow's parser memory back (a 30 MB run: 70 MB less peak, 0.3 ms);
# smaller ones keep it for the next parse (compare's 5 MB runs: a fresh mapping per run cost 10% of its time)


def release_parser_memory(size: int) -> None:
    """After reading ``size`` bytes of text, give the memory Arrow's allocator holds freed back to the system when
    the file was large (``RELEASE_BYTES``): an Arrow parse's blocks and the chunks combined into one column, and
    after the compiled path (which allocates nothing from Arrow) what the runs before freed (their takes and
    sorts: without it, 30 runs of a million lines peak 20-35 MB higher). Arrow's allocator would keep it for
    Arrow's arrays, while the numpy arrays made next come from the system's (2M run lines: 60 MB less at the peak).
    A smaller file's freed memory is kept for the next read (compare reads many runs)."""
    if size >= RELEASE_BYTES:
        pa.default_memory_pool().release_unused()


@functools.cache
def _glibc(name: str):
    """The glibc function ``name`` among the process's symbols (``None`` with another C library)."""
    try:
        return getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError, TypeError):
        return None


def release_freed_memory() -> None:
    """Give the memory the C allocator holds freed (numpy's arrays of a released run, in every thread's arena) back
    to the system: glibc's ``malloc_trim(0)``; nothing with another C library. Called once a streamed run is
    released, it keeps the resident memory at what is live, so that it does not creep up with the runs."""
    trim = _glibc("malloc_trim")
    if trim is not None:
        trim(0)


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8  # glibc's mallopt parameters (malloc.h)


def _mallopt(*settings: tuple[int, int]) -> None:
    """Each ``(parameter, value)`` of ``settings`` set by glibc's ``mallopt``; nothing with another C library."""
    mallopt = _glibc("mallopt")
    if mallopt is None:
        return
    for parameter, value in settings:
        mallopt(parameter, value)


def limit_arenas(count: int) -> None:
    """At most ``count`` arenas in glibc's allocator (by default 8 per core): each thread that allocates gets an
    arena of its own up to that limit, whose freed memory stays resident until trimmed, so the memory of a process
    whose threads read and evaluate runs in turn peaks higher and more erratically with many. Process-wide: for
    the commands, which own their process; nothing with another C library."""
    _mallopt((M_ARENA_MAX, max(1, int(count))))


MAPPED_BYTES = 1 << 20  # 30 runs of a million lines: about 30 MB less at the peak, 6% more time (page faults)


def map_large_blocks() -> None:
    """On glibc, every block from ``MAPPED_BYTES`` up (a column of a run of 130,000 lines and more) mapped by itself
    and given back to the system once freed. By default glibc raises that threshold to the largest block freed (up
    to 32 MiB) and serves such blocks from heaps whose freed memory stays resident until trimmed: the resident memory
    of threads reading and evaluating runs in turn then peaks at what happens to be freed but not yet trimmed, higher
    the more runs there are. Mapped, it follows the live memory. Process-wide, as :func:`limit_arenas`; nothing with
    another C library."""
    _mallopt((M_MMAP_THRESHOLD, MAPPED_BYTES))


def reuse_freed_memory() -> None:
    """On glibc, keep the memory freed after one run for the next one. By default glibc gives a freed block of more
    than 128 KiB (a column of a run: 1.4 MB per 176,000 lines) back to the system, and the next run's columns are
    mapped and zeroed afresh, page by page: half the page faults of ``compare`` (10 runs: 18,000 instead of 40,000)
    and most of its system time. Blocks up to 32 MiB then come from the heap, which keeps up to 64 MiB free; the
    peak memory is the same. Process-wide, as :func:`limit_arenas`; nothing with another C library."""
    _mallopt((M_MMAP_THRESHOLD, 32 << 20), (M_TRIM_THRESHOLD, 64 << 20))
