"""The MCP Apps extension at run time, part by part: which tools the model's list
leaves out, and the capability declared beside the tasks extension in 2026-07-28 only.
(The whole server over stdio, schema-checked: tests/e2e/test_apps_serving.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_schemagen.runtime.apps import EXTENSION, VIEW_MIME_TYPE, app_only, declare, has_views
from mcp_schemagen.runtime.core.listing import ListCaching
from mcp_schemagen.runtime.core.negotiation import Negotiation
from mcp_schemagen.runtime.protocol import BY_NAME, NAMES
from mcp_schemagen.runtime.tasks.serving import EXTENSION as TASKS_EXTENSION


def _published(meta: Any) -> dict[str, dict[str, Any]]:
    tool = {"name": "t", "inputSchema": {"type": "object"}, "_meta": meta}
    return {"2025-06-18": tool, "2025-03-26": {k: v for k, v in tool.items() if k != "_meta"}}


@pytest.mark.parametrize(
    ("meta", "hidden"),
    [
        ({"ui": {"resourceUri": "ui://a/b", "visibility": ["app"]}}, True),
        ({"ui": {"visibility": ["model", "app"]}}, False),
        ({"ui": {"visibility": ["model"]}}, False),
        ({"ui": {"resourceUri": "ui://a/b"}}, False),
        ({"ui": {"visibility": "app"}}, False),  # not a list: the build refuses it
        ({}, False),
        (None, False),
    ],
)
def test_a_tool_is_left_out_of_the_models_list_only_without_model(meta: Any, hidden: bool) -> None:
    assert app_only(_published(meta)) is hidden


def test_views_are_told_by_their_type() -> None:
    assert has_views(["text/plain", VIEW_MIME_TYPE])
    assert not has_views(["text/html", None, "text/html; profile=mcp-app"])


def _negotiation(**kinds: bool) -> Negotiation:
    return Negotiation(
        NAMES, name="s", version="1", instructions=None, caching=ListCaching(), **kinds
    )


@pytest.mark.parametrize("revision", NAMES)
def test_the_extension_is_declared_where_server_capabilities_have_extensions(
    revision: str,
) -> None:
    declared = _negotiation(apps=True, resources=True).capabilities_of(BY_NAME[revision])
    if revision == "2026-07-28":
        assert declared["extensions"] == {EXTENSION: {"mimeTypes": [VIEW_MIME_TYPE]}}
    else:
        assert "extensions" not in declared
    assert "extensions" not in _negotiation(resources=True).capabilities_of(BY_NAME[revision])


def test_beside_the_tasks_extension_both_are_declared() -> None:
    declared = _negotiation(apps=True, tasks=True, resources=True).capabilities_of(
        BY_NAME["2026-07-28"]
    )
    assert declared["extensions"] == {
        TASKS_EXTENSION: {},
        EXTENSION: {"mimeTypes": [VIEW_MIME_TYPE]},
    }
    assert declare({"extensions": {"x": {}}})["extensions"] == {
        "x": {},
        EXTENSION: {"mimeTypes": [VIEW_MIME_TYPE]},
    }
