"""The authorization layer's small parts, without a network: settings checks, the
challenge header, bearer parsing, the metadata path, what a message needs."""

from __future__ import annotations

import pytest

from mcp_schemagen.runtime.auth.challenge import challenge, resource_metadata
from mcp_schemagen.runtime.auth.fetch import max_age_of
from mcp_schemagen.runtime.auth.keys import discovery_urls
from mcp_schemagen.runtime.auth.scopes import ScopePolicy
from mcp_schemagen.runtime.auth.settings import AuthConfigError, AuthSettings
from mcp_schemagen.runtime.http.access_log import redacted
from mcp_schemagen.runtime.http.auth_guard import _bearer, _callable_tools

ISSUER = "https://keycloak.example.com/realms/mcp"


def settings(**changes: object) -> AuthSettings:
    values: dict[str, object] = {"issuers": (ISSUER,), "resource": "https://mcp.example.com/mcp"}
    return AuthSettings(**{**values, **changes})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"issuers": ()}, "at least one"),
        ({"issuers": ("http://as.example.com",)}, "https://"),
        ({"resource": "https://mcp.example.com/mcp#x"}, "#fragment"),
        ({"resource": "https://mcp.example.com/mcp?x=1"}, "without a query"),
        ({"algorithms": ("HS256",)}, "asymmetric"),
        ({"algorithms": ("none",)}, "asymmetric"),
        ({"scopes": ("a b",)}, "not a scope token"),
        ({"leeway_seconds": -1.0}, "between 0 and 600"),
        ({"list_tools": "scoped"}, "--auth-list-tools 'scoped' is not a choice"),
    ],
)
def test_settings_that_cannot_work_are_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(AuthConfigError, match=message):
        settings(**changes)


def test_plain_http_is_allowed_only_on_this_machine() -> None:
    assert settings(issuers=("http://127.0.0.1:8080",)).issuers == ("http://127.0.0.1:8080",)


def test_the_metadata_path_inserts_the_well_known_prefix_before_the_resource_path() -> None:
    assert settings().metadata_path == "/.well-known/oauth-protected-resource/mcp"
    assert (
        settings().metadata_url
        == "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
    )
    root = settings(resource="https://mcp.example.com")
    assert root.metadata_path == "/.well-known/oauth-protected-resource"


def test_settings_survive_the_environment_round_trip() -> None:
    original = settings(scopes=("mcp:tools", "x"), algorithms=("ES256",), leeway_seconds=5.0)
    assert AuthSettings.from_environment(original.environment()) == original
    assert AuthSettings.from_environment({}) is None
    callable_only = settings(list_tools="callable")
    assert AuthSettings.from_environment(callable_only.environment()) == callable_only


def test_a_bad_listing_choice_in_the_environment_names_the_variable() -> None:
    environment = {**settings().environment(), "MCP_AUTH_LIST_TOOLS": "scoped"}
    with pytest.raises(AuthConfigError, match="MCP_AUTH_LIST_TOOLS 'scoped' is not a choice"):
        AuthSettings.from_environment(environment)


def test_discovery_tries_rfc_8414_then_openid_connect() -> None:
    assert discovery_urls(ISSUER) == [
        "https://keycloak.example.com/.well-known/oauth-authorization-server/realms/mcp",
        "https://keycloak.example.com/realms/mcp/.well-known/openid-configuration",
        "https://keycloak.example.com/.well-known/openid-configuration/realms/mcp",
    ]


def test_the_challenge_names_scopes_and_metadata_and_quotes_safely() -> None:
    header = challenge(settings(), ("a", "b"), "insufficient_scope", 'lacks "b"\r\nX: y')
    assert header == (
        b'Bearer error="insufficient_scope", error_description="lacks ?b???X: y", '
        b'scope="a b", resource_metadata="https://mcp.example.com/.well-known/'
        b'oauth-protected-resource/mcp"'
    )
    document = resource_metadata(settings(), ["a"])
    assert document["authorization_servers"] == [ISSUER]
    assert document["scopes_supported"] == ["a"]


@pytest.mark.parametrize(
    "value, token",
    [
        ("Bearer abc.def", "abc.def"),
        ("bearer abc", "abc"),
        ("Bearer  abc", "abc"),
        ("Basic abc", None),
        ("Bearer", None),
        ("Bearer a b", None),
        (None, None),
    ],
)
def test_only_a_bearer_authorization_header_carries_a_token(
    value: str | None, token: str | None
) -> None:
    assert _bearer(value) == token


def test_a_message_needs_the_base_scopes_and_each_called_tools() -> None:
    policy = ScopePolicy(["base"], {"notes": ("notes:read",), "admin": ("admin", "base")})
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "admin"}}
    assert policy.needed(call) == ("base", "admin")
    batch = [call, {"method": "tools/call", "params": {"name": "notes"}}]
    assert policy.needed(batch) == ("base", "admin", "notes:read")
    assert policy.needed({"method": "tools/call", "params": {"name": "unknown"}}) == ("base",)
    assert policy.needed("garbage") == ("base",)
    assert policy.supported() == ["base", "notes:read", "admin"]


def test_the_callable_tools_are_those_whose_every_scope_the_token_holds() -> None:
    policy = ScopePolicy(["base"], {"notes": ("notes:read",), "admin": ("admin", "base")})
    visible = _callable_tools(("open", "notes", "admin"), policy)
    assert visible(frozenset({"base"})) == {"open"}
    assert visible(frozenset({"base", "notes:read"})) == {"open", "notes"}
    assert visible(frozenset({"admin"})) == {"open"}  # lacks "base", which admin also needs
    assert visible(frozenset({"base", "admin", "notes:read"})) == {"open", "notes", "admin"}


@pytest.mark.parametrize(
    "cache_control, age, seconds",
    [
        (None, None, None),
        ("public", None, None),
        ("public, max-age=300", None, 300.0),
        ('max-age="60"', "20", 40.0),
        ("max-age=10", "30", 0.0),
        ("no-cache", None, 0.0),
        ("max-age=300, no-store", None, 0.0),
        ("max-age=soon", None, None),
    ],
)
def test_how_long_a_key_set_may_be_kept_follows_cache_control(
    cache_control: str | None, age: str | None, seconds: float | None
) -> None:
    assert max_age_of(cache_control, age) == seconds


@pytest.mark.parametrize("ceiling", [1.0, 4.9, 86401.0])
def test_the_key_age_ceiling_is_bounded(ceiling: float) -> None:
    with pytest.raises(AuthConfigError, match="--auth-jwks-max-age: seconds between 5 and 86400"):
        settings(jwks_max_age_seconds=ceiling)


def test_a_plain_jwt_issuer_must_be_one_of_the_issuers() -> None:
    with pytest.raises(AuthConfigError, match=r"--auth-plain-jwt-issuer 'https://other\.example'"):
        settings(plain_jwt_issuers=("https://other.example",))
    assert settings(plain_jwt_issuers=(ISSUER,)).plain_jwt_issuers == (ISSUER,)


@pytest.mark.parametrize(
    "target, shown",
    [
        ("/mcp", "/mcp"),
        ("/mcp?page=2", "/mcp?page=2"),
        ("/mcp?access_token=abc.def", "/mcp?access_token=***"),
        ("/mcp?x=1&id_token=a&api_key=b&code=c", "/mcp?x=1&id_token=***&api_key=***&code=***"),
        ("/mcp?eyJhbGciOiJSUzI1NiJ9.e30.sig", "/mcp?***"),
    ],
)
def test_the_access_log_shows_no_secret_query_value(target: str, shown: str) -> None:
    assert redacted(target) == shown
