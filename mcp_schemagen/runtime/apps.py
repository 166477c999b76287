"""The MCP Apps extension (``io.modelcontextprotocol/ui``, SEP-1865) at run time: which
tools the model's ``tools/list`` shows, and whether the server has views to declare.

A tool names its view in ``_meta.ui.resourceUri`` and who may call it in
``_meta.ui.visibility`` (``"model"``, ``"app"``; both when absent); a view is a resource
whose ``mimeType`` is the extension's. Both are read from what the generator published,
so the runtime needs no table of its own (docs/how-to/apps.md)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

EXTENSION = "io.modelcontextprotocol/ui"
VIEW_MIME_TYPE = "text/html;profile=mcp-app"


def _ui_of(definition: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = definition.get("_meta")
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    return ui if isinstance(ui, Mapping) else {}


def app_only(published: Mapping[str, Mapping[str, Any]]) -> bool:
    """Whether a tool is for its view alone (``visibility`` without ``"model"``), as any
    revision publishes it: such a tool is left out of tools/list in every revision, even
    those that do not publish ``_meta``, since the model must not see it there either."""
    for definition in published.values():
        visibility = _ui_of(definition).get("visibility")
        if isinstance(visibility, list) and "model" not in visibility:
            return True
    return False


def has_views(mime_types: Iterable[str | None]) -> bool:
    """Whether any resource (by its ``mimeType``) is a view of the extension."""
    return any(mime_type == VIEW_MIME_TYPE for mime_type in mime_types)


def declare(capabilities: dict[str, Any]) -> dict[str, Any]:
    """``capabilities`` with the extension added to its ``extensions`` (kept beside any
    other extension, such as tasks'): ``{"mimeTypes": ["text/html;profile=mcp-app"]}``."""
    extensions = dict(capabilities.get("extensions") or {})
    extensions[EXTENSION] = {"mimeTypes": [VIEW_MIME_TYPE]}
    return {**capabilities, "extensions": extensions}


def with_view_meta(
    contents: list[dict[str, Any]], uri: str, published: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """A view's reader's items with the view's ``_meta.ui`` (CSP, border) added to those
    of its own URI that carry no ``_meta``, as a view read from its file has it: hosts
    read it from the contents item. Revisions without ``_meta`` on contents drop it."""
    ui = next((_ui_of(d) for d in published.values() if _ui_of(d)), None)
    if ui is None:
        return contents
    return [
        {**item, "_meta": {"ui": dict(ui)}}
        if item.get("uri") == uri and "_meta" not in item
        else item
        for item in contents
    ]
