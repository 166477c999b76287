"""Sessions bound to their principal across workers: two server processes share one
redis-server; a session opened on one with alice's token is refused (404) on the other
with bob's, and served there with alice's."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from tests.support.authorization_server import AuthorizationServer
from tests.support.authorized_deployment import (
    BASE_SCOPE,
    PACKAGE,
    PROJECT,
    deployment,
    open_session,
    session_call,
)
from tests.support.http_server import REDIS, build_project, free_port, redis_server

pytestmark = pytest.mark.skipif(
    REDIS is None,
    reason="redis-server is not installed (Debian package redis-server; .ci/run installs it)",
)


def test_a_session_opened_on_one_worker_refuses_another_subject_on_the_other(
    tmp_path: Path,
) -> None:
    root = build_project(PROJECT, tmp_path / "build", PACKAGE)
    port_a, port_b = free_port(), free_port()
    resource = f"http://127.0.0.1:{port_a}/mcp"  # the one URL a balancer would serve
    with contextlib.ExitStack() as stack:
        store = stack.enter_context(redis_server(tmp_path / "redis"))
        issuer = stack.enter_context(AuthorizationServer(resource).running())
        workers = []
        for name, port in (("a", port_a), ("b", port_b)):
            where = tmp_path / name
            worker = deployment(
                root, where, extra=("--store", store), issuer=issuer, port=port, resource=resource
            )
            workers.append(stack.enter_context(worker))
        a, b = workers
        alice = issuer.mint(subject="alice", scope=BASE_SCOPE)
        bob = issuer.mint(subject="bob", scope=BASE_SCOPE)
        session = open_session(a.url, alice)
        refused = session_call(b.url, bob, session, "whoami")
        assert refused.status == 404
        assert b.called() == [] and a.called() == []
        served = session_call(b.url, alice, session, "whoami")
        assert served.status == 200
        assert served.last["result"]["content"][0]["text"].startswith("alice ")
        assert b.called() == ["whoami"]
        # And back on the first worker, bob is still a stranger to the session.
        assert session_call(a.url, bob, session, "whoami").status == 404
