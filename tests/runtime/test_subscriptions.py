"""Subscriptions and change notifications in process: what the server declares, the
methods that subscribe (2025 era) and listen (2026-07-28), and the public API announcing
a change from a handler, sync (a worker thread) or async. Every notification is checked
against its revision's schema.json. Across workers: tests/e2e/test_subscriptions_scale_out.py.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

import orjson
import pytest

from tests.support.inprocess import (
    STATELESS,
    Peer,
    dispatch,
    entry,
    meta,
    run,
    runtime,
    server_with,
)
from tests.support.paths import needs_shared
from tests.support.runtime_fixture import PACKAGE, REVISIONS

__all__ = ["dispatch", "runtime"]  # fixtures, imported for pytest

URI = "file:///project/config.json"
OTHER = "file:///project/other.json"


def api() -> Any:
    return importlib.import_module(f"{PACKAGE}._runtime.subscriptions.announce")


def watched(runtime: Any) -> Any:
    """One static resource: resource subscriptions are declared only with resources."""
    table = importlib.import_module(f"{PACKAGE}._runtime.resources.table")
    contents = [{"uri": URI, "mimeType": "application/json", "text": "{}"}]
    row = {"definition": {"uri": URI, "name": "config"}, "variables": {}, "contents": contents}
    return table.load_resources([row], {}, REVISIONS)


def touching(runtime: Any) -> list[Any]:
    """Tools announcing changes: ``touch`` (sync, so from a worker thread) and
    ``changed`` (async, on the loop)."""
    announce = api()

    def touch(uri: str) -> str:
        announce.notify_resource_updated(uri)
        return "touched"

    async def changed(kind: str) -> str:
        announce.notify_list_changed(kind)
        return "changed"

    schema_uri = {"type": "object", "properties": {"uri": {"type": "string"}}}
    schema_kind = {"type": "object", "properties": {"kind": {"type": "string"}}}
    return [
        entry(runtime, "touch", touch, input_schema=schema_uri, arguments={"uri": "uri"}),
        entry(runtime, "changed", changed, input_schema=schema_kind, arguments={"kind": "kind"}),
    ]


async def settle() -> None:
    for _ in range(5):  # the hub's publisher, then the listeners, on the loop
        await asyncio.sleep(0.02)


def notifications(peer: Peer) -> list[dict[str, Any]]:
    return [m for m in peer.sent if m.get("method", "").startswith("notifications/")]


# --------------------------------------------------------------------- declared


@run
async def test_off_by_default_nothing_declared_nothing_served(runtime: Any) -> None:
    server = server_with(runtime, *touching(runtime))
    peer = await Peer.open(server, "2025-11-25")
    init = server.negotiation.capabilities_of(server.negotiation.latest)
    assert "resources" not in init and init["tools"] == {"listChanged": False}
    reply = await peer.request("resources/subscribe", {"uri": URI})
    assert reply["error"]["code"] == -32601
    listen = await Peer.open(server, STATELESS)
    reply = await listen.request("subscriptions/listen", {"notifications": {}})
    assert reply["error"]["code"] == -32601


@run
async def test_capabilities_follow_the_project(runtime: Any) -> None:
    server = server_with(
        runtime, list_changed=("tools", "prompts"), subscribe=True, resources=watched(runtime)
    )
    peer = Peer(server, "2025-11-25")
    reply = await peer.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
    capabilities = reply["result"]["capabilities"]
    assert capabilities["tools"] == {"listChanged": True}
    assert capabilities["resources"] == {"subscribe": True}
    assert "prompts" not in capabilities  # listChanged of prompts needs prompts
    discover = await Peer(server, STATELESS).request("server/discover")
    assert discover["result"]["capabilities"]["resources"] == {"subscribe": True}
    only_lists = server_with(runtime, list_changed=("resources",), resources=watched(runtime))
    declared = only_lists.negotiation.capabilities_of(only_lists.negotiation.latest)
    assert declared["resources"] == {"listChanged": True}
    # Without resources neither resources listChanged nor subscribe is declared.
    bare = server_with(runtime, list_changed=("resources",), subscribe=True)
    assert "resources" not in bare.negotiation.capabilities_of(bare.negotiation.latest)
    with pytest.raises(ValueError, match="unknown kind"):
        server_with(runtime, list_changed=("widgets",))


# --------------------------------------------------------------------- 2025 era


@run
async def test_subscribed_session_hears_its_uris_once_and_unsubscribe_stops_it(
    runtime: Any,
) -> None:
    server = server_with(
        runtime,
        *touching(runtime),
        list_changed=("tools",),
        subscribe=True,
        resources=watched(runtime),
    )
    server.subscriptions.start(None)
    try:
        peer = await Peer.open(server, "2025-11-25")
        bystander = await Peer.open(server, "2025-11-25")
        stops = [server.subscriptions.follow(p.session) for p in (peer, bystander)]
        assert (await peer.request("resources/subscribe", {"uri": URI}))["result"] == {}
        await peer.call("touch", {"uri": URI})  # sync handler: announced from a thread
        await peer.call("touch", {"uri": OTHER})
        await settle()
        updated = {"jsonrpc": "2.0", "method": "notifications/resources/updated"}
        assert notifications(peer) == [{**updated, "params": {"uri": URI}}]
        assert notifications(bystander) == []

        await peer.call("changed", {"kind": "tools"})
        await peer.call("changed", {"kind": "resources"})  # not declared: dropped
        await settle()
        tools_changed = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
        assert notifications(peer)[1:] == [tools_changed]
        assert notifications(bystander) == [tools_changed]

        assert (await peer.request("resources/unsubscribe", {"uri": URI}))["result"] == {}
        await peer.call("touch", {"uri": URI})
        await settle()
        assert len(notifications(peer)) == 2
        bad = await peer.request("resources/subscribe", {"uri": 3})
        assert bad["error"]["code"] == -32602 and "params.uri" in bad["error"]["message"]
        for stop in stops:
            stop()
    finally:
        await server.subscriptions.stop()


@run
async def test_nothing_before_initialized(runtime: Any) -> None:
    server = server_with(runtime, *touching(runtime), list_changed=("tools",))
    server.subscriptions.start(None)
    try:
        peer = Peer(server, "2025-11-25")
        stop = server.subscriptions.follow(peer.session)
        await peer.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
        api().notify_list_changed("tools")
        await settle()
        assert notifications(peer) == []
        stop()
    finally:
        await server.subscriptions.stop()


# --------------------------------------------------------------------- 2026-07-28


@needs_shared
@run
async def test_listen_acknowledges_filters_tags_and_ends_with_a_result(runtime: Any) -> None:
    from tests.support.spec_check import SpecCheck

    spec = SpecCheck(STATELESS)
    server = server_with(
        runtime,
        *touching(runtime),
        list_changed=("tools",),
        subscribe=True,
        resources=watched(runtime),
    )
    server.subscriptions.start(None)
    peer = await Peer.open(server, STATELESS)
    wanted = {
        "toolsListChanged": True,
        "promptsListChanged": True,  # no prompts: not agreed
        "resourceSubscriptions": [URI],
    }
    request = {
        "jsonrpc": "2.0",
        "id": "listen-1",
        "method": "subscriptions/listen",
        "params": {"_meta": meta(), "notifications": wanted},
    }
    spec.assert_exact(request, "SubscriptionsListenRequest")
    listening = asyncio.ensure_future(server.handle_message(orjson.dumps(request), peer.session))
    await settle()
    tag = {"io.modelcontextprotocol/subscriptionId": "listen-1"}
    ack = peer.sent[0]
    assert ack == {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {
            "_meta": tag,
            "notifications": {"toolsListChanged": True, "resourceSubscriptions": [URI]},
        },
    }
    spec.assert_exact(ack, "SubscriptionsAcknowledgedNotification")

    await peer.call("touch", {"uri": URI})
    await peer.call("touch", {"uri": OTHER})  # not asked for
    await peer.call("changed", {"kind": "prompts"})  # not agreed
    await peer.call("changed", {"kind": "tools"})
    await settle()
    updated, tools = peer.sent[1:]
    assert updated == {
        "jsonrpc": "2.0",
        "method": "notifications/resources/updated",
        "params": {"_meta": tag, "uri": URI},
    }
    assert tools == {
        "jsonrpc": "2.0",
        "method": "notifications/tools/list_changed",
        "params": {"_meta": tag},
    }
    spec.assert_exact(updated, "ResourceUpdatedNotification")
    spec.assert_exact(tools, "ToolListChangedNotification")

    assert not listening.done()
    await server.subscriptions.stop()  # the server stops: the stream ends with its result
    result = orjson.loads(await asyncio.wait_for(listening, 5))
    assert result["id"] == "listen-1"
    assert result["result"]["resultType"] == "complete"
    assert result["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "listen-1"
    spec.assert_exact(result, "SubscriptionsListenResultResponse")


@run
async def test_listen_refuses_what_is_not_a_filter(runtime: Any) -> None:
    server = server_with(runtime, list_changed=("tools",))
    peer = await Peer.open(server, STATELESS)
    for notifications_param in (
        None,
        [],
        {"toolsListChanged": "yes"},
        {"resourceSubscriptions": "x"},
    ):
        params = {} if notifications_param is None else {"notifications": notifications_param}
        reply = await peer.request("subscriptions/listen", params)
        assert reply["error"]["code"] == -32602, notifications_param
        assert "params.notifications" in reply["error"]["message"]


# --------------------------------------------------------------------- the API


def test_the_api_checks_its_arguments_and_is_quiet_when_not_serving(runtime: Any) -> None:
    announce = api()
    with pytest.raises(ValueError, match="'tools', 'prompts', 'resources'"):
        announce.notify_list_changed("widgets")
    with pytest.raises(ValueError, match="resource URI"):
        announce.notify_resource_updated("")
    server = server_with(runtime, list_changed=("tools",))
    assert server.subscriptions.hub.announce(("tools", None)) is False  # never bound
    announce.notify_list_changed("tools")  # nothing serves: nothing happens


# --------------------------------------------------------------------- across workers


@pytest.fixture
def redis(tmp_path: Any) -> Any:
    from tests.support.http_server import REDIS, restartable_redis

    if REDIS is None:
        pytest.skip("redis-server is not installed (Debian package redis-server)")
    with restartable_redis(tmp_path / "redis") as server:
        yield server


def test_hubs_of_two_workers_share_notices_through_redis_and_survive_a_restart(
    redis: Any,
) -> None:
    """A notice announced at one worker's hub reaches the listeners of both, once; while
    Redis is down an announcement neither raises nor stops the hub; after the restart the
    subscribers are back and notices flow again."""
    from mcp_schemagen.runtime.store.url import open_store
    from mcp_schemagen.runtime.subscriptions.hub import Hub

    async def scenario() -> None:
        stores = [open_store(redis.url), open_store(redis.url)]
        hubs = [Hub(), Hub()]
        heard: list[list[Any]] = [[], []]
        for store, hub, notes in zip(stores, hubs, heard, strict=True):
            await store.start()
            hub.bind(store)
            hub.attach(notes.append)
        try:

            async def until(condition: Any, seconds: float = 20.0) -> bool:
                deadline = asyncio.get_running_loop().time() + seconds
                while asyncio.get_running_loop().time() < deadline:
                    if condition():
                        return True
                    await asyncio.sleep(0.05)
                return False

            assert hubs[0].announce(("updated", URI))
            assert await until(lambda: heard[0] and heard[1])
            await asyncio.sleep(0.2)
            assert heard == [[("updated", URI)], [("updated", URI)]]

            redis.kill()
            hubs[1].announce(("tools", None))  # retried in the background, never raised
            await asyncio.sleep(0.5)
            redis.start()
            assert await until(lambda: all(s._subscriber.subscribed.is_set() for s in stores))  # type: ignore[attr-defined]
            for notes in heard:
                notes.clear()
            hubs[1].announce(("updated", OTHER))
            assert await until(lambda: ("updated", OTHER) in heard[0])
            assert ("updated", OTHER) in heard[1]
        finally:
            for hub, store in zip(hubs, stores, strict=True):
                await hub.close()
                await store.close()

    asyncio.run(scenario())
