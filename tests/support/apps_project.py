"""A small MCP Apps project for the tests: a counter tool that names its view, a tool
only the view calls, the view (an HTML file) as a resource, and handlers that record on
the server's side which calls reached them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.projects import run_cli, write_project

VIEW_URI = "ui://counter/view.html"
VIEW_MIME = "text/html;profile=mcp-app"
PACKAGE = "counter_server"

SHOW = {
    "name": "show_counter",
    "description": "Show the counter in its view.",
    "inputSchema": {
        "type": "object",
        "properties": {"start": {"type": "integer", "description": "The first value."}},
        "required": ["start"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {
            "value": {"type": "integer"},
            "label": {"type": "string", "enum": ["low", "high"]},
        },
        "required": ["value"],
    },
    "_meta": {"ui": {"resourceUri": VIEW_URI}},
}
INCREMENT = {
    "name": "increment",
    "description": "Add one to the counter (the view's button).",
    "inputSchema": {
        "type": "object",
        "properties": {"value": {"type": "integer"}, "note": {"type": ["string", "null"]}},
        "required": ["value"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {"value": {"type": "integer"}},
        "required": ["value"],
    },
    "_meta": {"ui": {"resourceUri": VIEW_URI, "visibility": ["app"]}},
}
VIEW = {
    "uri": VIEW_URI,
    "name": "counter-view",
    "description": "The counter, with a button.",
    "mimeType": VIEW_MIME,
    "x-mcp-codegen-file": "views/counter.html",
    "_meta": {
        "ui": {
            "csp": {"connectDomains": ["https://api.example.com"]},
            "prefersBorder": True,
        }
    },
}
HTML = """<!doctype html>
<html><head><meta charset="utf-8"><title>Counter</title></head>
<body><p id="value">…</p><button id="plus">+1</button></body></html>
"""
# The handlers a build leaves as stubs, written as a user would: each call appends a line
# to calls.log beside the package, so a test asserts on the server's side what arrived.
HANDLERS = """
import json as _json
from pathlib import Path as _Path

_LOG = _Path(__file__).resolve().parent.parent / "calls.log"


def _record(name: str, arguments: dict[str, object]) -> None:
    with _LOG.open("a", encoding="utf-8") as log:
        log.write(_json.dumps({"tool": name, "arguments": arguments}) + "\\n")
"""


def write_apps_project(
    root: Path,
    *,
    revisions: tuple[str, ...] = ("2026-07-28",),
    tools: dict[str, Any] | None = None,
    views: Any = None,
    html: str | bytes = HTML,
) -> Path:
    """The project (not built): its tool files, resources/views.json and the HTML."""
    chosen = {"show_counter.json": SHOW, "increment.json": INCREMENT} if tools is None else tools
    write_project(root, chosen, package=PACKAGE, revisions=revisions)
    (root / "resources").mkdir(exist_ok=True)
    (root / "resources" / "views.json").write_text(
        json.dumps([VIEW] if views is None else views, indent=2), encoding="utf-8"
    )
    (root / "views").mkdir(exist_ok=True)
    target = root / "views" / "counter.html"
    if isinstance(html, bytes):
        target.write_bytes(html)
    else:
        target.write_text(html, encoding="utf-8")
    return root


def build_apps_project(root: Path, **options: Any) -> Path:
    """The project written, built, and its two handlers filled in to record their calls."""
    write_apps_project(root, **options)
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers = root / PACKAGE / "handlers.py"
    text = handlers.read_text(encoding="utf-8")
    stub = 'raise NotImplementedError("{}")'
    text = text.replace(
        stub.format("show_counter"),
        '_record("show_counter", {"start": start})\n    return {"value": start, "label": "low"}',
    )
    text = text.replace(
        stub.format("increment"),
        '_record("increment", {"value": value, "note": note})\n    return {"value": value + 1}',
    )
    handlers.write_text(text + HANDLERS, encoding="utf-8")
    return root
