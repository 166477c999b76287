"""bench_server.py's tables, targets and images: every figure the median of the interleaved
rounds with their min..max, what each peer's figure includes beside it, the replies
checked, the commit and the machine."""

from __future__ import annotations

import os
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path

from peers import LARGE, TOOLS
from plots import Figures, plot_rows
from provenance import spread, stamp

Columns = Mapping[str, Mapping[str, Sequence[float]]]

# What each server's figures include, printed beside them: the in-process figures are not
# the same work for every peer.
INCLUDES = {
    "bare orjson loop": "parse, look up, call, dump: no validation, no protocol state",
    "ours": "the generated server; sync handler in a worker thread until its calls prove "
    "quick; in process: JSON bytes in, bytes out (Server.handle_message)",
    "ours, @nonblocking": "as ours, the handler on the event loop from the first call",
    "ours, async def": "as ours, the handler a coroutine",
    "SDK low-level Server": "jsonschema-rs validation in the handler; in process it also "
    "pays the client side's pydantic parse and dump of each message and two memory-stream "
    "hops (ours and the bare loop: bytes in, bytes out)",
    "FastMCP": "pydantic validation from the signature; in process, as the SDK: client-side "
    "pydantic parsing and memory-stream hops included",
}

# (key, heading, format, unit)
METRICS = (
    ("in_process_us", "tools/call in process, one round trip", "{:,.1f}", " us"),
    ("calls_per_s", "stdio sequential calls/s", "{:,.0f}", ""),
    ("cpu_us", "server CPU per sequential stdio call (all threads, schedstat)", "{:,.1f}", " us"),
    ("p50_ms", "stdio sequential latency p50", "{:.3f}", " ms"),
    ("p99_ms", "stdio sequential latency p99", "{:.3f}", " ms"),
    ("burst_per_s", "stdio pipelined burst calls/s", "{:,.0f}", ""),
    ("rss_mib", "idle peak RSS (VmHWM) after initialize and tools/list", "{:.1f}", " MiB"),
    ("spawn_ms", "spawn to initialize response, wall", "{:,.0f}", " ms"),
    ("spawn_cpu_ms", "spawn to initialize response, the server's CPU", "{:,.0f}", " ms"),
)


def by_key(samples: Sequence[Mapping[str, float]]) -> dict[str, list[float]]:
    """The rounds of one server, as one list of samples per measured key."""
    return {key: [float(row[key]) for row in samples] for key in samples[0]}


def med(column: Mapping[str, Sequence[float]], key: str) -> float:
    return statistics.median(column[key])


def print_tables(rows: Columns, large: Columns, rounds: int) -> None:
    cores = len(os.sched_getaffinity(0))
    print(f"\n{stamp()}")
    print(
        f"tools/call, {TOOLS} tools; median (min..max) of {rounds} rounds, the servers in "
        f"rotated order each round; {'all on one core' if cores == 1 else 'unpinned'}"
    )
    bare, sdk = rows["bare orjson loop"], rows["SDK low-level Server"]
    for key, heading, form, unit in METRICS:
        print(f"\n{heading}")
        for name, column in rows.items():
            ratio = ""
            if key in ("calls_per_s", "burst_per_s"):
                ratio = (
                    f"{med(column, key) / med(bare, key):6.0%} of bare "
                    f"{med(column, key) / med(sdk, key):6.1f}x SDK"
                )
            print(f"  {name:22} {spread(column[key], form, unit):>34}  {ratio}")
    print("\nreplies checked (sequential and burst; a JSON-RPC error or isError is a failure)")
    for name, column in rows.items():
        failures = int(sum(column["failures"]))
        print(
            f"  {name:22} {int(sum(column['replies'])):>9,} replies, {failures} failures"
            f"{'  <- FAILURES' if failures else ''}"
        )
    print("\nwhat each figure includes")
    for name in rows:
        print(f"  {name:22} {INCLUDES.get(name, '')}")
    print(f"\n{LARGE} tools: peak RSS, spawn to initialized (CPU)")
    for name, column in large.items():
        print(
            f"  {name:22} {spread(column['rss_mib'], '{:.1f}', ' MiB'):>26} "
            f"{spread(column['spawn_ms'], '{:,.0f}', ' ms'):>22} "
            f"({spread(column['spawn_cpu_ms'], '{:,.0f}', ' ms')})"
        )
    print_targets(rows, large)


def print_targets(rows: Columns, large: Columns) -> None:
    bare, sdk, ours = rows["bare orjson loop"], rows["SDK low-level Server"], rows["ours"]
    fast, coroutines = rows["ours, @nonblocking"], rows["ours, async def"]
    rate = "calls_per_s"
    checks = [
        (
            "stdio, default sync handler: server CPU within 1.5x of @nonblocking",
            med(ours, "cpu_us") <= 1.5 * med(fast, "cpu_us"),
            f"{med(ours, 'cpu_us'):.1f} us vs {med(fast, 'cpu_us'):.1f} us",
        ),
        (
            "stdio, default sync handler: >= 50% of the bare loop",
            med(ours, rate) >= 0.5 * med(bare, rate),
            f"{med(ours, rate) / med(bare, rate):.0%}",
        ),
        (
            "stdio, async def handler: >= 60% of the bare loop",
            med(coroutines, rate) >= 0.6 * med(bare, rate),
            f"{med(coroutines, rate) / med(bare, rate):.0%}",
        ),
        (
            "in process, default path <= 10 us",
            med(ours, "in_process_us") <= 10,
            f"{med(ours, 'in_process_us'):.1f} us (bare {med(bare, 'in_process_us'):.1f} us)",
        ),
        (
            "stdio >= 5x the SDK low-level Server",
            med(ours, rate) >= 5 * med(sdk, rate),
            f"{med(ours, rate) / med(sdk, rate):.1f}x",
        ),
        start_up_check(TOOLS, 80, ours, bare),
        start_up_check(LARGE, 100, large["ours"], large["bare orjson loop"]),
        (
            f"idle peak RSS < 24 MiB, {TOOLS} tools",
            med(ours, "rss_mib") < 24,
            f"{med(ours, 'rss_mib'):.1f} MiB (bare {med(bare, 'rss_mib'):.1f})",
        ),
        (
            f"idle peak RSS < 26 MiB, {LARGE} tools",
            med(large["ours"], "rss_mib") < 26,
            f"{med(large['ours'], 'rss_mib'):.1f} MiB "
            f"(bare {med(large['bare orjson loop'], 'rss_mib'):.1f})",
        ),
    ]
    print("\ntargets for ours (issues 22 and 36), on the medians:")
    for label, met, figure in checks:
        print(f"  [{'met' if met else 'MISSED'}] {label}: {figure}")


# The issue's start-up targets were set on a machine whose bare loop started in 23 ms:
# as ratios to the bare loop they carry over to a machine of another speed.
ISSUE_BARE_SPAWN_MS = 23


def start_up_check(
    tools: int,
    target_ms: float,
    ours: Mapping[str, Sequence[float]],
    bare: Mapping[str, Sequence[float]],
) -> tuple[str, bool, str]:
    ratio = target_ms / ISSUE_BARE_SPAWN_MS
    label = (
        f"spawn to initialized < {target_ms:.0f} ms, {tools} tools (the issue's machine; "
        f"here: < {ratio:.2f}x the bare loop)"
    )
    ours_ms, bare_ms = med(ours, "spawn_ms"), med(bare, "spawn_ms")
    figure = (
        f"{ours_ms:.0f} ms, {med(ours, 'spawn_cpu_ms'):.0f} ms CPU = {ours_ms / bare_ms:.2f}x "
        f"the bare loop ({bare_ms:.0f} ms, {med(bare, 'spawn_cpu_ms'):.0f} ms CPU)"
    )
    return label, ours_ms < ratio * bare_ms, figure


def plot_server(folder: Path, rows: Columns, large: Columns, *, quick: bool) -> None:
    figures = Figures(folder, "bench_server", quick)
    in_process_note = (
        "SDK and FastMCP in process: client-side pydantic parsing and memory-stream hops included"
    )
    plot_rows(
        figures, "server-stdio-calls", "stdio sequential calls/s", rows, "calls_per_s", "calls/s"
    )
    plot_rows(
        figures, "server-stdio-cpu", "Server CPU per sequential stdio call", rows, "cpu_us",
        "microseconds",
    )  # fmt: skip
    plot_rows(
        figures, "server-burst", "stdio pipelined burst calls/s", rows, "burst_per_s", "calls/s"
    )
    plot_rows(
        figures, "server-in-process", "tools/call in process", rows, "in_process_us",
        "microseconds", in_process_note,
    )  # fmt: skip
    plot_rows(figures, "server-start-up", "Spawn to initialized", rows, "spawn_ms", "ms")
    plot_rows(figures, "server-memory", "Idle peak RSS", rows, "rss_mib", "MiB")
    plot_rows(
        figures, "server-large", f"{LARGE} tools: spawn to initialized", large, "spawn_ms", "ms"
    )
    figures.write_fragment()
