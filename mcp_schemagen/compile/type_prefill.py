"""The types of the tool schemas missing from the user cache, made ahead by forked workers
while the build goes on (its checks, loading the handler merge), over the machine's cores;
the compile then reads every module from the cache as a warm build does.

Why: datamodel-code-generator is most of a cold build (its import alone most of a build
after one edit) and runs one schema at a time in pure Python. Its output for a schema
depends on that schema alone, so the same bytes come out whichever process makes them
(tests/generator/test_type_prefill.py). Workers only ever add cache entries: whatever goes
wrong in one (an unwritable cache, a schema the generator refuses, root names guessed from
unchecked definitions) leaves a miss, which the compile makes itself as it always did,
reporting any error then."""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Sequence
from multiprocessing.pool import MapResult, Pool
from pathlib import Path
from typing import Any

from mcp_schemagen.compile.typegen import (
    cache_entry,
    generated_types,
    generation_root,
    shielded,
)
from mcp_schemagen.program import is_program

# The misses one worker takes before a second one is worth its start (a fork, and an
# import of the generator in each: ~0.3 s of CPU).
MISSES_PER_WORKER = 12

Job = tuple[Any, str]  # a schema, the name of its root type


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux, where no worker is started anyway
        return os.cpu_count() or 1


def _misses(jobs: Sequence[Job], cache_dir: Path) -> list[Job]:
    """The shielded schemas (each once) whose cache entry does not exist. An entry that
    exists but is damaged is left to the compile, which finds it out and makes it again."""
    missing: dict[str, Job] = {}
    for schema, root in jobs:
        generator_input = shielded(schema)
        if generator_input is None:
            continue
        # Keyed as generated_types looks up first: schemas shared by tools made once.
        path, key = cache_entry(generator_input, generation_root(generator_input, root), cache_dir)
        if key not in missing and not path.is_file():
            missing[key] = (generator_input, root)
    return list(missing.values())


class Prefill:
    """Workers making cache entries in the background; ``wait`` for them before reading
    the cache. A context manager: leaving it stops workers still running (a failed check)."""

    def __init__(self, jobs: Sequence[Job], cache_dir: Path | None, least: int = 1) -> None:
        """``least``: the fewest workers worth starting (one is, while the caller has other
        work to do meanwhile; two when it would only wait)."""
        self.workers = 0
        self._pool: Pool | None = None
        self._result: MapResult[None] | None = None
        # Fork only where it is safe: in the mcp-codegen program (program.py), on Linux
        # (macOS's system libraries may not survive a fork, which is why Python does not
        # fork there by default), with no other thread that could hold a lock the child
        # would inherit held; and with a cache to hand results back.
        if not is_program() or cache_dir is None or not sys.platform.startswith("linux"):
            return
        if threading.active_count() > 1 or _cores() < 2:
            return
        missing = _misses(jobs, cache_dir)
        if not missing:
            return
        workers = min(_cores(), math.ceil(len(missing) / MISSES_PER_WORKER))
        if workers < least:
            return
        if workers > 1:
            # The generator's import and first run (its lazy imports: ~0.3 s of CPU) made
            # here, once, with the first schema: the workers inherit them instead of each
            # paying for them. One worker alone imports it itself, while this process
            # goes on with the checks.
            _make(([missing[0]], cache_dir))
            missing = missing[1:]
        self.workers = workers
        shares = [(missing[n :: self.workers], cache_dir) for n in range(self.workers)]
        self._pool = multiprocessing.get_context("fork").Pool(self.workers, _stop_cleanly)
        self._result = self._pool.map_async(_make, shares, chunksize=1)

    def wait(self) -> None:
        if self._pool is None or self._result is None:
            return
        self._result.wait()
        self._pool.close()
        self._pool.join()
        self._pool = None

    def __enter__(self) -> Prefill:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


def prefill(jobs: Sequence[Job], cache_dir: Path | None) -> int:
    """Make the cache entries ``jobs`` lack, now; returns how many workers ran (0: none)."""
    with Prefill(jobs, cache_dir, least=2) as running:
        running.wait()
        return running.workers


def _stop_cleanly() -> None:
    """A worker stopped (the build failed its checks) unwinds instead of dying at once, so
    an entry it was writing leaves no temporary file behind (atomic.replace_all)."""
    signal.signal(signal.SIGTERM, _exit)


def _exit(*_: object) -> None:
    raise SystemExit(1)


def _make(share: tuple[list[Job], Path]) -> None:
    jobs, cache_dir = share
    for schema, root in jobs:
        try:
            generated_types(schema, root, cache_dir)
        except Exception:  # the compile makes it again, and reports why it fails
            continue
