"""Authorization settings, from the command line or the environment.

Like the HTTP settings, ``python -m PACKAGE --http`` writes its ``--auth-*`` options into
the environment (``MCP_AUTH_*``) before the workers start, so every worker and any other
ASGI server importing ``PACKAGE.asgi:app`` reads the same ones.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from .keys import DEFAULT_MAX_AGE, MIN_MAX_AGE

ENV_ISSUERS = "MCP_AUTH_ISSUERS"
ENV_RESOURCE = "MCP_AUTH_RESOURCE"
ENV_SCOPES = "MCP_AUTH_SCOPES"
ENV_ALGORITHMS = "MCP_AUTH_ALGORITHMS"
ENV_LEEWAY = "MCP_AUTH_LEEWAY_SECONDS"
ENV_INTROSPECTION = "MCP_AUTH_INTROSPECTION_URL"
ENV_CLIENT_ID = "MCP_AUTH_CLIENT_ID"
ENV_CLIENT_SECRET = "MCP_AUTH_CLIENT_SECRET"
ENV_TIMEOUT = "MCP_AUTH_FETCH_TIMEOUT_SECONDS"
ENV_DISABLED = "MCP_AUTH_DISABLED"
ENV_LIST_TOOLS = "MCP_AUTH_LIST_TOOLS"
ENV_JWKS_MAX_AGE = "MCP_AUTH_JWKS_MAX_AGE_SECONDS"
ENV_PLAIN_JWT_ISSUERS = "MCP_AUTH_PLAIN_JWT_ISSUERS"
MAX_JWKS_MAX_AGE = 86400.0  # a day: longer, a removed key would outlive most rotations

# What tools/list shows an authorized client: every tool, or only those its token's
# scopes allow it to call (README: Deployment, Authorization).
LIST_TOOLS = ("all", "callable")

# Asymmetric signatures only: an HS* algorithm would let anyone holding the public key
# (which the JWKS publishes) sign tokens.
SAFE_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384")
ES_AND_RS = ("RS256", "ES256")


class AuthConfigError(ValueError):
    """A setting that cannot work; the message names the option and how to fix it."""


@dataclass(frozen=True)
class AuthSettings:
    """``issuers``: the authorization servers whose tokens are accepted (their metadata
    and JWKS are discovered from the issuer URL). ``resource``: this server's canonical
    URL, the audience tokens must name. ``scopes``: required of every request.
    ``introspection_url``: check opaque tokens by RFC 7662 instead of as JWTs.
    ``list_tools``: "all" tools in tools/list, or only those the token can "callable".
    ``jwks_max_age_seconds``: the longest the issuers' keys are kept (their
    ``Cache-Control: max-age`` is followed below it): how long a key an issuer removed can
    still be accepted. ``plain_jwt_issuers``: issuers (of ``issuers``) whose access
    tokens have ``typ: JWT`` or no ``typ``; every other issuer's must say ``at+jwt``
    (RFC 9068 section 4)."""

    issuers: tuple[str, ...]
    resource: str
    scopes: tuple[str, ...] = ()
    algorithms: tuple[str, ...] = ES_AND_RS
    leeway_seconds: float = 30.0
    introspection_url: str | None = None
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)  # never in a log line
    fetch_timeout_seconds: float = 5.0
    list_tools: str = "all"
    jwks_max_age_seconds: float = DEFAULT_MAX_AGE
    plain_jwt_issuers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_list_tools("--auth-list-tools", self.list_tools)
        if not self.issuers:
            raise AuthConfigError("--auth-issuer: name at least one authorization server")
        for issuer in self.issuers:
            check_url("--auth-issuer", issuer)
        check_url("--auth-resource", self.resource)
        if urlsplit(self.resource).fragment:
            raise AuthConfigError("--auth-resource: a resource identifier has no #fragment")
        for algorithm in self.algorithms:
            if algorithm not in SAFE_ALGORITHMS:
                raise AuthConfigError(
                    f"--auth-algorithm {algorithm!r} is not accepted; use asymmetric ones: "
                    + ", ".join(SAFE_ALGORITHMS)
                )
        if not self.algorithms:
            raise AuthConfigError("--auth-algorithm: name at least one")
        for scope in self.scopes:
            check_scope_token("--auth-scope", scope)
        if self.leeway_seconds < 0 or self.leeway_seconds > 600:
            raise AuthConfigError("--auth-leeway: seconds between 0 and 600")
        if self.introspection_url is not None:
            check_url("--auth-introspection-url", self.introspection_url)
        for issuer in self.plain_jwt_issuers:
            if issuer not in self.issuers:
                raise AuthConfigError(
                    f"--auth-plain-jwt-issuer {issuer!r} is not one of the issuers "
                    f"(--auth-issuer): {', '.join(self.issuers)}"
                )
        if not MIN_MAX_AGE <= self.jwks_max_age_seconds <= MAX_JWKS_MAX_AGE:
            raise AuthConfigError(
                f"--auth-jwks-max-age: seconds between {MIN_MAX_AGE:g} and {MAX_JWKS_MAX_AGE:g}"
            )

    @property
    def metadata_path(self) -> str:
        """Where this resource's metadata is served (RFC 9728 section 3.1): the well-known
        prefix inserted before the resource's path."""
        path = urlsplit(self.resource).path.rstrip("/")
        return "/.well-known/oauth-protected-resource" + path

    @property
    def metadata_url(self) -> str:
        parts = urlsplit(self.resource)
        return f"{parts.scheme}://{parts.netloc}{self.metadata_path}"

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> AuthSettings | None:
        """The settings the environment names, or None when authorization is off."""
        env = os.environ if environ is None else environ
        if not env.get(ENV_ISSUERS) and not env.get(ENV_RESOURCE):
            return None
        if not env.get(ENV_RESOURCE):
            raise AuthConfigError(f"{ENV_ISSUERS} is set but {ENV_RESOURCE} is not")
        values: dict[str, object] = {
            "issuers": split(env.get(ENV_ISSUERS, "")),
            "resource": env[ENV_RESOURCE],
            "scopes": tuple(env.get(ENV_SCOPES, "").split()),
        }
        if env.get(ENV_ALGORITHMS):
            values["algorithms"] = split(env[ENV_ALGORITHMS])
        if env.get(ENV_LEEWAY):
            values["leeway_seconds"] = float(env[ENV_LEEWAY])
        if env.get(ENV_TIMEOUT):
            values["fetch_timeout_seconds"] = float(env[ENV_TIMEOUT])
        if env.get(ENV_JWKS_MAX_AGE):
            values["jwks_max_age_seconds"] = seconds(ENV_JWKS_MAX_AGE, env[ENV_JWKS_MAX_AGE])
        if env.get(ENV_PLAIN_JWT_ISSUERS):
            values["plain_jwt_issuers"] = split(env[ENV_PLAIN_JWT_ISSUERS])
        if env.get(ENV_LIST_TOOLS):
            check_list_tools(ENV_LIST_TOOLS, env[ENV_LIST_TOOLS])
            values["list_tools"] = env[ENV_LIST_TOOLS]
        for key, name in (
            (ENV_INTROSPECTION, "introspection_url"),
            (ENV_CLIENT_ID, "client_id"),
            (ENV_CLIENT_SECRET, "client_secret"),
        ):
            if env.get(key):
                values[name] = env[key]
        return cls(**values)  # type: ignore[arg-type]

    def environment(self) -> dict[str, str]:
        """These settings as the variables ``from_environment`` reads."""
        env = {
            ENV_ISSUERS: ",".join(self.issuers),
            ENV_RESOURCE: self.resource,
            ENV_SCOPES: " ".join(self.scopes),
            ENV_ALGORITHMS: ",".join(self.algorithms),
            ENV_LEEWAY: str(self.leeway_seconds),
            ENV_TIMEOUT: str(self.fetch_timeout_seconds),
            ENV_LIST_TOOLS: self.list_tools,
            ENV_JWKS_MAX_AGE: str(self.jwks_max_age_seconds),
            ENV_PLAIN_JWT_ISSUERS: ",".join(self.plain_jwt_issuers),
        }
        for key, value in (
            (ENV_INTROSPECTION, self.introspection_url),
            (ENV_CLIENT_ID, self.client_id),
            (ENV_CLIENT_SECRET, self.client_secret),
        ):
            if value is not None:
                env[key] = value
        return env


def split(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def seconds(name: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise AuthConfigError(f"{name}={value!r}: not a number of seconds") from None


def check_list_tools(option: str, value: str) -> None:
    if value not in LIST_TOOLS:
        raise AuthConfigError(
            f"{option} {value!r} is not a choice: 'all' lists every tool, 'callable' only "
            "those the token's scopes allow it to call"
        )


def check_scope_token(option: str, scope: str) -> None:
    """RFC 6749 section 3.3: a scope token is one or more of %x21 / %x23-5B / %x5D-7E."""
    if not scope or any(not (0x21 <= ord(c) <= 0x7E) or c in '"\\' for c in scope):
        raise AuthConfigError(
            f"{option} {scope!r} is not a scope token (printable ASCII without space, "
            "double quote or backslash, RFC 6749 section 3.3)"
        )


def check_url(option: str, url: str) -> None:
    parts = urlsplit(url)
    local = parts.hostname in ("127.0.0.1", "localhost", "::1")
    if parts.scheme != "https" and not (parts.scheme == "http" and local):
        raise AuthConfigError(
            f"{option} {url!r} must be an https:// URL (http:// only for 127.0.0.1/localhost)"
        )
    if not parts.netloc or parts.query:
        raise AuthConfigError(f"{option} {url!r} must be an absolute URL without a query")
