"""Turning authorization on: the ``--auth-*`` options of ``python -m PACKAGE --http`` and
the guard the HTTP app builds from the environment they are written to.

Off by default over stdio and on the loopback interface. ``--http`` on any other address
refuses to start without ``--auth-issuer``/``--auth-resource`` (or the ``MCP_AUTH_*``
variables), unless ``--no-auth`` says the endpoint is meant to be open (behind a proxy
that authenticates, say).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..auth.settings import (
    ENV_DISABLED,
    ENV_JWKS_MAX_AGE,
    ENV_LIST_TOOLS,
    ENV_PLAIN_JWT_ISSUERS,
    ES_AND_RS,
    LIST_TOOLS,
    AuthConfigError,
    AuthSettings,
    check_list_tools,
    seconds,
    split,
)
from .open_access import EVERYWHERE, LoopbackOnly, announce, disabled

if TYPE_CHECKING:  # argparse: annotations only (an HTTP worker parses no options)
    import argparse

    from ..store import Store
    from .auth_guard import Guard
    from .settings import HttpSettings

_OPTIONS = ("auth_issuer", "auth_resource", "auth_scope", "auth_algorithm", "auth_leeway",
            "auth_introspection_url", "auth_list_tools", "auth_jwks_max_age", "auth_plain_jwt_issuer")  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "authorization (with --http; OAuth 2.1 resource server, docs/how-to/authorization.md)"
    )
    group.add_argument(
        "--auth-issuer",
        action="append",
        metavar="URL",
        help="authorization server whose access tokens are accepted (repeatable); its "
        "metadata and keys are discovered from this issuer URL",
    )
    group.add_argument(
        "--auth-resource",
        metavar="URL",
        help="this server's canonical URL, e.g. https://mcp.example.com/mcp: the audience "
        "tokens must name",
    )
    group.add_argument(
        "--auth-scope",
        action="append",
        metavar="SCOPE",
        help="scope every request needs (repeatable); tools may declare more",
    )
    group.add_argument(
        "--auth-algorithm",
        action="append",
        metavar="ALG",
        help=f"accepted JWT signature algorithm (repeatable; default {', '.join(ES_AND_RS)})",
    )
    group.add_argument(
        "--auth-leeway", type=float, metavar="SECONDS", help="clock skew allowed (default 30)"
    )
    group.add_argument(
        "--auth-plain-jwt-issuer",
        action="append",
        metavar="URL",
        help="accept this issuer's access tokens with typ JWT or no typ (repeatable; one of "
        "the --auth-issuer URLs): for providers that do not issue RFC 9068 at+jwt tokens, "
        "like Auth0, Keycloak or Entra ID; every other issuer's tokens must say at+jwt",
    )
    group.add_argument(
        "--auth-jwks-max-age",
        type=float,
        metavar="SECONDS",
        help="keep the issuers' signing keys at most this long (default 600; their "
        "Cache-Control max-age is followed below it, 5 at least): how long a key the "
        "issuer removed can still be accepted",
    )
    group.add_argument(
        "--auth-introspection-url",
        metavar="URL",
        help="check opaque tokens by RFC 7662 introspection (client credentials in "
        "MCP_AUTH_CLIENT_ID / MCP_AUTH_CLIENT_SECRET)",
    )
    group.add_argument(
        "--auth-list-tools",
        choices=LIST_TOOLS,
        help="what tools/list shows a token: 'all' tools (default) or only the 'callable' "
        "ones its scopes allow (pages cached per set of visible tools)",
    )
    group.add_argument(
        "--no-auth",
        action="store_true",
        help="serve without authorization on an address other than 127.0.0.1 (on purpose)",
    )


def configure(
    args: argparse.Namespace, cli: argparse.ArgumentParser, defaults: Mapping[str, str]
) -> None:
    """Check the options and write the settings to the environment (for the workers).
    ``defaults``: pyproject's settings, which the environment and the options override."""
    given = [name for name in _OPTIONS if getattr(args, name) is not None]
    if not args.http:
        if given or args.no_auth:
            cli.error(f"--{(given or ['no_auth'])[0].replace('_', '-')} needs --http")
        return
    if given and args.no_auth:
        cli.error("--no-auth contradicts --" + given[0].replace("_", "-"))
    if args.no_auth:
        # pyproject's settings too: served open, on purpose, on whatever --host says.
        os.environ[ENV_DISABLED] = EVERYWHERE
        return
    # --auth-list-tools alone refines the settings pyproject or the environment give.
    refines = given == ["auth_list_tools"]
    try:
        if refines:
            chosen = {**defaults, **os.environ, ENV_LIST_TOOLS: args.auth_list_tools}
            off = disabled(os.environ)
            settings = None if off else AuthSettings.from_environment(chosen)
            if settings is None:
                raise AuthConfigError(
                    "--auth-list-tools needs authorization: --auth-issuer URL --auth-resource "
                    "URL (or [tool.mcp-codegen.authorization]; docs/how-to/authorization.md)"
                )
        else:
            settings = _from_args(args, defaults) if given else _from_environment(defaults)
    except AuthConfigError as exc:
        cli.error(str(exc))
    if settings is not None:
        os.environ.update(settings.environment())
        return
    host = args.host or "127.0.0.1"
    # MCP_AUTH_DISABLED=everywhere says what --no-auth says; 1 (loopback only) does not.
    if not _loopback(host) and disabled(os.environ) != EVERYWHERE:
        cli.error(
            f"--host {host} serves other machines: configure authorization (--auth-issuer URL "
            "--auth-resource URL, see docs/how-to/authorization.md) or say --no-auth to serve "
            "every tool to anyone who can reach the port"
        )


def _from_args(args: argparse.Namespace, defaults: Mapping[str, str]) -> AuthSettings:
    if not args.auth_issuer or not args.auth_resource:
        raise AuthConfigError("authorization needs both --auth-issuer and --auth-resource")
    values: dict[str, object] = {
        "issuers": tuple(args.auth_issuer),
        "resource": args.auth_resource,
        "scopes": tuple(args.auth_scope or ()),
    }
    if args.auth_algorithm:
        values["algorithms"] = tuple(args.auth_algorithm)
    if args.auth_leeway is not None:
        values["leeway_seconds"] = args.auth_leeway
    plain = {**defaults, **os.environ}.get(ENV_PLAIN_JWT_ISSUERS)
    if args.auth_plain_jwt_issuer:
        values["plain_jwt_issuers"] = tuple(args.auth_plain_jwt_issuer)
    elif plain:
        values["plain_jwt_issuers"] = split(plain)
    # Like the listing below: a choice of this server's, not of the token's source.
    ceiling = {**defaults, **os.environ}.get(ENV_JWKS_MAX_AGE)
    if args.auth_jwks_max_age is not None:
        values["jwks_max_age_seconds"] = args.auth_jwks_max_age
    elif ceiling:
        values["jwks_max_age_seconds"] = seconds(ENV_JWKS_MAX_AGE, ceiling)
    if args.auth_introspection_url:
        values["introspection_url"] = args.auth_introspection_url
        values["client_id"] = os.environ.get("MCP_AUTH_CLIENT_ID")
        values["client_secret"] = os.environ.get("MCP_AUTH_CLIENT_SECRET")
    # A choice of listing, not of the token's source: the environment's or pyproject's
    # stands unless the option says otherwise.
    chosen = {**defaults, **os.environ}.get(ENV_LIST_TOOLS)
    if args.auth_list_tools:
        values["list_tools"] = args.auth_list_tools
    elif chosen:
        check_list_tools(ENV_LIST_TOOLS, chosen)
        values["list_tools"] = chosen
    return AuthSettings(**values)  # type: ignore[arg-type]


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _from_environment(defaults: Mapping[str, str]) -> AuthSettings | None:
    if disabled(os.environ):
        return None
    return AuthSettings.from_environment({**defaults, **os.environ})


def guard_for(
    tools: Iterable[tuple[str, Any]],
    http: HttpSettings,
    store: Store,
    defaults: Mapping[str, str] | None = None,
) -> Guard | LoopbackOnly | None:
    """The authorization guard of an HTTP endpoint serving ``tools`` (name, published
    definition), from the environment over ``defaults``; without authorization, the gate
    that serves loopback connections only, or None when it is off everywhere."""
    try:
        off = disabled(os.environ)
        settings = (
            None if off else AuthSettings.from_environment({**(defaults or {}), **os.environ})
        )
    except AuthConfigError as exc:
        raise SystemExit(f"authorization settings: {exc}") from None
    if off is not None:
        announce(off)
    if off == EVERYWHERE:
        return None
    if settings is None:
        return LoopbackOnly(
            "authorization is not configured, so only connections to a loopback address are "
            "served; configure it (--auth-issuer/--auth-resource or MCP_AUTH_ISSUERS/"
            f"MCP_AUTH_RESOURCE) or set {ENV_DISABLED}={EVERYWHERE} to serve anyone"
        )
    from .auth_guard import Guard

    return Guard(settings, tools, http, store)
