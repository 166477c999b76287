"""HTTP header rules of the MCP endpoint: allow-lists, content negotiation, and the
2026-07-28 request metadata headers (``Mcp-Name``, ``Mcp-Param-*`` and their
``=?base64?…?=`` form) compared with the body they mirror."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple
from urllib.parse import urlsplit

_B64_START = "=?base64?"
_B64_END = "?="
MAX_SAFE_INTEGER = 2**53 - 1


def host_allowed(host: str, allowed: Sequence[str]) -> bool:
    """Whether a Host header value (``name`` or ``name:port``) is on the allow-list; a
    list entry without a port allows every port of that name."""
    if "*" in allowed:
        return True
    if host in allowed:
        return True
    name = _host_name(host)
    return name in allowed


def origin_allowed(origin: str, hosts: Sequence[str], origins: Sequence[str]) -> bool:
    """Whether a present Origin is acceptable: listed, or naming an allowed host (a page
    served by this very server), never the literal ``null`` of sandboxed documents."""
    if "*" in origins or origin in origins:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    return "*" not in hosts and host_allowed(parts.netloc, hosts)


def _host_name(host: str) -> str:
    if host.startswith("["):  # [::1]:8000
        end = host.find("]")
        return host[: end + 1] if end > 0 else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def media_types(accept: str) -> set[str]:
    """The media types an Accept header lists (parameters and q-values dropped;
    ``q=0`` means "not acceptable", so those are left out)."""
    types = set()
    for item in accept.split(","):
        kind, *params = item.split(";")
        if any(p.strip().replace(" ", "") in ("q=0", "q=0.0", "q=0.00", "q=0.000") for p in params):
            continue
        kind = kind.strip().lower()
        if kind:
            types.add(kind)
    return types


def accepts(accept: str | None) -> tuple[bool, bool]:
    """(JSON acceptable, SSE acceptable); no Accept header accepts both."""
    if accept is None:
        return True, True
    types = media_types(accept)
    anything = "*/*" in types
    return (
        anything or "application/json" in types or "application/*" in types,
        anything or "text/event-stream" in types or "text/*" in types,
    )


def decode_value(raw: str) -> str | None:
    """A metadata header's value as the client meant it: the ``=?base64?…?=`` form
    decoded (UTF-8), any other value as it is when it holds only visible ASCII, space and
    tab; None for a value with other characters or broken base64."""
    if raw.startswith(_B64_START) and raw.endswith(_B64_END) and len(raw) >= 11:
        try:
            return base64.b64decode(raw[len(_B64_START) : -len(_B64_END)], validate=True).decode()
        except (binascii.Error, ValueError):
            return None
    if all(ch == "\t" or " " <= ch <= "~" for ch in raw):
        return raw
    return None


class ParamHeader(NamedTuple):
    """A tool parameter mirrored into ``Mcp-Param-<name>`` (x-mcp-header)."""

    header: str  # lower case, as ASGI gives header names: "mcp-param-region"
    name: str  # as the schema spells it
    path: tuple[str, ...]  # the chain of property names from the arguments object
    kind: str  # "string", "integer" or "boolean"


def param_headers(schema: Any) -> tuple[ParamHeader, ...]:
    """Every ``x-mcp-header`` reached from the root through ``properties`` alone (the
    only place the spec allows it; the build rejects it anywhere else)."""
    found: list[ParamHeader] = []

    def walk(node: Any, path: tuple[str, ...]) -> None:
        if not isinstance(node, Mapping):
            return
        properties = node.get("properties")
        if not isinstance(properties, Mapping):
            return
        for key, child in properties.items():
            if not isinstance(child, Mapping):
                continue
            name = child.get("x-mcp-header")
            if isinstance(name, str):
                kind = child.get("type")
                found.append(
                    ParamHeader(
                        "mcp-param-" + name.lower(),
                        name,
                        (*path, key),
                        kind if isinstance(kind, str) else "string",
                    )
                )
            walk(child, (*path, key))

    walk(schema, ())
    return tuple(found)


def param_mismatch(
    specs: Sequence[ParamHeader], headers: Mapping[str, str], arguments: Any
) -> str | None:
    """Why the ``Mcp-Param-*`` headers do not mirror the arguments, or None when they do."""
    for spec in specs:
        value = _at(arguments, spec.path)
        raw = headers.get(spec.header)
        header = f"Mcp-Param-{spec.name}"
        if value is None:
            if raw is not None:
                return f"{header} header is present but the argument is not"
            continue
        if raw is None:
            return f"{header} header is missing for argument {'.'.join(spec.path)}"
        decoded = decode_value(raw)
        if decoded is None:
            return f"{header} header value has invalid characters or encoding"
        if not _same(decoded, value):
            return f"{header} header value does not match the argument {'.'.join(spec.path)}"
    return None


def _at(arguments: Any, path: tuple[str, ...]) -> Any:
    node = arguments
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def _same(text: str, value: Any) -> bool:
    if isinstance(value, bool):
        return text == ("true" if value else "false")
    if isinstance(value, int):
        try:
            return float(text) == value  # 42.0 and 42 are the same integer
        except ValueError:
            return False
    if isinstance(value, str):
        return text == value
    return False
