"""A raw Streamable HTTP client for tests: exact control over headers, both answer forms
(JSON and SSE) parsed, and every JSON-RPC message checked against the revision's schema
the same way the stdio conversation checks them."""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from tests.support.spec_check import spec
from tests.support.stdio_conversation import STATELESS, Conversation, meta

ACCEPT_BOTH = "application/json, text/event-stream"


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes
    messages: list[Any] = field(default_factory=list)  # JSON-RPC messages, in order
    event_ids: list[str] = field(default_factory=list)  # SSE ids (priming included)
    retry: int | None = None

    @property
    def last(self) -> Any:
        return self.messages[-1]


def parse_sse(body: bytes) -> tuple[list[Any], list[str], int | None]:
    messages: list[Any] = []
    ids: list[str] = []
    retry = None
    for block in body.decode().split("\n\n"):
        data = []
        for line in block.split("\n"):
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "id":
                ids.append(value)
            elif name == "retry":
                retry = int(value)
            elif name == "data":
                data.append(value)
        text = "\n".join(data)
        if text:
            messages.append(json.loads(text))
    return messages, ids, retry


def exchange(
    url: str,
    method: str = "POST",
    body: Any = None,
    headers: dict[str, str] | None = None,
    *,
    raw: bytes | None = None,
    timeout: float = 15.0,
) -> Reply:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    wanted = {"Content-Type": "application/json", "Accept": ACCEPT_BOTH, **(headers or {})}
    payload = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    connection.request(method, parts.path, body=payload, headers=wanted)
    response = connection.getresponse()
    data = response.read()
    reply = Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    kind = reply.headers.get("content-type", "")
    if kind.startswith("text/event-stream"):
        reply.messages, reply.event_ids, reply.retry = parse_sse(data)
    elif kind.startswith("application/json") and data:
        reply.messages = [json.loads(data)]
    connection.close()
    return reply


class Checker(Conversation):
    """The stdio conversation's exactness checks, without a process: ``check`` each
    message against ``revision``'s schema (``pending`` maps request ids to methods)."""

    def __init__(self, revision: str) -> None:  # no process: only the checks are used
        self.revision = revision
        self.spec = spec(revision)
        self.pending: dict[Any, str] = {}
        self.checked = 0


class HttpSession:
    """A client of one revision over HTTP: initialize (session revisions) or the stateless
    envelope and headers; every message received is schema-checked."""

    def __init__(self, url: str, revision: str) -> None:
        self.url = url
        self.revision = revision
        self.checker = Checker(revision)
        self.session_id: str | None = None
        self._next = 0
        if revision != STATELESS:
            reply = self.request("initialize", self.initialize_params())
            assert reply.status == 200, reply
            self.session_id = reply.headers["mcp-session-id"]
            assert self.notify("notifications/initialized").status == 202

    def initialize_params(self) -> dict[str, Any]:
        return {
            "protocolVersion": self.revision,
            "capabilities": {},
            "clientInfo": {"name": "http-test", "version": "1"},
        }

    def headers(self, method: str, params: dict[str, Any] | None) -> dict[str, str]:
        headers: dict[str, str] = {}
        if self.revision == STATELESS:
            headers["MCP-Protocol-Version"] = STATELESS
            headers["Mcp-Method"] = method
            if method == "tools/call" and params is not None:
                headers["Mcp-Name"] = params["name"]
        else:
            if self.session_id is not None:
                headers["Mcp-Session-Id"] = self.session_id
            if self.revision != "2025-03-26" and method != "initialize":
                headers["MCP-Protocol-Version"] = self.revision
        return headers

    def message(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._next += 1
        params = dict(params or {})
        if self.revision == STATELESS:
            params["_meta"] = {**meta(), **params.get("_meta", {})}
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next, "method": method}
        if params:
            message["params"] = params
        self.checker.pending[self._next] = method
        return message

    def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        url: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        message = self.message(method, params)
        sent = {**self.headers(method, params), **(headers or {})}
        reply = exchange(url or self.url, body=message, headers=sent)
        for received in reply.messages:
            self.checker.check(received)
        return reply

    def notify(
        self, method: str, params: dict[str, Any] | None = None, *, url: str | None = None
    ) -> Reply:
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            body["params"] = params
        return exchange(url or self.url, body=body, headers=self.headers(method, None))

    def call(self, name: str, arguments: dict[str, Any], **options: Any) -> Reply:
        return self.request("tools/call", {"name": name, "arguments": arguments}, **options)
