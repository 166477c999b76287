"""HTTP header rules of the MCP endpoint: allow-lists, content negotiation, and the
2026-07-28 request metadata headers (``Mcp-Name``, ``Mcp-Param-*`` and their
``=?base64?…?=`` form) compared with the body they mirror."""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

_B64_START = "=?base64?"
_B64_END = "?="
MAX_SAFE_INTEGER = 2**53 - 1


# Decoded header fields by their raw (name, value): a keep-alive client sends the same
# Host, Accept, Content-Type, session id... on every request. Bounded in entries and in
# the length of what is kept, so unique values (a body's Content-Length, a token) cost a
# lookup and at worst a clearing, never memory.
_DECODED: dict[tuple[bytes, bytes], tuple[str, str]] = {}
_DECODED_MAX_ENTRIES = 1024
_DECODED_MAX_VALUE = 256


def decode_headers(raw: Iterable[Sequence[bytes]]) -> dict[str, str]:
    """An ASGI scope's header list as ``{lower-case name: value}`` (the last of repeated
    names), each value without the optional whitespace around it (RFC 9110 5.5; not
    every ASGI server strips it)."""
    headers: dict[str, str] = {}
    cache = _DECODED
    for name, value in raw:
        key = (name, value)
        try:
            decoded = cache.get(key)
            keep = len(value) <= _DECODED_MAX_VALUE
        except TypeError:  # a server's bytearray: decoded, not kept
            decoded = None
            keep = False
        if decoded is None:
            decoded = (bytes(name).decode("latin-1"), bytes(value).decode("latin-1").strip(" \t"))
            if keep:
                if len(cache) >= _DECODED_MAX_ENTRIES:
                    cache.clear()
                cache[key] = decoded
        headers[decoded[0]] = decoded[1]
    return headers


def host_allowed(host: str, allowed: Sequence[str]) -> bool:
    """Whether a Host header value (``name`` or ``name:port``) is on the allow-list; a
    list entry without a port allows every port of that name. The value must be one
    RFC 3986 authority without userinfo (a reg-name, IPv4 address or bracketed IPv6
    address, then an optional port of digits): anything else no browser sends, so it is
    refused, even where ``*`` allows every name."""
    parsed = parse_authority(host)
    if parsed is None:
        return False
    if "*" in allowed:
        return True
    name, port = parsed
    for entry in allowed:
        wanted = parse_authority(entry)
        if wanted is not None and wanted[0] == name and wanted[1] in (None, port):
            return True
    return False


def origin_allowed(origin: str, hosts: Sequence[str], origins: Sequence[str]) -> bool:
    """Whether a present Origin is acceptable: listed, or naming an allowed host (a page
    served by this very server), never the literal ``null`` of sandboxed documents unless
    listed. The value must be an RFC 6454 serialization: ``scheme://host[:port]``, with no
    userinfo, path, query or fragment."""
    if origin in origins and (origin == "null" or parse_origin(origin) is not None):
        return True
    parsed = parse_origin(origin)
    if parsed is None:
        return False
    if "*" in origins:
        return True
    scheme, authority = parsed
    if scheme not in ("http", "https"):
        return False
    return "*" not in hosts and host_allowed(authority, hosts)


_REG_NAME = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?")
_PORT = re.compile(r"[0-9]{1,5}")
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")


# Every request's Host (and the allow-list's entries) are parsed: a client sends the same
# few values again and again, so the answers are kept (a bounded number: the values are
# the client's to choose).
@lru_cache(maxsize=512)
def parse_authority(value: str) -> tuple[str, int | None] | None:
    """(lower-case host, port or None) of ``host[:port]``, or None when the value is not
    exactly one such authority (userinfo, a path, a list, spaces, a bad port or host)."""
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        literal, rest = value[1:end], value[end + 1 :]
        try:
            address = ipaddress.IPv6Address(literal)
        except ValueError:
            return None
        if address.scope_id is not None:  # a zone id: no browser sends one
            return None
        name = f"[{address.compressed}]"
    else:
        name, colon, port_text = value.partition(":")
        rest = colon + port_text
        if not _REG_NAME.fullmatch(name) or (_looks_numeric(name) and not _is_ipv4(name)):
            return None
        name = name.lower()
    if not rest:
        return name, None
    if rest[0] != ":" or not _PORT.fullmatch(rest[1:]) or int(rest[1:]) > 65535:
        return None
    return name, int(rest[1:])


def parse_origin(value: str) -> tuple[str, str] | None:
    """(scheme, authority) of an RFC 6454 origin serialization, or None."""
    scheme, separator, authority = value.partition("://")
    if not separator or not _SCHEME.fullmatch(scheme) or parse_authority(authority) is None:
        return None
    return scheme, authority


def _looks_numeric(name: str) -> bool:
    # A host of digits and dots is an IPv4 address or nothing (RFC 3986 3.2.2).
    return all(part.isdigit() for part in name.rstrip(".").split("."))


def _is_ipv4(name: str) -> bool:
    try:
        ipaddress.IPv4Address(name)
    except ValueError:
        return False
    return True


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


@lru_cache(maxsize=256)  # as parse_authority: clients repeat the same Accept value
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
