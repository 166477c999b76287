"""What a client is told: protected resource metadata (RFC 9728) and the 401/403
``WWW-Authenticate: Bearer`` challenges (RFC 6750 section 3) that point at it."""

from __future__ import annotations

from typing import Any

from .settings import AuthSettings


def resource_metadata(settings: AuthSettings, scopes_supported: list[str]) -> dict[str, Any]:
    document: dict[str, Any] = {
        "resource": settings.resource,
        "authorization_servers": list(settings.issuers),
        "bearer_methods_supported": ["header"],
    }
    if scopes_supported:
        document["scopes_supported"] = scopes_supported
    return document


def challenge(
    settings: AuthSettings,
    scopes: tuple[str, ...],
    error: str | None = None,
    description: str | None = None,
) -> bytes:
    """The header value. ``scopes``: every scope the request at hand needs, so a client
    asks for all of them at once (including a tool's own, not only the base scope)."""
    parts = []
    if error is not None:
        parts.append(f'error="{error}"')
    if description is not None:
        parts.append(f'error_description="{_quoted(description)}"')
    if scopes:
        parts.append(f'scope="{" ".join(scopes)}"')
    parts.append(f'resource_metadata="{settings.metadata_url}"')
    return ("Bearer " + ", ".join(parts)).encode("ascii", "replace")


def _quoted(text: str) -> str:
    # A quoted-string (RFC 9110 5.6.4) of visible ASCII: no quote, backslash or control.
    return "".join(c if 0x20 <= ord(c) < 0x7F and c not in '"\\' else "?" for c in text)
