"""glibc's allocator as the commands set it (``parsing.memory``), measured on the resident memory of a process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ir_pref_measures.parsing import memory

pytestmark = pytest.mark.skipif(memory._glibc("mallopt") is None, reason="glibc's allocator only")

FREED = """
import numpy as np
from ir_pref_measures.parsing import memory
if {mapped}:
    memory.map_large_blocks()

def resident():
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS")) // 1024

np.ones(1 << 19)  # a block of 4 MB freed: glibc serves such blocks from its heap from now on, unless mapped
columns, kept = [], []
for _ in range(40):  # 80 MB in blocks of 2 MB, each followed by one of 512 KB that stays (larger than any hole)
    columns.append(np.ones(1 << 18))
    kept.append(np.ones(1 << 16))
before = resident()
del columns
print(before - resident())
"""


@pytest.mark.parametrize("mapped", [False, True])
def test_large_blocks_mapped_go_back_to_the_system_once_freed(mapped):
    env = {name: value for name, value in os.environ.items() if not name.startswith(("MALLOC_", "GLIBC_TUNABLES"))}
    # glibc's defaults: a Dask nanny puts MALLOC_TRIM_THRESHOLD_ in the environment of the process that starts it
    freed = subprocess.run([sys.executable, "-c", FREED.format(mapped=mapped)], capture_output=True, text=True,
                           check=True, env=env)  # fmt: skip
    given_back = int(freed.stdout)
    if mapped:
        assert given_back >= 75
    else:  # glibc's default: the heap between the blocks kept stays resident until trimmed
        assert given_back < 10
