"""The document's ``securitySchemes`` -> credentials the generated call reads from
environment variables (never from the MCP client: the MCP authorization spec forbids
passing the client's token through to an upstream API)."""

from __future__ import annotations

import re
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, pointer_join, warning
from mcp_schemagen.openapi.operations import Operation


def env_name(api: str, *parts: str) -> str:
    return re.sub(r"[^A-Z0-9_]+", "_", "_".join((api, *parts)).upper()).strip("_")


def _credential(
    api: str, name: str, scheme: dict[str, Any], scopes: list[str]
) -> dict[str, Any] | str:
    """The credential, or why it cannot be had from the environment."""
    kind = scheme.get("type")
    if kind == "apiKey" and scheme.get("in") in ("header", "query", "cookie"):
        return {"type": "apiKey", "in": scheme["in"], "name": str(scheme.get("name", "")),
                "env": [env_name(api, name)]}  # fmt: skip
    if kind == "http" and str(scheme.get("scheme", "")).lower() == "bearer":
        return {"type": "bearer", "env": [env_name(api, name, "token")]}
    if kind == "http" and str(scheme.get("scheme", "")).lower() == "basic":
        return {"type": "basic", "env": [env_name(api, name, "username"),
                                         env_name(api, name, "password")]}  # fmt: skip
    flows = scheme.get("flows") if kind == "oauth2" else None
    client = flows.get("clientCredentials") if isinstance(flows, dict) else None
    if isinstance(client, dict) and isinstance(client.get("tokenUrl"), str):
        return {"type": "oauth2", "tokenUrl": client["tokenUrl"], "scopes": scopes,
                "env": [env_name(api, name, "client_id"),
                        env_name(api, name, "client_secret")]}  # fmt: skip
    if kind == "oauth2":
        return "only the OAuth 2 client credentials flow can run without a user"
    return f"{kind!r} credentials are not supported"


def operation_security(
    api: str, document: dict[str, Any], op: Operation, label: str
) -> tuple[list[list[dict[str, Any]]], list[Diagnostic]]:
    """The alternatives the call tries in order (the first whose env vars are all set)."""
    components = document.get("components")
    schemes = components.get("securitySchemes", {}) if isinstance(components, dict) else {}
    schemes = schemes if isinstance(schemes, dict) else {}
    requirements = op.operation.get("security", document.get("security", []))
    warnings: list[Diagnostic] = []
    alternatives: list[list[dict[str, Any]]] = []
    for requirement in requirements if isinstance(requirements, list) else []:
        if not isinstance(requirement, dict):
            continue
        alternative: list[dict[str, Any]] = []
        usable = True
        for name, scopes in requirement.items():
            scheme = schemes.get(name)
            at = pointer_join("/components/securitySchemes", name)
            if not isinstance(scheme, dict):
                warnings.append(warning(label, at, f"security scheme {name!r} is not defined"))
                usable = False
                break
            wanted = [str(s) for s in scopes] if isinstance(scopes, list) else []
            credential = _credential(api, name, scheme, wanted)
            if isinstance(credential, str):
                # The same words for every operation: the import says them once.
                warnings.append(
                    warning(
                        label,
                        at,
                        f"{credential}; the operations that accept {name!r} are imported "
                        "without it (supply such a credential in their handlers)",
                    )
                )
                usable = False
                break
            alternative.append(credential)
        if usable:
            alternatives.append(alternative)
    return alternatives, warnings
