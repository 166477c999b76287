"""The registry's facts about asking the client, derived from each revision's schema.json:
which requests a server may send, the elicitation modes, the sampling parameters, and the
shapes the revision methods produce (checked exactly against the schema)."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_schemagen.runtime.asking.questions import Elicit, ListRoots, Sample, form
from mcp_schemagen.runtime.protocol import REVISIONS, Revision
from tests.support.paths import needs_shared
from tests.support.spec_check import spec

REQUESTS = {
    "ElicitRequest": "elicitation/create",
    "CreateMessageRequest": "sampling/createMessage",
    "ListRootsRequest": "roots/list",
}
ENUMS = form(
    {
        "plain": {"type": "string", "enum": ["a", "b"], "default": "a"},
        "titled": {
            "type": "string",
            "oneOf": [{"const": "v1", "title": "One"}, {"const": "v2", "title": "Two"}],
        },
        "legacy": {"type": "string", "enum": ["x"], "enumNames": ["Ex"]},
        "count": {"type": "integer", "minimum": 0, "default": 1},
        "ok": {"type": "boolean", "default": True},
    },
    required=["plain"],
)
MULTI = form({"many": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}})


def _params_node(revision: str, definition: str) -> dict[str, Any]:
    check = spec(revision)
    node = check._resolve(check.node(definition))
    params: dict[str, Any] = check._resolve(node["properties"]["params"])
    return params


def _request(revision: Revision, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def _exact(revision: Revision, definition: str, message: dict[str, Any]) -> None:
    check = spec(revision.name)
    if "jsonrpc" not in check._resolve(check.node(definition)).get("required", []):
        message = {k: v for k, v in message.items() if k not in ("jsonrpc", "id")}
    check.assert_exact(message, definition)


@needs_shared
@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_requests_a_server_may_send(revision: Revision) -> None:
    check = spec(revision.name)
    defined = {method for name, method in REQUESTS.items() if check.has(name)}
    assert revision.client_requests == defined


@needs_shared
@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_elicitation_modes(revision: Revision) -> None:
    check = spec(revision.name)
    modes = set()
    if check.has("ElicitRequest"):
        modes.add("form")
    if check.has("ElicitRequestURLParams"):
        modes.add("url")
    assert revision.elicitation_modes == modes


@needs_shared
@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_sampling_fields(revision: Revision) -> None:
    defined = set(_params_node(revision.name, "CreateMessageRequest")["properties"])
    assert revision.sampling_fields == defined - {"_meta", "task"}


@needs_shared
@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_what_the_revision_methods_produce_is_exactly_its_schema(revision: Revision) -> None:
    sample = Sample(
        ["hello", {"role": "assistant", "content": {"type": "text", "text": "hi"}}],
        max_tokens=10,
        system_prompt="s",
        temperature=0.5,
        stop_sequences=["x"],
        include_context="none",
        metadata={"k": 1},
        model_preferences={"hints": [{"name": "m"}], "speedPriority": 0.5},
    )
    message = _request(revision, sample.method, sample.params(revision))
    _exact(revision, "CreateMessageRequest", message)
    _exact(
        revision, "ListRootsRequest", _request(revision, "roots/list", ListRoots().params(revision))
    )
    if "form" in revision.elicitation_modes:
        elicit = Elicit("Pick", ENUMS)
        _exact(
            revision, "ElicitRequest", _request(revision, elicit.method, elicit.params(revision))
        )
    if "url" in revision.elicitation_modes:
        url = Elicit("Sign in", url="https://example.com/x", elicitation_id="e-1")
        _exact(revision, "ElicitRequest", _request(revision, url.method, url.params(revision)))
        multi = Elicit("Pick several", MULTI)
        _exact(revision, "ElicitRequest", _request(revision, multi.method, multi.params(revision)))
    if "sampling/createMessage" in revision.client_requests and "tools" in revision.sampling_fields:
        tooled = Sample(
            ["weather?"],
            max_tokens=10,
            tools=[{"name": "get_weather", "inputSchema": {"type": "object"}}],
            tool_choice={"mode": "auto"},
        )
        message = _request(revision, tooled.method, tooled.params(revision))
        _exact(revision, "CreateMessageRequest", message)


@needs_shared
@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_the_missing_capability_error_is_where_the_schema_defines_it(revision: Revision) -> None:
    defined = spec(revision.name).has("MissingRequiredClientCapabilityError")
    assert revision.missing_capability_is_error == defined
