"""Bounds of tasks run by a task-queue engine, with real parts: one redis-server, two
generated HTTP server processes (``--task-engine taskiq``) behind one authorization
server. A principal's queued and running engine tasks are counted in Redis, so the cap
(MCP_TASK_MAX_PER_PRINCIPAL) holds whichever server process a call reaches; past it the
caller is told why, and another principal is still served."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest

from tests.e2e.test_tasks_scale_out import EXTENSION, STATELESS
from tests.support.authorization_server import AuthorizationServer
from tests.support.http_client import exchange
from tests.support.http_server import (
    CONFORMANCE_PROJECT,
    REDIS,
    build_project,
    free_port,
    http_command,
    redis_server,
    serving,
)
from tests.support.paths import needs_shared

PACKAGE = "conformance_server"
SCOPE = "mcp:tools"
CAP = 3
ENV = {"MCP_CODEGEN_STATE_KEY": "engine bounds key", "MCP_TASK_MAX_PER_PRINCIPAL": str(CAP)}
pytestmark = [
    needs_shared,
    pytest.mark.skipif(
        REDIS is None,
        reason="redis-server is not installed (Debian package redis-server; .ci/run installs it)",
    ),
]
_ids = itertools.count(1)


class Servers(NamedTuple):
    urls: tuple[str, str]
    issuer: AuthorizationServer


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    folder = tmp_path_factory.mktemp("engine-bounds")
    root = build_project(CONFORMANCE_PROJECT, folder, PACKAGE)
    ports = free_port(), free_port()
    resource = f"http://127.0.0.1:{ports[0]}/mcp"  # the one URL a balancer would serve
    with contextlib.ExitStack() as stack:
        store = stack.enter_context(redis_server(folder / "redis"))
        issuer = stack.enter_context(AuthorizationServer(resource).running())
        urls = []
        for name, port in zip("ab", ports, strict=True):
            command = http_command(
                PACKAGE, port, "--store", store, "--task-engine", "taskiq",
                "--auth-issuer", issuer.issuer, "--auth-resource", resource, "--auth-scope", SCOPE,
            )  # fmt: skip
            log = folder / f"{name}.log"
            urls.append(stack.enter_context(serving(root, command, port, log, env=ENV)))
        yield Servers((urls[0], urls[1]), issuer)


def call(url: str, token: str, method: str, params: dict[str, Any]) -> Any:
    meta = {
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "bounds-test", "version": "1"},
    }
    body = {
        "jsonrpc": "2.0",
        "id": next(_ids),
        "method": method,
        "params": {**params, "_meta": meta},
    }
    headers = {
        "MCP-Protocol-Version": STATELESS,
        "Mcp-Method": method,
        "Mcp-Name": str(params.get("name", params.get("taskId"))),
        "Authorization": f"Bearer {token}",
    }
    reply = exchange(url, body=body, headers=headers)
    assert reply.status == 200, reply
    return reply.last


def start(url: str, token: str) -> Any:
    """A tools/call of a long task (no task worker runs here: it stays queued)."""
    return call(url, token, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 60}})


def test_one_principal_past_the_cap_is_refused_at_every_server_another_is_served(
    servers: Servers,
) -> None:
    a, b = servers.urls
    alice = servers.issuer.mint(subject="alice", scope=SCOPE)
    bob = servers.issuer.mint(subject="bob", scope=SCOPE)
    hers = [start(url, alice)["result"] for url in (a, b, a)]  # CAP tasks, on both servers
    assert [task["resultType"] for task in hers] == ["task"] * CAP
    expected = {
        "code": -32000,
        "message": f"Too many tasks of yours: {CAP} are queued or running"
        " (MCP_TASK_MAX_PER_PRINCIPAL); try again when some have finished",
    }
    assert start(b, alice)["error"] == expected  # counted across both, in Redis
    assert start(a, alice)["error"] == expected
    assert start(b, bob)["result"]["resultType"] == "task"  # another principal: served
    # One of hers cancelled at one server makes room for one more at the other.
    cancelled = call(a, alice, "tasks/cancel", {"taskId": hers[1]["taskId"]})
    assert cancelled["result"]["resultType"] == "complete", cancelled
    assert start(b, alice)["result"]["resultType"] == "task"
    assert start(a, alice)["error"] == expected
