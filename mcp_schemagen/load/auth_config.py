"""``[tool.mcp-codegen.authorization]``: the generated server's authorization settings.

Read here, checked with file#/pointer errors, and written into the package's
``_authorization.py`` as the ``MCP_AUTH_*`` values they stand for: the defaults of
``python -m PACKAGE --http`` and ``PACKAGE.asgi:app``, which the environment and the
``--auth-*`` options override. Secrets (an introspection client's) never belong in
pyproject.toml: they come from the environment only.
"""

from __future__ import annotations

from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, error
from mcp_schemagen.runtime.auth import settings as env
from mcp_schemagen.runtime.auth.keys import MIN_MAX_AGE
from mcp_schemagen.runtime.auth.settings import (
    SAFE_ALGORITHMS,
    AuthConfigError,
    check_list_tools,
    check_scope_token,
    check_url,
)

KEY = "authorization"
_KEYS = (
    "issuers",
    "resource",
    "scopes",
    "algorithms",
    "leeway-seconds",
    "introspection-url",
    "list-tools",
    "jwks-max-age-seconds",
    "plain-jwt-issuers",
)
_EXAMPLE = (
    '[tool.mcp-codegen.authorization] issuers = ["https://auth.example.com/realms/mcp"], '
    'resource = "https://mcp.example.com/mcp"'
)


def parse_authorization(section: Any, where: str) -> tuple[dict[str, str], list[Diagnostic]]:
    """The settings as ``MCP_AUTH_*`` variables (empty when the table is absent)."""
    if section is None:
        return {}, []
    base = f"/tool/mcp-codegen/{KEY}"
    problems: list[Diagnostic] = []

    def bad(key: str, message: str) -> None:
        problems.append(error(where, f"{base}/{key}" if key else base, message))

    if not isinstance(section, dict):
        bad("", f"must be a table, like {_EXAMPLE}")
        return {}, problems
    for key in sorted(set(section) - set(_KEYS)):
        bad(key, f"unknown key; known keys: {', '.join(_KEYS)}")
    values: dict[str, str] = {}
    issuers = _strings(section, "issuers", bad, required=True)
    for index, issuer in enumerate(issuers):
        _checked(lambda u=issuer: check_url("issuer", u), f"issuers/{index}", bad)
    values[env.ENV_ISSUERS] = ",".join(issuers)
    resource = section.get("resource")
    if not isinstance(resource, str):
        bad("resource", "must be this server's canonical URL, like https://mcp.example.com/mcp")
    else:
        _checked(lambda: check_url("resource", resource), "resource", bad)
        values[env.ENV_RESOURCE] = resource
    scopes = _strings(section, "scopes", bad)
    for index, scope in enumerate(scopes):
        _checked(lambda s=scope: check_scope_token("scope", s), f"scopes/{index}", bad)
    if scopes:
        values[env.ENV_SCOPES] = " ".join(scopes)
    algorithms = _strings(section, "algorithms", bad)
    for index, algorithm in enumerate(algorithms):
        if algorithm not in SAFE_ALGORITHMS:
            bad(f"algorithms/{index}", f"{algorithm!r} is not accepted; use asymmetric ones: "
                + ", ".join(SAFE_ALGORITHMS))  # fmt: skip
    if algorithms:
        values[env.ENV_ALGORITHMS] = ",".join(algorithms)
    if "leeway-seconds" in section:
        leeway = section["leeway-seconds"]
        if (
            isinstance(leeway, bool)
            or not isinstance(leeway, int | float)
            or not 0 <= leeway <= 600
        ):
            bad("leeway-seconds", "must be a number of seconds from 0 to 600")
        else:
            values[env.ENV_LEEWAY] = str(float(leeway))
    if "introspection-url" in section:
        url = section["introspection-url"]
        if not isinstance(url, str):
            bad("introspection-url", "must be the RFC 7662 introspection endpoint's URL")
        else:
            _checked(lambda: check_url("introspection-url", url), "introspection-url", bad)
            values[env.ENV_INTROSPECTION] = url
    if "list-tools" in section:
        choice = section["list-tools"]
        if not isinstance(choice, str):
            bad("list-tools", 'must be "all" (every tool) or "callable" (those the token can call)')
        else:
            _checked(lambda: check_list_tools("list-tools", choice), "list-tools", bad)
            values[env.ENV_LIST_TOOLS] = choice
    if "jwks-max-age-seconds" in section:
        ceiling = section["jwks-max-age-seconds"]
        low, high = MIN_MAX_AGE, env.MAX_JWKS_MAX_AGE
        if isinstance(ceiling, bool) or not isinstance(ceiling, int | float):
            ceiling = -1
        if not low <= ceiling <= high:
            bad("jwks-max-age-seconds", f"must be a number of seconds from {low:g} to {high:g}")
        else:
            values[env.ENV_JWKS_MAX_AGE] = str(float(ceiling))
    plain = _strings(section, "plain-jwt-issuers", bad)
    for index, issuer in enumerate(plain):
        if issuer not in issuers:
            bad(f"plain-jwt-issuers/{index}", f"{issuer!r} is not one of the issuers")
    if plain:
        values[env.ENV_PLAIN_JWT_ISSUERS] = ",".join(plain)
    return (dict(sorted(values.items())) if not problems else {}), problems


def _strings(section: dict[str, Any], key: str, bad: Any, *, required: bool = False) -> list[str]:
    value = section.get(key)
    if value is None and not required:
        return []
    if not (isinstance(value, list) and value and all(isinstance(v, str) for v in value)):
        bad(key, "must be a non-empty list of strings")
        return []
    return value


def _checked(check: Any, key: str, bad: Any) -> None:
    try:
        check()
    except AuthConfigError as exc:
        bad(key, str(exc))
