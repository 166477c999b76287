"""Subscriptions end to end with the official MCP Python SDK client, over stdio and across
two HTTP workers sharing one redis-server: a project built with ``list-changed`` and
``resource-subscriptions`` (and one resource) has tools that announce changes through ``PACKAGE.api``
(``touch(uri)``, sync, from a worker thread; ``change(kind)``, async).

- 2025-11-25 (the SDK's legacy mode): ``resources/subscribe`` at worker A, the session's
  GET stream at A, a change announced by a call at worker B: the session hears it exactly
  once; after ``resources/unsubscribe`` it hears nothing; a URI it never subscribed to,
  nothing.
- 2026-07-28: ``subscriptions/listen`` at A (the SDK's ``Client.listen``), the change
  announced at B: one event; what the filter did not ask for never arrives.
- stdio: the same in both modes, in one process.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import queue
import sys
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import anyio
import pytest

from tests.support.http_client import HttpSession, exchange
from tests.support.http_server import (
    REDIS,
    free_port,
    http_command,
    redis_server,
    restartable_redis,
    serving,
)
from tests.support.projects import run_cli, write_project

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.client.subscriptions import ResourceUpdated, ToolsListChanged  # noqa: E402

URI = "file:///project/config.json"
PROBE = "file:///project/probe"  # touched until heard: the GET stream is open
TOUCH = {
    "name": "touch",
    "description": "Announce that a resource changed.",
    "inputSchema": {
        "type": "object",
        "properties": {"uri": {"type": "string"}},
        "required": ["uri"],
    },
}
CHANGE = {
    "name": "change",
    "description": "Announce that a list changed.",
    "inputSchema": {
        "type": "object",
        "properties": {"kind": {"type": "string", "enum": ["tools", "prompts", "resources"]}},
        "required": ["kind"],
    },
}
HANDLERS = '''"""Handlers."""

from __future__ import annotations

from .api import notify_list_changed, notify_resource_updated
from .types import ChangeKind, ToolReturn


# mcp-codegen tool: "change"
async def change(*, kind: ChangeKind) -> ToolReturn:
    notify_list_changed(kind)
    return "changed"


# mcp-codegen tool: "touch"
def touch(*, uri: str) -> ToolReturn:
    notify_resource_updated(uri)
    return "touched"
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_project(
        tmp_path_factory.mktemp("subscriptions") / "p",
        {"touch.json": TOUCH, "change.json": CHANGE},
        revisions=("2025-11-25", "2026-07-28"),
        extra='list-changed = ["tools"]\nresource-subscriptions = true\n',
    )
    (root / "server").mkdir()
    (root / "server" / "handlers.py").write_text(HANDLERS, encoding="utf-8")
    # Resource subscriptions are declared only by a server that has resources.
    (root / "resources").mkdir()
    (root / "config.json").write_text("{}\n", encoding="utf-8")
    watched = {"uri": URI, "name": "config", "mimeType": "application/json"}
    watched["x-mcp-codegen-file"] = "config.json"
    (root / "resources" / "config.json").write_text(json.dumps(watched), encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    return root


class Heard:
    """Notifications a legacy-mode client receives (its message handler)."""

    def __init__(self) -> None:
        self.updated: list[str] = []
        self.tools_changed = 0

    async def __call__(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method == "notifications/resources/updated":
            self.updated.append(str(message.params.uri))
        elif method == "notifications/tools/list_changed":
            self.tools_changed += 1

    async def until(self, condition: Any, seconds: float = 10.0) -> None:
        with anyio.fail_after(seconds):
            while not condition():
                await anyio.sleep(0.02)


async def legacy_conversation(listener: Client, heard: Heard, announcer: Client) -> None:
    """``listener`` subscribes; ``announcer`` (maybe at another worker) announces."""
    assert listener.server_capabilities.resources is not None
    assert listener.server_capabilities.resources.subscribe is True
    assert listener.server_capabilities.tools is not None
    assert listener.server_capabilities.tools.list_changed is True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated for 2026-07-28, current for 2025-11-25
        await listener.subscribe_resource(PROBE)
        with anyio.fail_after(15):
            while PROBE not in heard.updated:  # until the GET stream is open
                await announcer.call_tool("touch", {"uri": PROBE})
                await anyio.sleep(0.2)
        await listener.subscribe_resource(URI)
        await announcer.call_tool("touch", {"uri": URI})
        await announcer.call_tool("touch", {"uri": "file:///never/subscribed"})
        await heard.until(lambda: URI in heard.updated)
        await announcer.call_tool("change", {"kind": "tools"})
        await announcer.call_tool("change", {"kind": "prompts"})  # not declared: dropped
        await heard.until(lambda: heard.tools_changed >= 1)
        await listener.unsubscribe_resource(URI)
        await announcer.call_tool("touch", {"uri": URI})
        await listener.unsubscribe_resource(PROBE)
        await announcer.call_tool("touch", {"uri": PROBE})
        await anyio.sleep(1.0)  # anything still on its way arrives
    assert [u for u in heard.updated if u != PROBE] == [URI]  # exactly once, then no more
    assert heard.tools_changed == 1


async def listen_conversation(listener: Client, announcer: Client) -> None:
    async with listener.listen(resource_subscriptions=[URI]) as subscription:
        assert subscription.honored.resource_subscriptions == [URI]
        assert not subscription.honored.tools_list_changed
        await announcer.call_tool("change", {"kind": "tools"})  # not asked for
        await announcer.call_tool("touch", {"uri": "file:///other"})  # not asked for
        await announcer.call_tool("touch", {"uri": URI})
        events: list[Any] = []
        with anyio.fail_after(10):
            async for event in subscription:
                events.append(event)
                break
        with anyio.move_on_after(1.0):
            async for event in subscription:
                events.append(event)
        assert len(events) == 1 and isinstance(events[0], ResourceUpdated), events
        assert str(events[0].uri) == URI
        assert not any(isinstance(e, ToolsListChanged) for e in events)


# --------------------------------------------------------------------- stdio


def _stdio(project: Path, log: Path, mode: str, heard: Heard | None = None) -> Any:
    params = StdioServerParameters(command=sys.executable, args=["-m", "server"], cwd=str(project))
    return Client(
        stdio_client(params, errlog=log.open("w")),
        mode=mode,
        read_timeout_seconds=15,
        message_handler=heard,
    )


def test_stdio_legacy(project: Path, tmp_path: Path) -> None:
    async def run() -> None:
        heard = Heard()
        with anyio.fail_after(60):
            async with _stdio(project, tmp_path / "err.log", "legacy", heard) as client:
                await legacy_conversation(client, heard, client)

    anyio.run(run)


def test_stdio_listen(project: Path, tmp_path: Path) -> None:
    async def run() -> None:
        with anyio.fail_after(60):
            async with _stdio(project, tmp_path / "err.log", "2026-07-28") as client:
                await listen_conversation(client, client)

    anyio.run(run)


# --------------------------------------------------------------------- two workers


class Workers(NamedTuple):
    a: str
    b: str


@pytest.fixture(scope="module")
def workers(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    if REDIS is None:
        pytest.skip("redis-server is not installed (Debian package redis-server)")
    folder = tmp_path_factory.mktemp("two-workers")
    with contextlib.ExitStack() as stack:
        store = stack.enter_context(redis_server(folder / "redis"))
        urls = []
        for name in ("a", "b"):
            port = free_port()
            command = http_command("server", port, "--store", store)
            urls.append(
                stack.enter_context(serving(project, command, port, folder / f"{name}.log"))
            )
        yield Workers(urls[0], urls[1])


def test_two_workers_legacy_get_stream(workers: Workers) -> None:
    async def run() -> None:
        heard = Heard()
        with anyio.fail_after(90):
            async with (
                Client(
                    workers.a, mode="legacy", read_timeout_seconds=15, message_handler=heard
                ) as listener,
                Client(workers.b, mode="legacy", read_timeout_seconds=15) as announcer,
            ):
                await legacy_conversation(listener, heard, announcer)

    anyio.run(run)


def test_two_workers_listen(workers: Workers) -> None:
    async def run() -> None:
        with anyio.fail_after(60):
            async with (
                Client(workers.a, mode="2026-07-28", read_timeout_seconds=15) as listener,
                Client(workers.b, mode="2026-07-28", read_timeout_seconds=15) as announcer,
            ):
                await listen_conversation(listener, announcer)

    anyio.run(run)


class GetStream:
    """A session's GET stream read line by line in a thread (raw HTTP: the subscribing
    and the announcing go to other workers, which no SDK client does)."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        parts = urlsplit(url)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=20)
        self.connection.request(
            "GET", parts.path, headers={**headers, "Accept": "text/event-stream"}
        )
        self.response = self.connection.getresponse()
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while line := self.response.fp.readline():
                self.lines.put(line)
        self.lines.put(b"")  # the end of the stream

    def next_message(self, timeout: float = 10.0) -> Any:
        """The next message's data; None once the stream ended."""
        while True:
            line = self.lines.get(timeout=timeout)
            if not line:
                return None
            if line.startswith(b"data: ") and line.strip() != b"data:":
                return json.loads(line[6:])

    def close(self) -> None:
        self.connection.close()


def test_two_workers_subscribe_anywhere_the_stream_hears_it_and_delete_ends_it(
    workers: Workers,
) -> None:
    session = HttpSession(workers.a, "2025-11-25")
    announcer = HttpSession(workers.b, "2025-11-25")
    stream = GetStream(workers.a, session.headers("ping", None))
    try:
        assert stream.response.status == 200
        assert stream.response.getheader("content-type") == "text/event-stream"
        # Subscribed at B, heard on the stream at A.
        assert session.request("resources/subscribe", {"uri": URI}, url=workers.b).last == {
            "jsonrpc": "2.0", "id": session._next, "result": {},
        }  # fmt: skip
        assert announcer.call("touch", {"uri": URI}).status == 200
        message = stream.next_message()
        assert message == {
            "jsonrpc": "2.0",
            "method": "notifications/resources/updated",
            "params": {"uri": URI},
        }
        session.checker.check(message)  # a 2025-11-25 ResourceUpdatedNotification
        assert announcer.call("change", {"kind": "tools"}).status == 200
        changed = stream.next_message()
        assert changed == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
        session.checker.check(changed)
        # Ended at B: the stream at A ends with the next notice.
        assert exchange(workers.b, "DELETE", headers=session.headers("ping", None)).status == 200
        assert announcer.call("touch", {"uri": URI}).status == 200
        assert stream.next_message() is None
    finally:
        stream.close()


def _ready(url: str) -> bool:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    try:
        connection.request("GET", "/readyz")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


def test_a_listen_stream_hears_changes_again_after_a_redis_restart(
    project: Path, tmp_path: Path
) -> None:
    """Redis killed and restarted while a 2026-07-28 listen stream is open at worker A (the
    stream needs no store): once both workers' subscribers are back (ready), a change
    announced at B reaches the stream at A."""
    if REDIS is None:
        pytest.skip("redis-server is not installed (Debian package redis-server)")
    with contextlib.ExitStack() as stack:
        redis = stack.enter_context(restartable_redis(tmp_path / "redis"))
        a, b = (
            stack.enter_context(
                serving(
                    project,
                    http_command("server", port, "--store", redis.url),
                    port,
                    tmp_path / f"{name}.log",
                )
            )
            for name, port in (("a", free_port()), ("b", free_port()))
        )

        async def run() -> None:
            with anyio.fail_after(90):
                async with (
                    Client(a, mode="2026-07-28", read_timeout_seconds=15) as listener,
                    Client(b, mode="2026-07-28", read_timeout_seconds=15) as announcer,
                    listener.listen(tools_list_changed=True) as subscription,
                ):
                    redis.kill()
                    await anyio.sleep(0.5)
                    redis.start()
                    while not (await anyio.to_thread.run_sync(_ready, a)) or not (
                        await anyio.to_thread.run_sync(_ready, b)
                    ):
                        await anyio.sleep(0.1)
                    await announcer.call_tool("change", {"kind": "tools"})
                    with anyio.fail_after(20):
                        async for event in subscription:
                            assert isinstance(event, ToolsListChanged)
                            break

        anyio.run(run)
