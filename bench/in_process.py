"""In-process round trips of bench_server.py's peers: a tools/call as JSON bytes in and
JSON bytes out, each peer measured in a fresh interpreter (``measure_in_process``) so the
imports of one do not weigh on another."""

from __future__ import annotations

import asyncio
import importlib
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from peers import INITIALIZE, INITIALIZED, call_message


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


def measure_in_process(name: str, root: Path, quick: bool) -> float:
    """Each peer in a fresh interpreter, so imports of one do not weigh on another."""
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from in_process import IN_PROCESS, IN_PROCESS_SIZES
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
