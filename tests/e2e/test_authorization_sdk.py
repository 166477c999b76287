"""The official SDK client's OAuth support against a generated server with authorization:
it meets the 401, reads the protected resource metadata, discovers the authorization
server, registers, runs the authorization-code flow with PKCE and calls a scoped tool,
in a session revision (2025-11-25) and in 2026-07-28. Step-up: a token without the
tool's scope gets 403 insufficient_scope; the client asks again with it and the call
succeeds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import pytest

from tests.support.authorized_deployment import (
    BASE_SCOPE,
    PACKAGE,
    PROJECT,
    Deployment,
    deployment,
)
from tests.support.http_server import build_project

mcp = pytest.importorskip("mcp")
import httpx2  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.auth import OAuthClientProvider  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared.auth import (  # noqa: E402
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

NOTES = "notes:read"


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def provider(url: str) -> OAuthClientProvider:
    """The SDK's provider, with a 'browser' that follows the authorization URL to the
    (auto-approving) authorization server and hands back what its redirect carries."""
    redirected: dict[str, Any] = {}

    async def redirect_handler(authorization_url: str) -> None:
        async with httpx2.AsyncClient() as browser:
            answer = await browser.get(authorization_url)
        assert answer.status_code == 302, answer.text
        query = parse_qs(urlsplit(answer.headers["location"]).query)
        redirected.update({name: values[0] for name, values in query.items()})

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(**redirected)

    metadata = OAuthClientMetadata(
        redirect_uris=["http://127.0.0.1:9/callback"],  # type: ignore[list-item]
        client_name="authorization test",
        grant_types=["authorization_code"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    return OAuthClientProvider(
        server_url=url,
        client_metadata=metadata,
        storage=MemoryStorage(),
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    root = build_project(PROJECT, tmp_path_factory.mktemp("auth-sdk-build"), PACKAGE)
    with deployment(root, tmp_path_factory.mktemp("auth-sdk")) as served:
        yield served
        log = served.log.read_text(encoding="utf-8", errors="replace")
        assert [t[:20] for t in served.issuer.issued if t[-40:] in log] == []


def _text(result: Any) -> str:
    assert not result.is_error, result
    text: str = result.content[0].text
    return text


async def _session(url: str, mode: str) -> tuple[str, str]:
    async with httpx2.AsyncClient(auth=provider(url), timeout=15) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, read_timeout_seconds=15) as client:
            who = _text(await client.call_tool("whoami", {}))
            notes = _text(await client.call_tool("read_notes", {"topic": "plans"}))
    return who, notes


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_the_sdk_client_authorizes_and_steps_up_for_a_scoped_tool(
    mode: str, served: Deployment
) -> None:
    issuer = served.issuer
    issuer.scopes_asked.clear()
    before = len(served.called())

    async def bounded() -> tuple[str, str]:
        with anyio.fail_after(60):
            return await _session(served.url, mode)

    who, notes = anyio.run(bounded)
    assert who == f"alice test-client {BASE_SCOPE}"  # the token's client_id claim
    assert notes == "notes of alice: plans"
    # First authorization for what the first request needed (the base scope); the scoped
    # call got 403 insufficient_scope and the client asked again with both.
    assert issuer.scopes_asked == [BASE_SCOPE, f"{BASE_SCOPE} {NOTES}"]
    assert served.called()[before:] == ["whoami", "read_notes"]


def test_a_first_call_to_a_scoped_tool_needs_one_authorization(served: Deployment) -> None:
    """In 2026-07-28 the first request is often the call itself: its 401 names the
    tool's scope as well, so the client's first token is enough (no step-up)."""
    issuer = served.issuer
    issuer.scopes_asked.clear()

    async def first_call() -> str:
        with anyio.fail_after(60):
            async with httpx2.AsyncClient(auth=provider(served.url), timeout=15) as http:
                transport = streamable_http_client(served.url, http_client=http)
                async with Client(transport, mode="2026-07-28", read_timeout_seconds=15) as c:
                    return _text(await c.call_tool("read_notes", {"topic": "first"}))

    assert anyio.run(first_call) == "notes of alice: first"
    assert issuer.scopes_asked == [f"{BASE_SCOPE} {NOTES}"]


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
def test_one_junk_jwks_answer_does_not_break_the_sdk_clients_flow(served: Deployment) -> None:
    """The issuer answers once with an unparseable key under its real kid (a made-up kid
    makes the server fetch it): the keys that parse stay in use, and the SDK client's
    whole flow goes on working (issue 32, point 1)."""
    from tests.support.authorization_server import new_key
    from tests.support.authorized_deployment import stateless_call

    issuer = served.issuer
    assert stateless_call(served.url, issuer.mint(scope=BASE_SCOPE), "whoami").status == 200
    issuer.jwks_mode = "junk-keys"
    try:
        stray = issuer.mint(scope=BASE_SCOPE, key=new_key(), kid="made-up")
        assert stateless_call(served.url, stray, "whoami").status in (401, 503)
    finally:
        issuer.jwks_mode = "ok"

    async def bounded() -> tuple[str, str]:
        with anyio.fail_after(60):
            return await _session(served.url, "2026-07-28")

    who, notes = anyio.run(bounded)
    assert who.startswith("alice ") and notes == "notes of alice: plans"
