"""The MCP Apps extension's ``_meta.ui`` objects, each checked on its own: a tool's
(``resourceUri``, ``visibility``) and a view's (``csp`` origins, ``domain``,
``prefersBorder``). How tools and views link up is app_checks.py's job."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from mcp_schemagen.check.near_miss import edit_distance
from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join
from mcp_schemagen.source import Source

VISIBILITIES = ("model", "app")
TOOL_UI_KEYS = ("resourceUri", "visibility")
VIEW_UI_KEYS = ("csp", "permissions", "domain", "prefersBorder")
CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
ORIGIN_SCHEMES = ("https", "http", "wss", "ws")
# A host of an origin: DNS labels, an optional leading "*." (CSP's any-subdomain), or an
# IPv4 address; a bracketed IPv6 literal is checked apart.
_HOST = re.compile(
    r"^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"
)
_ORIGIN_EXAMPLE = "https://api.example.com or https://*.example.com:8443"


def ui_of(source: Source) -> tuple[dict[str, Any] | None, str]:
    """A definition's ``_meta.ui`` (None when it has none) and its pointer."""
    meta = source.definition.get("_meta")
    where = pointer_join(source.pointer, "_meta", "ui")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    return (ui if isinstance(ui, dict) else None), where


def _unknown_keys(
    source: Source, ui: dict[str, Any], where: str, known: tuple[str, ...], what: str
) -> list[Diagnostic]:
    problems = []
    for key in ui:
        if key in known:
            continue
        close = [k for k in known if edit_distance(key, k) <= 2]
        hint = f"did you mean {close[0]!r}? " if close else ""
        problems.append(
            error(
                source.file,
                pointer_join(where, key),
                f"{key!r} is not a field of {what}; {hint}its fields are {', '.join(known)}",
            )
        )
    return problems


def not_an_object(source: Source) -> list[Diagnostic]:
    """``_meta.ui`` present but not an object."""
    meta = source.definition.get("_meta")
    if isinstance(meta, dict) and "ui" in meta and not isinstance(meta["ui"], dict):
        where = pointer_join(source.pointer, "_meta", "ui")
        return [
            error(
                source.file, where, 'must be an object, like {"resourceUri": "ui://app/view.html"}'
            )
        ]
    return []


def check_tool_ui(source: Source) -> list[Diagnostic]:
    """A tool's ``_meta.ui``: ``resourceUri`` a ``ui://`` URI, ``visibility`` a non-empty
    list of "model" and "app", each once."""
    problems = not_an_object(source)
    ui, where = ui_of(source)
    if ui is None:
        return problems
    problems += _unknown_keys(source, ui, where, TOOL_UI_KEYS, "a tool's _meta.ui")
    uri = ui.get("resourceUri")
    if "resourceUri" in ui and (not isinstance(uri, str) or not uri.startswith("ui://")):
        problems.append(
            error(
                source.file,
                pointer_join(where, "resourceUri"),
                f"must be the ui:// URI of a view (a resource of the project), got {uri!r}",
            )
        )
    if "visibility" in ui:
        problems += _visibility(source, ui["visibility"], pointer_join(where, "visibility"))
    return problems


def _visibility(source: Source, value: Any, where: str) -> list[Diagnostic]:
    allowed = ", ".join(f'"{v}"' for v in VISIBILITIES)
    if not isinstance(value, list) or not value:
        return [
            error(
                source.file,
                where,
                f'must be a non-empty list of {allowed}: ["app"] for a tool only its view '
                'calls, ["model", "app"] (the default) for both',
            )
        ]
    problems = []
    for index, item in enumerate(value):
        at = pointer_join(where, index)
        if item not in VISIBILITIES:
            problems.append(error(source.file, at, f"{item!r} is not a visibility; use {allowed}"))
        elif value.index(item) != index:
            problems.append(error(source.file, at, f"{item!r} is listed twice"))
    return problems


def check_view_ui(source: Source) -> list[Diagnostic]:
    """A view's ``_meta.ui``: its CSP domains origins, ``domain`` a string,
    ``prefersBorder`` a boolean."""
    problems = not_an_object(source)
    ui, where = ui_of(source)
    if ui is None:
        return problems
    problems += _unknown_keys(source, ui, where, VIEW_UI_KEYS, "a view's _meta.ui")
    if "prefersBorder" in ui and not isinstance(ui["prefersBorder"], bool):
        problems.append(
            error(source.file, pointer_join(where, "prefersBorder"), "must be true or false")
        )
    if "domain" in ui and (not isinstance(ui["domain"], str) or not ui["domain"]):
        problems.append(
            error(source.file, pointer_join(where, "domain"), "must be a non-empty string")
        )
    if "permissions" in ui and not isinstance(ui["permissions"], dict):
        problems.append(error(source.file, pointer_join(where, "permissions"), "must be an object"))
    if "csp" in ui:
        problems += _csp(source, ui["csp"], pointer_join(where, "csp"))
    return problems


def _csp(source: Source, csp: Any, where: str) -> list[Diagnostic]:
    if not isinstance(csp, dict):
        example = '{"connectDomains": ["https://api.example.com"]}'
        return [error(source.file, where, f"must be an object of domain lists, like {example}")]
    problems = _unknown_keys(source, csp, where, CSP_KEYS, "_meta.ui.csp")
    for key in CSP_KEYS:
        if key not in csp:
            continue
        domains = csp[key]
        at = pointer_join(where, key)
        if not isinstance(domains, list):
            problems.append(
                error(
                    source.file,
                    at,
                    f'must be a list of origins, like ["{_ORIGIN_EXAMPLE.split(" ")[0]}"]',
                )
            )
            continue
        for index, domain in enumerate(domains):
            reason = origin_problem(domain)
            if reason is not None:
                problems.append(
                    error(
                        source.file,
                        pointer_join(at, index),
                        f"{domain!r} is not an origin ({reason}); write scheme://host[:port], "
                        f"like {_ORIGIN_EXAMPLE}",
                    )
                )
    return problems


def origin_problem(value: Any) -> str | None:
    """Why ``value`` is not an origin a host can put in a CSP source list, or None."""
    if not isinstance(value, str):
        return f"{type(value).__name__} is not a string"
    if "://" not in value:
        return "no scheme"
    scheme, _, rest = value.partition("://")
    if scheme not in ORIGIN_SCHEMES:
        return f"the scheme is {scheme!r}, not one of {', '.join(ORIGIN_SCHEMES)}"
    if not rest:
        return "no host"
    if any(c in rest for c in "/?#"):
        return "an origin has no path, query or fragment"
    if "@" in rest:
        return "an origin has no user name or password"
    host = rest
    if host.startswith("["):  # an IPv6 literal
        host, _, port = host[1:].partition("]")
        if not host or (port and not port.startswith(":")):
            return "a malformed IPv6 address"
        port = port[1:]
    else:
        host, _, port = host.partition(":")
        if not _HOST.match(host.lower()):
            return f"{host!r} is not a host name"
    if port and (not port.isdigit() or not 0 < int(port) < 65536):
        return f"{port!r} is not a port"
    try:
        urlsplit(value)
    except ValueError as exc:
        return str(exc)
    return None
