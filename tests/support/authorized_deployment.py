"""A generated server with authorization, for the end-to-end tests: the project in
tests/e2e/authorization built once, served with ``--auth-*`` options against the test
authorization server, with raw requests that carry a bearer token."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.authorization_server import AuthorizationServer
from tests.support.http_client import Reply, exchange
from tests.support.http_server import free_port, http_command, serving
from tests.support.paths import REPO
from tests.support.stdio_conversation import STATELESS, meta

PROJECT = REPO / "tests" / "e2e" / "authorization"
PACKAGE = "authorized_server"
BASE_SCOPE = "mcp:tools"
SESSION_REVISION = "2025-11-25"
_ids = itertools.count(1)


@dataclass
class Deployment:
    url: str
    resource: str
    issuer: AuthorizationServer
    log: Path
    calls: Path

    def called(self) -> list[str]:
        return self.calls.read_text().split() if self.calls.exists() else []


@contextlib.contextmanager
def deployment(
    root: Path,
    folder: Path,
    *,
    extra: Sequence[str] = (),
    env: dict[str, str] | None = None,
    issuer: AuthorizationServer | None = None,
    port: int | None = None,
    resource: str | None = None,
) -> Iterator[Deployment]:
    """Serve the built project at ``root`` with authorization against ``issuer`` (a fresh
    test authorization server unless given; it must name this server's resource)."""
    port = port or free_port()
    resource = resource or f"http://127.0.0.1:{port}/mcp"
    with contextlib.ExitStack() as stack:
        if issuer is None:
            issuer = stack.enter_context(AuthorizationServer(resource).running())
        command = http_command(
            PACKAGE, port,
            "--auth-issuer", issuer.issuer, "--auth-resource", resource,
            "--auth-scope", BASE_SCOPE, *extra,
        )  # fmt: skip
        folder.mkdir(parents=True, exist_ok=True)
        log, calls = folder / "server.log", folder / "calls.txt"
        environment = {"AUTH_TEST_CALLS": str(calls), **(env or {})}
        url = stack.enter_context(serving(root, command, port, log, env=environment))
        yield Deployment(url, resource, issuer, log, calls)


def bearer(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


def stateless_call(url: str, token: str | None, tool: str, **arguments: Any) -> Reply:
    """A 2026-07-28 tools/call, as the first and only request."""
    params = {"name": tool, "arguments": arguments, "_meta": meta()}
    headers = {"MCP-Protocol-Version": STATELESS, "Mcp-Method": "tools/call", "Mcp-Name": tool}
    body = {"jsonrpc": "2.0", "id": next(_ids), "method": "tools/call", "params": params}
    return exchange(url, body=body, headers={**headers, **bearer(token)})


def initialize(url: str, token: str | None) -> Reply:
    params = {
        "protocolVersion": SESSION_REVISION,
        "capabilities": {},
        "clientInfo": {"name": "auth-test", "version": "1"},
    }
    body = {"jsonrpc": "2.0", "id": next(_ids), "method": "initialize", "params": params}
    return exchange(url, body=body, headers=bearer(token))


def open_session(url: str, token: str) -> str:
    reply = initialize(url, token)
    assert reply.status == 200, reply
    session: str = reply.headers["mcp-session-id"]
    headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": SESSION_REVISION}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert exchange(url, body=note, headers={**headers, **bearer(token)}).status == 202
    return session


def session_call(url: str, token: str | None, session: str, tool: str) -> Reply:
    headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": SESSION_REVISION}
    params = {"name": tool, "arguments": {}}
    body = {"jsonrpc": "2.0", "id": next(_ids), "method": "tools/call", "params": params}
    return exchange(url, body=body, headers={**headers, **bearer(token)})


def challenge_fields(reply: Reply) -> dict[str, str]:
    """The auth-params of the reply's ``WWW-Authenticate: Bearer ...`` header."""
    value = reply.headers["www-authenticate"]
    scheme, _, rest = value.partition(" ")
    assert scheme == "Bearer", value
    fields = {}
    for part in rest.split('", '):
        name, _, quoted = part.partition("=")
        fields[name.strip()] = quoted.strip().strip('"')
    return fields
