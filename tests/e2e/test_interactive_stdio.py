"""Interactive tools of the embedded example over raw stdio, every message the server
sends checked exactly against the revision's schema.json (tests/support/stdio_conversation):
the elicitation, sampling and roots requests of the session revisions, and the
InputRequiredResult of 2026-07-28, whose retry lands on another server process."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import SHARED_SPECS
from tests.support.projects import build_embedded_example
from tests.support.stdio_conversation import STATELESS, Conversation, meta

pytestmark = pytest.mark.skipif(not SHARED_SPECS.is_dir(), reason="needs ../shared/specs")

EVERYTHING = {"elicitation": {}, "sampling": {}, "roots": {}}
Start = Callable[[str], Conversation]


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_embedded_example(tmp_path_factory.mktemp("interactive-stdio"))


@pytest.fixture
def start(example: Path, tmp_path: Path) -> Iterator[Start]:
    opened: list[Conversation] = []

    def open_one(revision: str) -> Conversation:
        stderr = tmp_path / f"stderr-{len(opened)}.txt"
        conversation = Conversation(example, "example_server", revision, stderr)
        opened.append(conversation)
        if revision != STATELESS:
            conversation.result(
                "initialize",
                {
                    "protocolVersion": revision,
                    "capabilities": EVERYTHING,
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            )
            conversation.notify("notifications/initialized")
        return conversation

    yield open_one
    for conversation in opened:
        conversation.kill()


def _answer(c: Conversation, request: dict[str, Any], result: dict[str, Any]) -> None:
    c.send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def _text(response: dict[str, Any]) -> str:
    return "".join(b["text"] for b in response["result"]["content"] if b["type"] == "text")


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25"])
def test_session_revisions_send_requests_of_their_own_form(revision: str, start: Start) -> None:
    c = start(revision)
    call = c.start("tools/call", {"name": "plan_trip", "arguments": {"destination": "Rome"}})
    preferences = c.wait_server_request()  # checked exactly against this revision's schema
    fields = preferences["params"]["requestedSchema"]["properties"]
    if revision == "2025-06-18":  # no titled oneOf, no defaults: the form it defines
        assert fields["cabin"]["enumNames"] == ["Economy", "Business"]
        assert "default" not in fields["nights"]
    else:
        assert fields["cabin"]["oneOf"][0] == {"const": "economy", "title": "Economy"}
        assert fields["nights"]["default"] == 3
    _answer(c, preferences, {"action": "accept", "content": {"traveller": "Lin", "nights": 4}})
    first, second = c.wait_server_request(), c.wait_server_request()  # asked at once
    by_method = {r["method"]: r for r in (first, second)}
    _answer(
        c,
        by_method["sampling/createMessage"],
        {
            "role": "assistant",
            "content": {"type": "text", "text": "a hat"},
            "model": "m",
        },
    )
    _answer(c, by_method["elicitation/create"], {"action": "accept", "content": {"book": True}})
    assert _text(c.wait(call)) == "Booked 4 nights in Rome for Lin, economy class. Pack: a hat"
    assert c.close() == 0


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-03-26"])
def test_sampling_and_roots_before_elicitation_existed(revision: str, start: Start) -> None:
    c = start(revision)
    call = c.start("tools/call", {"name": "summarize_forecast", "arguments": {"location": "Oslo"}})
    request = c.wait_server_request()
    assert request["method"] == "sampling/createMessage"
    _answer(
        c, request, {"role": "assistant", "content": {"type": "text", "text": "Dry."}, "model": "m"}
    )
    assert _text(c.wait(call)) == "Dry. (summarized by m)"
    call = c.start("tools/call", {"name": "list_workspace", "arguments": {}})
    _answer(c, c.wait_server_request(), {"roots": [{"uri": "file:///w", "name": "w"}]})
    assert _text(c.wait(call)) == "w: file:///w"
    refused = c.request("tools/call", {"name": "cancel_order", "arguments": {"order_id": "1"}})
    assert refused["result"]["isError"] and "has no elicitation/create" in _text(refused)
    assert c.close() == 0


def _call(order: str, **params: Any) -> dict[str, Any]:
    stamp = meta(**{"io.modelcontextprotocol/clientCapabilities": EVERYTHING})
    return {"name": "cancel_order", "arguments": {"order_id": order}, "_meta": stamp, **params}


def test_a_2026_retry_lands_on_another_worker(
    start: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_CODEGEN_STATE_KEY", "a secret every worker of this deployment shares")
    one, two = start(STATELESS), start(STATELESS)
    first = one.result("tools/call", _call("A-1"))  # checked against InputRequiredResult
    assert first["resultType"] == "input_required" and list(first["inputRequests"]) == ["confirm"]
    yes = {"confirm": {"action": "accept", "content": {"confirm": True}}}
    done = two.request(
        "tools/call", _call("A-1", inputResponses=yes, requestState=first["requestState"])
    )
    assert done["result"]["resultType"] == "complete"
    assert _text(done) == "Order A-1 cancelled."
    # bound to the call: the same state cannot cancel another order
    other = two.error(
        "tools/call", _call("B-2", inputResponses=yes, requestState=first["requestState"])
    )
    assert other["code"] == -32602 and "issued for another call" in other["message"]
    monkeypatch.setenv("MCP_CODEGEN_STATE_KEY", "a worker of some other deployment")
    stranger = start(STATELESS)
    forged = stranger.error(
        "tools/call", _call("A-1", inputResponses=yes, requestState=first["requestState"])
    )
    assert forged["code"] == -32602 and "integrity check failed" in forged["message"]
    for c in (one, two, stranger):
        assert c.close() == 0
