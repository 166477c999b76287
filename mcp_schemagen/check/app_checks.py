"""The MCP Apps extension (``io.modelcontextprotocol/ui``) checked across kinds: every
tool that names a view (``_meta.ui.resourceUri``) names a static resource of the project
served as a view, every view is named by a tool, a view's content file stays under
``MAX_VIEW_BYTES``, and the link is published by some targeted revision
(docs/how-to/apps.md; each object's own fields: app_meta_checks.py)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from mcp_schemagen.check.app_meta_checks import check_tool_ui, check_view_ui, ui_of
from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join, warning
from mcp_schemagen.load.config import Config
from mcp_schemagen.load.resource_content import content_path
from mcp_schemagen.runtime.apps import VIEW_MIME_TYPE
from mcp_schemagen.runtime.protocol import BY_NAME
from mcp_schemagen.runtime.resources.table import FILE_KEY
from mcp_schemagen.source import Source

# A view is one HTML document with its scripts and styles inlined (hosts load nothing
# else unless its CSP names an origin); 2 MiB holds a bundled React view several times
# over while keeping each resources/read, and the _dispatch module that ships it, small.
MAX_VIEW_BYTES = 2 * 1024 * 1024
VIEW_SCHEME = "ui://"
LEGACY_KEY = "ui/resourceUri"  # the deprecated flat form of _meta.ui.resourceUri


def is_view(source: Source) -> bool:
    """A resource or template the extension would render: a ui:// URI or the view type."""
    definition = source.definition
    uri = definition.get("uri", definition.get("uriTemplate"))
    return (isinstance(uri, str) and uri.startswith(VIEW_SCHEME)) or definition.get(
        "mimeType"
    ) == VIEW_MIME_TYPE


def view_uri(source: Source) -> tuple[str | None, str]:
    """The view a tool names, if it names one, and where: ``_meta.ui.resourceUri``, or
    the extension's deprecated flat key ``_meta["ui/resourceUri"]`` (hosts read both)."""
    ui, where = ui_of(source)
    uri = ui.get("resourceUri") if ui is not None else None
    if isinstance(uri, str):
        return uri, pointer_join(where, "resourceUri")
    meta = source.definition.get("_meta")
    legacy = meta.get(LEGACY_KEY) if isinstance(meta, dict) else None
    at = pointer_join(source.pointer, "_meta", LEGACY_KEY)
    return (legacy if isinstance(legacy, str) else None), at


def _legacy_key(tool: Source) -> list[Diagnostic]:
    meta = tool.definition.get("_meta")
    if not isinstance(meta, dict) or LEGACY_KEY not in meta:
        return []
    return [
        warning(
            tool.file,
            pointer_join(tool.pointer, "_meta", LEGACY_KEY),
            f'{LEGACY_KEY!r} is the extension\'s deprecated form; write "_meta": {{"ui": '
            '{"resourceUri": ...}} (hosts read both, newer ones only that)',
        )
    ]


def check_apps(config: Config, sources: Sequence[Source]) -> list[Diagnostic]:
    tools = [s for s in sources if s.kind == "tool"]
    views = [s for s in sources if s.kind in ("resource", "resource template") and is_view(s)]
    problems = [p for tool in tools for p in check_tool_ui(tool)]
    for view in views:
        problems += check_view_ui(view)
        problems += _view_itself(config, view)
    by_uri = {v.definition["uri"]: v for v in views if isinstance(v.definition.get("uri"), str)}
    named: set[str] = set()
    for tool in tools:
        problems += _legacy_key(tool)
        uri, at = view_uri(tool)
        if uri is None or not uri.startswith(VIEW_SCHEME):
            continue
        named.add(uri)
        if uri not in by_uri:
            problems.append(_missing_view(tool, at, uri, sorted(by_uri)))
        elif not any("_meta" in BY_NAME[r].tool_fields for r in config.revisions):
            problems.append(
                error(
                    tool.file,
                    at,
                    "none of the targeted revisions publishes a tool's _meta, so no host "
                    "would find this view; target 2025-06-18 or newer",
                )
            )
    for uri, view in by_uri.items():
        if uri not in named:
            problems.append(
                error(
                    view.file,
                    pointer_join(view.pointer, "uri"),
                    f"no tool names the view {uri!r}, so no host would show it; name it in "
                    f'a tool\'s "_meta": {{"ui": {{"resourceUri": "{uri}"}}}} or remove it',
                )
            )
    return problems


def _missing_view(tool: Source, at: str, uri: str, known: list[str]) -> Diagnostic:
    close = difflib.get_close_matches(uri, known, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return error(
        tool.file,
        at,
        f"no view {uri!r} in the project's resources; {hint}add a resource with that uri, "
        f'mimeType "{VIEW_MIME_TYPE}" and its HTML file under {FILE_KEY}',
    )


def _view_itself(config: Config, view: Source) -> list[Diagnostic]:
    """A view's own URI, type and file: static, ui://, the extension's type, in size."""
    definition = view.definition
    if "uriTemplate" in definition:
        return [
            error(
                view.file,
                pointer_join(view.pointer, "uriTemplate"),
                "a view is a static resource: give it a fixed ui:// uri, not a template",
            )
        ]
    problems = []
    uri = definition.get("uri")
    if isinstance(uri, str) and not uri.startswith(VIEW_SCHEME):
        problems.append(
            error(
                view.file,
                pointer_join(view.pointer, "uri"),
                f"a resource of type {VIEW_MIME_TYPE!r} is a view, whose uri uses the ui:// "
                f"scheme; write ui://…, not {uri!r}",
            )
        )
    mime_type = definition.get("mimeType")
    if mime_type != VIEW_MIME_TYPE:
        where = "mimeType" if "mimeType" in definition else ""
        problems.append(
            error(
                view.file,
                pointer_join(view.pointer, where) if where else view.pointer,
                f"a view's mimeType must be {VIEW_MIME_TYPE!r} (the extension's HTML profile), "
                f"got {mime_type!r}",
            )
        )
    if FILE_KEY in definition:
        path, _ = content_path(config.root, view)  # its other problems: resource_checks
        if path is not None and path.stat().st_size > MAX_VIEW_BYTES:
            problems.append(
                error(
                    view.file,
                    pointer_join(view.pointer, FILE_KEY),
                    f"the view is {path.stat().st_size} bytes, over the {MAX_VIEW_BYTES} "
                    "(2 MiB) a view may have; load large assets from an origin its "
                    "_meta.ui.csp.resourceDomains names, or minify the bundle",
                )
            )
    return problems
