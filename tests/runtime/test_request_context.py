"""One request context: the server resolves a request's revision once, makes one
``RequestContext`` of its facts and hands it through the method table to what serves it,
down to the handler's ``Context``."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from tests.support.inprocess import (
    STATELESS,
    Peer,
    dispatch,
    entry,
    importlib_module,
    run,
    runtime,
    server_with,
    text,
)
from tests.support.runtime_fixture import PACKAGE, REVISIONS

__all__ = ["dispatch", "runtime"]  # fixtures, imported for pytest


def _facts() -> str:
    context = importlib_module(f"{PACKAGE}._runtime.context").get_context()
    principal = context.principal
    return "|".join(
        [
            repr(context.request_id),
            context.revision.name,
            repr(context.progress_token),
            context.tool,
            principal.subject if principal is not None else "nobody",
        ]
    )


@pytest.mark.parametrize("revision", ["2025-06-18", STATELESS])
@run
async def test_a_handler_sees_its_requests_facts_and_principal(
    runtime: Any, dispatch: ModuleType, revision: str
) -> None:
    principal_module = importlib_module(f"{PACKAGE}._runtime.auth.principal")
    who = principal_module.Principal("alice", "app", frozenset({"read"}), "https://as", {})
    server = server_with(runtime, entry(runtime, "facts", _facts))
    peer = await Peer.open(server, revision)
    assert text(await peer.call("facts", {}, progressToken="p1")).endswith("|nobody")
    server.principal_of = lambda: who  # what the HTTP app with authorization installs
    reply = await peer.call("facts", {}, progressToken="p1")
    assert text(reply) == f"{reply['id']}|{revision}|'p1'|facts|alice"
    reply = await peer.call("facts", {})
    assert text(reply) == f"{reply['id']}|{revision}|None|facts|alice"


def test_a_request_context_cannot_be_changed(runtime: Any) -> None:
    request_module = importlib_module(f"{PACKAGE}._runtime.session.request")
    server = server_with(runtime)
    request = request_module.RequestContext(
        1, "ping", {}, None, server.revisions[-1], server.session(), None, None
    )
    with pytest.raises(AttributeError):
        request.log_rank = 3  # type: ignore[misc]
    assert request.progress_token is None


def test_the_method_table_answers_every_method_a_revision_serves(runtime: Any) -> None:
    """Negotiation refuses what the server does not serve; whatever it lets through must
    have its row in the table (initialize is answered before a revision is resolved)."""
    protocol = runtime.protocol
    resources = importlib_module(f"{PACKAGE}._runtime.protocol.resources")
    servable = set(resources.RESOURCE_METHODS) | {"completion/complete"}
    for revision in protocol.ordered(REVISIONS):
        servable |= revision.methods | revision.prompt_methods | revision.subscription_methods
        servable |= revision.skill_methods  # the Skills extension's, where a revision has them
    table = server_with(runtime).methods
    assert sorted(servable - {"initialize"} - table.keys()) == []
    assert sorted(table.keys() - servable) == []
