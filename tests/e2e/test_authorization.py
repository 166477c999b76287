"""Authorization end to end: a generated server as an OAuth 2.1 resource server, with a
real authorization server (tests/support/authorization_server.py: RSA keys, signed JWTs,
JWKS over HTTP) and the official SDK client's OAuth support.

Every refused request is checked to have reached no handler (the handlers write each call
to a file), and the server's log never holds a token.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import json
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from cryptography.hazmat.primitives import serialization

from tests.support.authorization_server import AuthorizationServer, new_key
from tests.support.authorized_deployment import (
    BASE_SCOPE,
    PACKAGE,
    PROJECT,
    Deployment,
    challenge_fields,
    deployment,
    initialize,
    open_session,
    session_call,
    stateless_call,
)
from tests.support.http_client import exchange
from tests.support.http_server import build_project

NOTES = "notes:read"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_project(PROJECT, tmp_path_factory.mktemp("auth-build"), PACKAGE)


@pytest.fixture(scope="module")
def served(root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    with deployment(root, tmp_path_factory.mktemp("auth-served")) as served:
        yield served
        # Whatever happened in the module's tests, no token reached the log.
        log = served.log.read_text(encoding="utf-8", errors="replace")
        leaked = [t[:20] for t in served.issuer.issued if t in log or t[-40:] in log]
        assert leaked == []


# ------------------------------------------------------------------ discovery


def test_protected_resource_metadata_at_both_well_known_paths(served: Deployment) -> None:
    base = served.url.removesuffix("/mcp")
    for path in (
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ):
        reply = exchange(base + path, "GET")
        assert reply.status == 200, path
        document = json.loads(reply.body)
        assert document["resource"] == served.resource
        assert document["authorization_servers"] == [served.issuer.issuer]
        assert document["scopes_supported"] == [BASE_SCOPE, NOTES]
        assert document["bearer_methods_supported"] == ["header"]


def test_no_token_gets_401_naming_the_metadata_and_the_scopes_of_the_request(
    served: Deployment,
) -> None:
    reply = initialize(served.url, None)
    assert reply.status == 401
    fields = challenge_fields(reply)
    assert fields["resource_metadata"] == served.resource.replace(
        "/mcp", "/.well-known/oauth-protected-resource/mcp"
    )
    assert fields["scope"] == BASE_SCOPE
    # A call's challenge names the tool's scope too, so the first token is enough.
    reply = stateless_call(served.url, None, "read_notes")
    assert reply.status == 401
    assert challenge_fields(reply)["scope"] == f"{BASE_SCOPE} {NOTES}"
    assert served.called() == []


def test_health_check_stays_open(served: Deployment) -> None:
    assert exchange(served.url + "/health", "GET").status == 200


def test_a_token_in_the_query_string_is_refused(served: Deployment) -> None:
    token = served.issuer.mint(scope=BASE_SCOPE)
    parts = urlsplit(served.url)
    for method, body in (("GET", None), ("POST", b'{"jsonrpc":"2.0","id":1,"method":"ping"}')):
        connection = http.client.HTTPConnection(str(parts.hostname), parts.port, timeout=10)
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        connection.request(method, f"{parts.path}?access_token={token}", body, headers)
        response = connection.getresponse()
        assert response.status == 400
        assert 'error="invalid_request"' in response.getheader("www-authenticate", "")
        connection.close()
    assert served.called() == []


# ------------------------------------------------------------------ valid tokens


def test_a_valid_token_reaches_the_handler_with_its_principal(served: Deployment) -> None:
    token = served.issuer.mint(scope=f"{BASE_SCOPE} {NOTES}", subject="carol")
    for tool in ("whoami", "whoami_async"):
        reply = stateless_call(served.url, token, tool)
        assert reply.status == 200, reply
        text = reply.last["result"]["content"][0]["text"]
        assert text == f"carol test-client {BASE_SCOPE} {NOTES}"
    session = open_session(served.url, token)
    reply = session_call(served.url, token, session, "whoami")
    assert reply.last["result"]["content"][0]["text"].startswith("carol ")


def test_a_call_without_the_tools_scope_gets_403_insufficient_scope(served: Deployment) -> None:
    before = served.called()
    token = served.issuer.mint(scope=BASE_SCOPE)
    reply = stateless_call(served.url, token, "read_notes")
    assert reply.status == 403
    fields = challenge_fields(reply)
    assert fields["error"] == "insufficient_scope"
    assert fields["scope"] == f"{BASE_SCOPE} {NOTES}"
    assert "resource_metadata" in fields
    session = open_session(served.url, token)
    assert session_call(served.url, token, session, "read_notes").status == 403
    assert served.called() == before
    # A token without even the base scope cannot open a session.
    assert initialize(served.url, served.issuer.mint(scope=NOTES)).status == 403


# ------------------------------------------------------------------ hostile tokens


def _unsigned(
    header: Mapping[str, object], claims: Mapping[str, object], secret: bytes | None
) -> str:
    def part(value: object) -> bytes:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=")

    signing = part(header) + b"." + part(claims)
    signature = b""
    if secret is not None:
        signature = base64.urlsafe_b64encode(
            hmac.new(secret, signing, hashlib.sha256).digest()
        ).rstrip(b"=")
    return (signing + b"." + signature).decode()


def _claims(served: Deployment, **changes: object) -> dict[str, object]:
    now = int(time.time())
    return {
        "iss": served.issuer.issuer, "sub": "mallory", "aud": served.resource,
        "scope": f"{BASE_SCOPE} {NOTES}", "iat": now, "nbf": now, "exp": now + 300,
        **changes,
    }  # fmt: skip


HOSTILE = [
    "alg none",
    "HS256 signed with the public key",
    "signed by another key under the real kid",
    "expired",
    "not yet valid",
    "wrong audience",
    "token for another resource",
    "wrong issuer",
    "not a JWT",
    "1 MiB token",
]


def _hostile(kind: str, served: Deployment) -> str:
    issuer = served.issuer
    mint_all = f"{BASE_SCOPE} {NOTES}"
    if kind == "alg none":
        return _unsigned({"alg": "none", "typ": "at+jwt", "kid": issuer.kid}, _claims(served), None)
    if kind == "HS256 signed with the public key":
        pem = issuer.key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        header = {"alg": "HS256", "typ": "at+jwt", "kid": issuer.kid}
        return _unsigned(header, _claims(served), pem)
    if kind == "signed by another key under the real kid":
        return issuer.mint(scope=mint_all, key=new_key())
    if kind == "expired":
        return issuer.mint(scope=mint_all, lifetime=-120)
    if kind == "not yet valid":
        return issuer.mint(scope=mint_all, not_before=time.time() + 600)
    if kind == "wrong audience":
        return issuer.mint(scope=mint_all, audience="https://elsewhere.example/mcp")
    if kind == "token for another resource":
        other = served.resource.replace("/mcp", "/other")
        return issuer.mint(scope=mint_all, audience=[other])
    if kind == "wrong issuer":
        return issuer.mint(scope=mint_all, issuer="http://127.0.0.1:9/evil")
    if kind == "not a JWT":
        return "opaque-garbage-token"
    if kind == "1 MiB token":
        return issuer.mint(scope=mint_all, claims={"pad": "x" * (1024 * 1024)})
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", HOSTILE)
def test_hostile_tokens_are_refused_with_401_and_call_nothing(
    kind: str, served: Deployment
) -> None:
    before = served.called()
    token = _hostile(kind, served)
    reply = stateless_call(served.url, token, "whoami")
    assert reply.status == 401, (kind, reply.status, reply.body[:200])
    assert challenge_fields(reply)["error"] == "invalid_token"
    assert initialize(served.url, token).status == 401
    assert served.called() == before


def test_an_unknown_kid_refetches_the_keys_once_then_is_refused(root: Path, tmp_path: Path) -> None:
    with deployment(root, tmp_path) as fresh:
        issuer = fresh.issuer
        assert stateless_call(fresh.url, issuer.mint(scope=BASE_SCOPE), "whoami").status == 200
        assert issuer.jwks_fetches == 1
        # Rotation: a key published after the cache was filled is found by one refetch.
        issuer.extra_keys["key-2"] = rotated = new_key()
        token = issuer.mint(scope=BASE_SCOPE, key=rotated, kid="key-2")
        assert stateless_call(fresh.url, token, "whoami").status == 200
        assert issuer.jwks_fetches == 2
        # A kid nobody published: refetches are rate-limited, so at most one more fetch.
        for _ in range(3):
            stray = issuer.mint(scope=BASE_SCOPE, key=new_key(), kid="key-unknown")
            assert stateless_call(fresh.url, stray, "whoami").status == 401
        assert issuer.jwks_fetches <= 3
        assert fresh.called() == ["whoami", "whoami"]


def test_an_unknown_kid_makes_exactly_one_refetch(root: Path, tmp_path: Path) -> None:
    with deployment(root, tmp_path) as fresh:
        issuer = fresh.issuer
        assert stateless_call(fresh.url, issuer.mint(scope=BASE_SCOPE), "whoami").status == 200
        stray = issuer.mint(scope=BASE_SCOPE, key=new_key(), kid="key-unknown")
        assert stateless_call(fresh.url, stray, "whoami").status == 401
        assert issuer.jwks_fetches == 2
        assert stateless_call(fresh.url, stray, "whoami").status == 401
        assert issuer.jwks_fetches == 2
        assert "no key 'key-unknown'" in fresh.log.read_text()


@pytest.mark.parametrize("mode", ["hang", "garbage"])
def test_a_broken_key_endpoint_fails_closed_with_503(mode: str, root: Path, tmp_path: Path) -> None:
    timeout = {"MCP_AUTH_FETCH_TIMEOUT_SECONDS": "1"}
    with deployment(root, tmp_path, env=timeout) as fresh:
        fresh.issuer.jwks_mode = mode
        started = time.monotonic()
        reply = stateless_call(fresh.url, fresh.issuer.mint(scope=BASE_SCOPE), "whoami")
        assert reply.status == 503
        assert time.monotonic() - started < 10
        assert fresh.called() == []
        log = fresh.log.read_text()
        assert "authorization server unavailable" in log and "/jwks" in log


def test_an_unreachable_issuer_fails_closed_with_503(root: Path, tmp_path: Path) -> None:
    issuer = AuthorizationServer("unused")
    issuer.close()  # nothing listens on its port any more
    with deployment(root, tmp_path, issuer=issuer) as fresh:
        reply = stateless_call(fresh.url, issuer.mint(scope=BASE_SCOPE), "whoami")
        assert reply.status == 503
        assert fresh.called() == []
        assert "no metadata for issuer" in fresh.log.read_text()


# ------------------------------------------------------------------ sessions


def test_a_session_is_refused_with_another_subjects_token(served: Deployment) -> None:
    issuer = served.issuer
    alice = issuer.mint(subject="alice", scope=BASE_SCOPE)
    bob = issuer.mint(subject="bob", scope=BASE_SCOPE)
    session = open_session(served.url, alice)
    before = served.called()
    reply = session_call(served.url, bob, session, "whoami")
    assert reply.status == 404
    assert served.called() == before
    assert session_call(served.url, alice, session, "whoami").status == 200
    # Another token of the same subject is the same principal.
    again = issuer.mint(subject="alice", scope=BASE_SCOPE)
    assert session_call(served.url, again, session, "whoami").status == 200


def test_a_deleted_sessions_token_cannot_revive_it(served: Deployment) -> None:
    alice = served.issuer.mint(subject="alice", scope=BASE_SCOPE)
    session = open_session(served.url, alice)
    headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    deleted = exchange(
        served.url, "DELETE", headers={**headers, "Authorization": f"Bearer {alice}"}
    )
    assert deleted.status == 200
    before = served.called()
    assert session_call(served.url, alice, session, "whoami").status == 404
    assert served.called() == before


# ------------------------------------------------------------------ command line


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--http", "--host", "192.0.2.10"], "--no-auth"),
        (["--auth-issuer", "https://as.example"], "needs --http"),
        (["--http", "--auth-issuer", "https://as.example"], "--auth-resource"),
        (
            ["--http", "--auth-issuer", "http://as.example", "--auth-resource", "https://r.example/mcp"],
            "https://",
        ),
        (
            ["--http", "--auth-issuer", "https://as.example", "--auth-resource",
             "https://r.example/mcp", "--auth-algorithm", "HS256"],
            "asymmetric",
        ),
        (["--http", "--no-auth", "--auth-scope", "a"], "contradicts"),
    ],
)  # fmt: skip
def test_the_command_line_refuses_an_open_or_broken_configuration(
    arguments: list[str], message: str, root: Path
) -> None:
    failed = subprocess.run(
        [sys.executable, "-m", PACKAGE, *arguments],
        cwd=root, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert failed.returncode == 2, failed.stderr
    assert message in failed.stderr


def test_the_body_deadline_holds_in_front_of_the_guard_too(root: Path, tmp_path: Path) -> None:
    """The guard reads a POST body before the endpoint does (the scopes depend on it): a
    body trickling in is cut off at the same deadline, with or without a token."""
    import socket

    with deployment(root, tmp_path, extra=("--body-timeout", "1")) as served:
        address = urlsplit(served.url)
        with socket.create_connection((address.hostname, address.port), timeout=10) as client:
            client.sendall(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"
            )
            started = time.monotonic()
            reply = client.recv(4096)
            waited = time.monotonic() - started
        assert reply.startswith(b"HTTP/1.1 408"), reply[:80]
        assert waited < 5, waited
        assert served.called() == []


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_access_log_writes_no_query_string_token(
    workers: str, root: Path, tmp_path: Path
) -> None:
    with deployment(root, tmp_path, extra=("--access-log", "--workers", workers)) as fresh:
        token = fresh.issuer.mint(scope=BASE_SCOPE)
        parts = urlsplit(fresh.url)
        connection = http.client.HTTPConnection(str(parts.hostname), parts.port, timeout=10)
        query = f"access_token={token}&client_secret=hush-1234&page=2&Refresh_Token=rt-5678"
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
        connection.request("POST", f"{parts.path}?{query}", body, headers)
        assert connection.getresponse().status == 400
        connection.close()
        time.sleep(0.5)  # the access line is written after the response
        log = fresh.log.read_text()
        assert token not in log and token[-40:] not in log
        assert "hush-1234" not in log and "rt-5678" not in log
        assert (
            '"POST /mcp?access_token=***&client_secret=***&page=2&Refresh_Token=*** HTTP/1.1" 400'
            in log
        ), log
