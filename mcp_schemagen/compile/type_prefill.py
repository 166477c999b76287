"""The types of many tool schemas made ahead, over the machine's cores: when a build finds
many schemas missing from the user cache (a first build, a generator upgrade), forked
workers run datamodel-code-generator on their shares and write the cache, and the compile
then reads every module from it as a warm build does.

Why: the generator is most of a cold build's time and runs one schema at a time in pure
Python; its output for a schema depends on that schema alone, so the same bytes come out
whichever process makes them (tests/generator/test_type_prefill.py). Whatever goes wrong
in a worker (an unwritable cache, a schema the generator refuses) only leaves a miss, which
the compile then makes itself, reporting any error as it always does."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcp_schemagen.compile.type_cache import read_entry
from mcp_schemagen.compile.typegen import cache_entry, generated_types, shielded

# Below this many misses per worker, starting the workers (a fork, and an import of the
# generator in each: ~0.3 s of CPU) costs more than sharing the work saves.
MISSES_PER_WORKER = 12


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux; fork is not offered there either (see below)
        return os.cpu_count() or 1


def prefill(jobs: Sequence[tuple[Any, str]], cache_dir: Path | None) -> int:
    """Make the cached types of each (schema, root name) in ``jobs`` that the cache lacks,
    in parallel when there are enough; returns how many workers ran (0: none)."""
    if cache_dir is None or "fork" not in multiprocessing.get_all_start_methods():
        return 0  # no cache to hand results back through; or workers would re-import all
    missing: dict[str, tuple[Any, str]] = {}
    for schema, root in jobs:
        generator_input = shielded(schema)
        if generator_input is None:
            continue
        path, key = cache_entry(generator_input, root, cache_dir)
        if key not in missing and read_entry(path, key) is None:
            missing[key] = (generator_input, root)
    workers = min(_cores(), len(missing) // MISSES_PER_WORKER)
    if workers < 2:
        return 0
    shares = [(list(missing.values())[n::workers], cache_dir) for n in range(workers)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        pool.map(_make, shares, chunksize=1)
    return workers


def _make(share: tuple[list[tuple[Any, str]], Path]) -> None:
    jobs, cache_dir = share
    for schema, root in jobs:
        try:
            generated_types(schema, root, cache_dir)
        except Exception:  # the compile makes it again, and reports why it fails
            continue
