"""2026-07-28's task status notifications (SEP-2663): a ``subscriptions/listen`` whose
filter names ``taskIds`` hears ``notifications/tasks`` for each of those tasks as the
stream opens and each time one changes status, carrying the task as ``tasks/get`` shows it then, tagged with the
subscription id; a listener of another principal hears nothing of it; a client that does
not declare the extension is refused with -32021. Raw JSON-RPC in process (what stdio
carries), each message checked against the extension's schema and the revision's."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import orjson

from mcp_schemagen.runtime.auth.principal import Principal
from mcp_schemagen.runtime.server import Server
from tests.runtime.test_tasks import STATELESS, WITH_TASKS, Client, run, server
from tests.runtime.test_tasks_schema import valid
from tests.support.spec_check import SpecCheck

METHOD = "notifications/tasks"


class Listener:
    """A 2026-07-28 client holding one ``subscriptions/listen`` open on its own session."""

    def __init__(self, srv: Server, capabilities: dict[str, Any], listen_id: str) -> None:
        self.server, self.capabilities, self.id = srv, capabilities, listen_id
        self.sent: list[dict[str, Any]] = []
        self.session = srv.session(lambda data: self.sent.append(orjson.loads(data)))
        self.ids = itertools.count(1)

    def listen(self, task_ids: list[str]) -> Any:
        request = {
            "jsonrpc": "2.0",
            "id": self.id,
            "method": "subscriptions/listen",
            "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": STATELESS,
                    "io.modelcontextprotocol/clientCapabilities": self.capabilities,
                },
                "notifications": {"taskIds": task_ids},
            },
        }
        reply = self.server.receive(orjson.dumps(request), self.session)
        return reply if isinstance(reply, bytes) else asyncio.ensure_future(reply)  # type: ignore[arg-type]

    def statuses(self, task_id: str) -> list[str]:
        heard = [m for m in self.sent if m.get("method") == METHOD]
        for message in heard:
            valid("TaskStatusNotification", message)
            assert message["params"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": self.id}
        return [m["params"]["status"] for m in heard if m["params"]["taskId"] == task_id]

    async def until(self, task_id: str, status: str) -> list[str]:
        for _ in range(500):
            seen = self.statuses(task_id)
            if status in seen:
                return seen
            await asyncio.sleep(0.01)
        raise AssertionError(f"no {status} notification for {task_id}: {self.sent}")


def as_principal(srv: Server) -> dict[str, str]:
    """Who the next request comes from: set ``who["name"]`` before it."""
    who = {"name": "alice"}
    srv.principal_of = lambda: Principal(who["name"], None, frozenset(), "iss", {})
    return who


@run
async def test_a_listener_hears_each_status_of_its_tasks_as_tasks_get_shows_it() -> None:
    srv = server()
    srv.subscriptions.start(None)  # as stdio does: this process is the only one
    who = as_principal(srv)
    client = Client(srv, WITH_TASKS)
    asker = (await client.call("asker"))["result"]["taskId"]
    quick = (await client.call("sleeper", seconds=0.3))["result"]["taskId"]

    listener = Listener(srv, WITH_TASKS, "listen-7")
    listening = listener.listen([asker, quick, asker])
    who["name"] = "mallory"
    stranger = Listener(srv, WITH_TASKS, "listen-8")
    stranger_listening = stranger.listen([asker, quick])
    who["name"] = "alice"
    await asyncio.sleep(0.05)
    ack = listener.sent[0]
    assert ack == {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {
            "_meta": {"io.modelcontextprotocol/subscriptionId": "listen-7"},
            "notifications": {"taskIds": [asker, quick]},
        },
    }
    valid("TaskSubscriptionAcknowledgedNotifications", ack["params"]["notifications"])
    # The revision's own schema knows the rest; taskIds is the extension's (checked above).
    problems = SpecCheck(STATELESS).errors(ack, "SubscriptionsAcknowledgedNotification")
    assert [p for p in problems if "taskIds" not in p] == [], problems

    # Each task as it is when the stream opens, then each change.
    assert await listener.until(quick, "completed") == ["working", "completed"]
    done = dict([m for m in listener.sent if m.get("method") == METHOD][-1]["params"])
    got = (await client.request("tasks/get", taskId=quick))["result"]
    del got["resultType"], got["_meta"], done["_meta"]
    assert done == got  # the whole DetailedTask, result included

    await client.until(asker, "input_required")
    await listener.until(asker, "input_required")
    asked = [
        m for m in listener.sent if m.get("method") == METHOD and m["params"]["taskId"] == asker
    ]
    assert "inputRequests" in asked[0]["params"]
    answer = {"ok": {"action": "accept", "content": {"ok": True}}}
    await client.request("tasks/update", taskId=asker, inputResponses=answer)
    await listener.until(asker, "working")  # answered: it works again, then asks more
    await client.request("tasks/cancel", taskId=asker)
    seen = await listener.until(asker, "cancelled")
    assert seen[0] == "input_required" and seen[1] == "working" and seen[-1] == "cancelled"
    heard = [m["params"] for m in listener.sent if m.get("method") == METHOD]
    assert all(a != b for a, b in itertools.pairwise(heard))  # no state sent twice in a row

    await asyncio.sleep(0.1)
    assert stranger.statuses(asker) == stranger.statuses(quick) == []  # another principal's
    assert len(stranger.sent) == 1  # its acknowledgement, nothing more
    await srv.subscriptions.stop()
    for ending in (listening, stranger_listening):
        result = orjson.loads(await asyncio.wait_for(ending, 5))
        assert result["result"]["resultType"] == "complete"


@run
async def test_task_ids_need_the_extension_and_an_array_of_ids() -> None:
    srv = server()
    srv.subscriptions.start(None)
    plain = Listener(srv, {"elicitation": {"form": {}}}, "l1")
    refused = orjson.loads(plain.listen(["t"]))
    assert refused["error"]["code"] == -32021
    assert refused["error"]["data"] == {
        "requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    }
    bad = orjson.loads(Listener(srv, WITH_TASKS, "l2").listen("t"))  # type: ignore[arg-type]
    assert bad["error"]["code"] == -32602
    assert "taskIds must be an array" in bad["error"]["message"]
    await srv.subscriptions.stop()


@run
async def test_tasks_alone_serve_listen_but_not_resources_subscribe() -> None:
    """A server whose project switches no subscriptions on still serves
    subscriptions/listen for its tasks, and nothing it does not declare."""
    from tests.runtime.test_tasks_2025 import SessionClient

    srv = server()
    srv.subscriptions.start(None)
    legacy = SessionClient(srv)
    opened = await legacy.open()
    assert "subscribe" not in opened["capabilities"].get("resources", {})
    refused = await legacy.request("resources/subscribe", uri="file:///x")
    assert refused["error"]["code"] == -32601, refused
    listening = Listener(srv, WITH_TASKS, "l3").listen([])
    assert not isinstance(listening, bytes)  # served: the stream stays open
    await srv.subscriptions.stop()
    assert orjson.loads(await asyncio.wait_for(listening, 5))["result"]["resultType"] == "complete"
