#!/usr/bin/env python3
"""The generated server runtime beside its peers, in one run, on this machine.

    .venv/bin/python bench/bench_server.py [--quick]

Peers, all serving the same 100 tools (``get_weather_0`` ... ``get_weather_99``: a
required string ``location``, an enum ``units`` with a default):

* bare      a bare orjson loop: parse, look the tool up, call it, dump; no validation
* ours      the package mcp-codegen generates from 100 tool files, bodies filled in; its
            sync handlers run in worker threads, like FastMCP's and the SDK's
* ours, @nonblocking   the same package with each handler marked ``@nonblocking``: the
            fast path, on the event loop (what a worker thread costs is the difference)
* ours, async def      the same package with ``async def`` handlers (a task per call)
* sdk       the official SDK's low-level ``Server`` (arguments validated with a
            precompiled jsonschema-rs validator in the handler, since it validates none)
* fastmcp   FastMCP (pydantic validation from the function signature)

Measured:

* in process: a tools/call round trip, JSON bytes in and JSON bytes out (the SDK and
  FastMCP through their in-memory streams, with their own message models);
* stdio: ``python ...`` as a subprocess driven by a raw pipe client, sequential calls
  (calls/s, p50, p99 latency; ``ROUNDS`` rounds: the median and the spread, min..max),
  the server's CPU per sequential call (all its threads, from /proc/PID/task/*/schedstat,
  so a busy machine's waiting is not counted) and a pipelined burst (calls/s);
* peak RSS (VmHWM) after initialize and tools/list, idle;
* spawn to initialized: from ``Popen`` to the initialize response.

Every loop is bounded; everything runs on local pipes. Figures are medians. On a shared
machine, calls/s swing with the load; the CPU per call and the ratios to the bare loop
measured in the same run are the figures to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from peers import (
    BARE,
    INITIALIZE,
    INITIALIZED,
    LARGE,
    TOOLS,
    call_message,
    generate_ours,
    write_peers,
)

# ----------------------------------------------------------------------- in process


def timed(batch: int, repeats: int, run_batch: Callable[[int], float]) -> float:
    """Median seconds per call over ``repeats`` batches."""
    run_batch(max(batch // 10, 10))  # warm up
    return statistics.median(run_batch(batch) / batch for _ in range(repeats))


def in_process_bare(root: Path, batch: int, repeats: int) -> float:
    sys.path.insert(0, str(root))
    import peer_bare  # type: ignore[import-not-found]

    messages = [call_message(i) for i in range(batch)]

    def run_batch(n: int) -> float:
        handle = peer_bare.handle
        start = time.perf_counter()
        for raw in messages[:n]:
            handle(raw)
        return time.perf_counter() - start

    assert b"21 degrees" in peer_bare.handle(messages[0])
    return timed(batch, repeats, run_batch)


def in_process_ours(root: Path, batch: int, repeats: int, package: str = "ours_pkg") -> float:
    sys.path.insert(0, str(root))
    SERVER = importlib.import_module(f"{package}._dispatch").SERVER

    messages = [call_message(i) for i in range(batch)]

    async def main() -> float:
        session = SERVER.session()
        init = await SERVER.handle_message(orjson.dumps(INITIALIZE), session)
        assert init is not None
        assert b"21 degrees" in (await SERVER.handle_message(messages[0], session) or b"")

        async def batch_run(n: int) -> float:
            handle = SERVER.handle_message
            start = time.perf_counter()
            for raw in messages[:n]:
                await handle(raw, session)
            return time.perf_counter() - start

        await batch_run(batch // 10)
        return statistics.median([await batch_run(batch) / batch for _ in range(repeats)])

    return asyncio.run(main())


def in_process_sdk_style(lowlevel: Any, batch: int, repeats: int, setup: Any = None) -> float:
    """A round trip through an SDK ``Server.run`` over in-memory streams, JSON in and out."""
    import anyio
    from mcp.shared.memory import create_client_server_memory_streams
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter

    messages = [call_message(i) for i in range(batch)]

    async def main() -> float:
        result = 0.0
        async with create_client_server_memory_streams() as (client, server):
            client_read, client_write = client
            server_read, server_write = server
            async with anyio.create_task_group() as group:
                options = lowlevel.create_initialization_options()
                group.start_soon(lowlevel.run, server_read, server_write, options)

                async def round_trip(raw: bytes) -> bytes:
                    message = jsonrpc_message_adapter.validate_json(raw)
                    await client_write.send(SessionMessage(message))
                    while True:
                        reply = await client_read.receive()
                        if isinstance(reply, Exception):
                            raise reply
                        if getattr(reply.message, "id", None) is not None:
                            dumped: bytes = jsonrpc_message_adapter.dump_json(
                                reply.message, by_alias=True, exclude_unset=True
                            )
                            return dumped

                await round_trip(orjson.dumps(INITIALIZE))
                message = jsonrpc_message_adapter.validate_json(orjson.dumps(INITIALIZED))
                await client_write.send(SessionMessage(message))
                assert b"21 degrees" in await round_trip(messages[0])

                async def batch_run(n: int) -> float:
                    start = time.perf_counter()
                    for raw in messages[:n]:
                        await round_trip(raw)
                    return time.perf_counter() - start

                await batch_run(max(batch // 10, 10))
                result = statistics.median([await batch_run(batch) / batch for _ in range(repeats)])
                group.cancel_scope.cancel()
        return result

    async def with_setup() -> float:
        if setup is None:
            return await main()
        async with setup():
            return await main()

    return anyio.run(with_setup)


def in_process_sdk(root: Path, batch: int, repeats: int) -> float:
    sys.path.insert(0, str(root))
    import peer_sdk  # type: ignore[import-not-found]

    return in_process_sdk_style(peer_sdk.server, batch, repeats)


def in_process_fastmcp(root: Path, batch: int, repeats: int) -> float:
    sys.path.insert(0, str(root))
    import peer_fastmcp  # type: ignore[import-not-found]

    server = peer_fastmcp.mcp
    return in_process_sdk_style(server._mcp_server, batch, repeats, setup=server._lifespan_manager)


# ----------------------------------------------------------------------------- stdio


class Pipe:
    """A raw newline-delimited JSON-RPC client on a server subprocess."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._in = self.process.stdin.fileno()
        self._out = self.process.stdout.fileno()
        self._buffer = b""

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._in, view) :]

    def read_line(self) -> bytes:
        while b"\n" not in self._buffer:
            chunk = os.read(self._out, 1 << 16)
            if not chunk:
                raise RuntimeError("the server closed stdout")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def read_response(self) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = orjson.loads(self.read_line())
            if "id" in message:
                return message

    def initialize(self) -> float:
        """Seconds from spawn to the initialize response (``startup_cpu``: the server's
        CPU seconds by then, which a loaded machine does not inflate)."""
        self.write(orjson.dumps(INITIALIZE) + b"\n")
        self.read_response()
        elapsed = time.perf_counter() - self.started
        self.startup_cpu = server_cpu_seconds(self.process.pid)
        self.write(orjson.dumps(INITIALIZED) + b"\n")
        return elapsed

    def peak_rss_mib(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        line = next(line for line in status.splitlines() if line.startswith("VmHWM:"))
        return int(line.split()[1]) / 1024

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


ROUNDS = 5  # sequential rounds per server: the median and the spread


def server_cpu_seconds(pid: int) -> float:
    """CPU time of every thread of ``pid`` so far (ns resolution, unlike /proc/PID/stat)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(OSError, ValueError):  # a thread that ended meanwhile
            total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
    return total / 1e9


def stdio_figures(command: list[str], cwd: Path, sequential: int, burst: int) -> dict[str, float]:
    pipe = Pipe(command, cwd)
    try:
        pipe.initialize()
        pipe.write(b'{"jsonrpc":"2.0","id":-1,"method":"tools/list"}\n')
        assert len(pipe.read_response()["result"]["tools"]) == TOOLS
        for i in range(50):  # warm up (ours: a quick sync handler earns the loop meanwhile)
            pipe.write(call_message(i) + b"\n")
            pipe.read_response()
        latencies: list[float] = []
        rates, cpus = [], []
        per_round = max(sequential // ROUNDS, 100)
        for _ in range(ROUNDS):
            cpu = server_cpu_seconds(pipe.process.pid)
            start = time.perf_counter()
            for i in range(per_round):
                sent = time.perf_counter()
                pipe.write(call_message(i) + b"\n")
                reply = pipe.read_response()
                latencies.append(time.perf_counter() - sent)
            rates.append(per_round / (time.perf_counter() - start))
            cpus.append((server_cpu_seconds(pipe.process.pid) - cpu) / per_round)
        assert "21 degrees" in reply["result"]["content"][0]["text"], reply
        latencies.sort()
        lines = b"".join(call_message(i) + b"\n" for i in range(burst))
        writer = threading.Thread(target=pipe.write, args=(lines,))
        start = time.perf_counter()
        writer.start()
        for _ in range(burst):
            pipe.read_response()
        burst_elapsed = time.perf_counter() - start
        writer.join()
        return {
            "calls_per_s": statistics.median(rates),
            "calls_per_s_min": min(rates),
            "calls_per_s_max": max(rates),
            "cpu_us": statistics.median(cpus) * 1e6,
            "p50_ms": latencies[len(latencies) // 2] * 1000,
            "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
            "burst_per_s": burst / burst_elapsed,
        }
    finally:
        pipe.close()


def idle_and_spawn(command: list[str], cwd: Path, spawns: int) -> dict[str, float]:
    startups, cpus, peaks = [], [], []
    for _ in range(spawns):
        pipe = Pipe(command, cwd)
        try:
            startups.append(pipe.initialize())
            cpus.append(pipe.startup_cpu)
            pipe.write(b'{"jsonrpc":"2.0","id":-1,"method":"tools/list"}\n')
            pipe.read_response()
            time.sleep(0.3)
            peaks.append(pipe.peak_rss_mib())
        finally:
            pipe.close()
    return {
        "spawn_ms": statistics.median(startups) * 1000,
        "spawn_cpu_ms": statistics.median(cpus) * 1000,
        "rss_mib": statistics.median(peaks),
    }


# ------------------------------------------------------------------------------ main


def measure_in_process(name: str, root: Path, quick: bool) -> float:
    """Each peer in a fresh interpreter, so imports of one do not weigh on another."""
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from bench_server import IN_PROCESS, IN_PROCESS_SIZES
        size = IN_PROCESS_SIZES[{name!r}][{quick!r}]
        print(IN_PROCESS[{name!r}](Path({str(root)!r}), *size))
        """)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=600
    )
    if done.returncode != 0:
        raise RuntimeError(f"{name}: {done.stderr}")
    return float(done.stdout.strip().splitlines()[-1])


def in_process_ours_fast(root: Path, batch: int, repeats: int) -> float:
    return in_process_ours(root, batch, repeats, "ours_fast_pkg")


def in_process_ours_async(root: Path, batch: int, repeats: int) -> float:
    return in_process_ours(root, batch, repeats, "ours_async_pkg")


IN_PROCESS = {
    "bare orjson loop": in_process_bare,
    "ours": in_process_ours,
    "ours, @nonblocking": in_process_ours_fast,
    "ours, async def": in_process_ours_async,
    "SDK low-level Server": in_process_sdk,
    "FastMCP": in_process_fastmcp,
}
IN_PROCESS_SIZES = {  # (calls per batch, batches), full and --quick
    "bare orjson loop": {False: (50_000, 7), True: (10_000, 3)},
    "ours": {False: (50_000, 7), True: (10_000, 3)},
    "ours, @nonblocking": {False: (50_000, 7), True: (10_000, 3)},
    "ours, async def": {False: (50_000, 7), True: (10_000, 3)},
    "SDK low-level Server": {False: (3_000, 7), True: (500, 3)},
    "FastMCP": {False: (1_500, 7), True: (300, 3)},
}
STDIO_SIZES = {  # (sequential calls, pipelined burst)
    "bare orjson loop": (3_000, 10_000),
    "ours": (3_000, 10_000),
    "ours, @nonblocking": (3_000, 10_000),
    "ours, async def": (3_000, 10_000),
    "SDK low-level Server": (1_000, 2_000),
    "FastMCP": (500, 1_000),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller loops, fewer spawns")
    parser.add_argument(
        "--start-up",
        action="store_true",
        help="only start-up and idle memory: the bare loop and ours at 100 and 500 tools",
    )
    options = parser.parse_args()
    divisor = 5 if options.quick else 1
    spawns = 3 if options.quick else 7
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-server-") as folder:
        root = Path(folder)
        commands = write_peers(root)
        if options.start_up:
            start_up_only(root, commands, spawns)
            return
        for name, command in commands.items():
            print(f"measuring {name} ...", file=sys.stderr, flush=True)
            row = {"in_process_us": measure_in_process(name, root, options.quick) * 1e6}
            sequential, burst = STDIO_SIZES[name]
            row |= stdio_figures(command, root, sequential // divisor, burst // divisor)
            row |= idle_and_spawn(command, root, spawns)
            rows[name] = row
        # Start-up and idle memory of a large server: ours and the bare loop, 500 tools.
        large_root = root / "large"
        large_root.mkdir()
        print(f"measuring {LARGE} tools ...", file=sys.stderr, flush=True)
        generate_ours(large_root, LARGE)
        (large_root / "peer_bare.py").write_text(BARE.replace(f"range({TOOLS})", f"range({LARGE})"))
        large = {
            "bare orjson loop": idle_and_spawn(
                [sys.executable, str(large_root / "peer_bare.py")], large_root, spawns
            ),
            "ours": idle_and_spawn([sys.executable, "-m", "ours_pkg"], large_root, spawns),
        }
    print_table(rows, large)


def start_up_only(root: Path, commands: dict[str, list[str]], spawns: int) -> None:
    """Spawn to initialized and idle peak RSS (medians of ``spawns``), alternating the
    servers so a change in the machine's load weighs on each alike."""
    large_root = root / "large"
    large_root.mkdir()
    generate_ours(large_root, LARGE)
    servers = {
        "bare orjson loop": (commands["bare orjson loop"], root),
        f"ours, {TOOLS} tools": (commands["ours"], root),
        f"ours, {LARGE} tools": ([sys.executable, "-m", "ours_pkg"], large_root),
    }
    figures: dict[str, list[dict[str, float]]] = {name: [] for name in servers}
    for _ in range(spawns):
        for name, (command, cwd) in servers.items():
            figures[name].append(idle_and_spawn(command, cwd, 1))
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"start-up, medians of {spawns} (load average {load} at the end)")
    print(f"{'':22} {'spawn->init ms':>15} {'(CPU ms)':>9} {'peak RSS MiB':>13}")
    for name, rows in figures.items():
        median = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
        print(
            f"{name:22} {median['spawn_ms']:>15.0f} {median['spawn_cpu_ms']:>9.0f} "
            f"{median['rss_mib']:>13.1f}"
        )


def print_table(rows: dict[str, dict[str, float]], large: dict[str, dict[str, float]]) -> None:
    bare, sdk, ours = rows["bare orjson loop"], rows["SDK low-level Server"], rows["ours"]
    fast, coroutines = rows["ours, @nonblocking"], rows["ours, async def"]
    header = (
        f"{'':22} {'in-process':>11} {'stdio calls/s':>14} {'(min..max)':>16} {'x bare':>7} "
        f"{'x SDK':>6} {'CPU us/call':>12} {'p50 ms':>7} {'p99 ms':>7} {'burst calls/s':>14} "
        f"{'peak RSS MiB':>13} {'spawn->init ms':>15} {'(CPU ms)':>9}"
    )
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(
        f"tools/call, {TOOLS} tools, median figures (python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs, load average {' '.join(load)} at the end)"
    )
    print(header)
    print("-" * len(header))
    for name, row in rows.items():
        spread = f"({row['calls_per_s_min']:,.0f}..{row['calls_per_s_max']:,.0f})"
        print(
            f"{name:22} {row['in_process_us']:>9.1f}us {row['calls_per_s']:>14,.0f} {spread:>16} "
            f"{row['calls_per_s'] / bare['calls_per_s']:>6.0%} "
            f"{row['calls_per_s'] / sdk['calls_per_s']:>5.1f}x {row['cpu_us']:>12.1f} "
            f"{row['p50_ms']:>7.3f} {row['p99_ms']:>7.3f} {row['burst_per_s']:>14,.0f} "
            f"{row['rss_mib']:>13.1f} {row['spawn_ms']:>15.0f} {row['spawn_cpu_ms']:>9.0f}"
        )
    print()
    print(f"{LARGE} tools: {'peak RSS MiB':>13} {'spawn->init ms':>15} {'(CPU ms)':>9}")
    for name, row in large.items():
        print(
            f"  {name:20} {row['rss_mib']:>13.1f} {row['spawn_ms']:>15.0f} "
            f"{row['spawn_cpu_ms']:>9.0f}"
        )
    print()
    print("targets for ours (issue 22):")
    checks = [
        (
            "stdio, default sync handler: server CPU within 1.5x of @nonblocking",
            ours["cpu_us"] <= 1.5 * fast["cpu_us"],
            f"{ours['cpu_us']:.1f} us vs {fast['cpu_us']:.1f} us",
        ),
        (
            "stdio, default sync handler: >= 50% of the bare loop",
            ours["calls_per_s"] >= 0.5 * bare["calls_per_s"],
            f"{ours['calls_per_s'] / bare['calls_per_s']:.0%}",
        ),
        (
            "stdio, async def handler: >= 60% of the bare loop",
            coroutines["calls_per_s"] >= 0.6 * bare["calls_per_s"],
            f"{coroutines['calls_per_s'] / bare['calls_per_s']:.0%}",
        ),
        (
            "in process, default path <= 10 us",
            ours["in_process_us"] <= 10,
            f"{ours['in_process_us']:.1f} us (bare {bare['in_process_us']:.1f} us)",
        ),
        (
            "stdio >= 5x the SDK low-level Server",
            ours["calls_per_s"] >= 5 * sdk["calls_per_s"],
            f"{ours['calls_per_s'] / sdk['calls_per_s']:.1f}x",
        ),
        (
            f"spawn to initialized < 80 ms, {TOOLS} tools",
            ours["spawn_ms"] < 80,
            f"{ours['spawn_ms']:.0f} ms, {ours['spawn_cpu_ms']:.0f} ms CPU "
            f"(bare {bare['spawn_ms']:.0f} ms, {bare['spawn_cpu_ms']:.0f} ms CPU)",
        ),
        (
            f"spawn to initialized < 100 ms, {LARGE} tools",
            large["ours"]["spawn_ms"] < 100,
            f"{large['ours']['spawn_ms']:.0f} ms, {large['ours']['spawn_cpu_ms']:.0f} ms CPU "
            f"(bare {large['bare orjson loop']['spawn_ms']:.0f} ms, "
            f"{large['bare orjson loop']['spawn_cpu_ms']:.0f} ms CPU)",
        ),
        (
            f"idle peak RSS < 24 MiB, {TOOLS} tools",
            ours["rss_mib"] < 24,
            f"{ours['rss_mib']:.1f} MiB (bare {bare['rss_mib']:.1f})",
        ),
        (
            f"idle peak RSS < 26 MiB, {LARGE} tools",
            large["ours"]["rss_mib"] < 26,
            f"{large['ours']['rss_mib']:.1f} MiB (bare {large['bare orjson loop']['rss_mib']:.1f})",
        ),
    ]
    for label, met, figure in checks:
        print(f"  [{'met' if met else 'MISSED'}] {label}: {figure}")


if __name__ == "__main__":
    main()
