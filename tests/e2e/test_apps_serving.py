"""MCP Apps served by a generated server (real process over stdio, every message checked
against its revision's schema): the view link published exactly where tools have
`_meta`, the view read with its type and `_meta.ui`, a tool for the view alone kept out
of the model's tools/list yet callable, the extension declared only where
ServerCapabilities has `extensions` and only by a project with views."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.apps_project import (
    INCREMENT,
    PACKAGE,
    SHOW,
    VIEW,
    VIEW_MIME,
    VIEW_URI,
    build_apps_project,
)
from tests.support.stdio_conversation import STATELESS, Conversation, meta

REVISIONS = ("2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
WITH_TOOL_META = ("2025-06-18", "2025-11-25", "2026-07-28")
EXTENSION = "io.modelcontextprotocol/ui"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_apps_project(tmp_path_factory.mktemp("apps") / "p", revisions=REVISIONS)


@pytest.fixture
def open_conversation(project: Path, tmp_path: Path) -> Iterator[Any]:
    opened: list[Conversation] = []

    def start(revision: str, root: Path = project) -> Conversation:
        conversation = Conversation(root, PACKAGE, revision, tmp_path / "stderr.txt")
        opened.append(conversation)
        return conversation

    yield start
    for conversation in opened:
        conversation.kill()


def _params(revision: str, **params: Any) -> dict[str, Any]:
    return {**params, "_meta": meta()} if revision == STATELESS else params


def _capabilities(conversation: Conversation) -> dict[str, Any]:
    if conversation.revision == STATELESS:
        found: dict[str, Any] = conversation.result("server/discover", _params(STATELESS))
        return dict(found["capabilities"])
    result = conversation.result(
        "initialize",
        {
            "protocolVersion": conversation.revision,
            "capabilities": {"extensions": {EXTENSION: {"mimeTypes": [VIEW_MIME]}}},
            "clientInfo": {"name": "apps-test", "version": "1"},
        },
    )
    conversation.notify("notifications/initialized")
    return dict(result["capabilities"])


@pytest.mark.parametrize("revision", REVISIONS)
def test_views_are_published_read_and_declared_as_each_revision_allows(
    open_conversation: Any, revision: str, project: Path
) -> None:
    conversation = open_conversation(revision)
    capabilities = _capabilities(conversation)
    if revision == STATELESS:
        assert capabilities["extensions"] == {EXTENSION: {"mimeTypes": [VIEW_MIME]}}
    else:  # no `extensions` in these revisions' ServerCapabilities: nothing invented
        assert "extensions" not in capabilities and "experimental" not in capabilities
    tools = conversation.result("tools/list", _params(revision))["tools"]
    # The tool for the view alone is not the model's to see, in any revision.
    assert [tool["name"] for tool in tools] == ["show_counter"]
    if revision in WITH_TOOL_META:
        assert tools[0]["_meta"] == SHOW["_meta"]
    else:
        assert "_meta" not in tools[0]
    listed = conversation.result("resources/list", _params(revision))["resources"]
    assert [(r["uri"], r["mimeType"]) for r in listed] == [(VIEW_URI, VIEW_MIME)]
    read = conversation.result("resources/read", _params(revision, uri=VIEW_URI))["contents"]
    assert read[0]["mimeType"] == VIEW_MIME
    assert read[0]["text"] == (project / "views" / "counter.html").read_text(encoding="utf-8")
    if revision in WITH_TOOL_META:
        assert read[0]["_meta"] == {"ui": VIEW["_meta"]["ui"]}
        assert listed[0]["_meta"] == VIEW["_meta"]
    else:
        assert "_meta" not in read[0]
    assert conversation.checked > 0  # each message above validated against the schema


def test_a_tool_for_the_view_alone_is_still_called(open_conversation: Any, project: Path) -> None:
    log = project / "calls.log"
    log.unlink(missing_ok=True)
    conversation = open_conversation(STATELESS)
    result = conversation.result(
        "tools/call", _params(STATELESS, name="increment", arguments={"value": 41})
    )
    assert result["structuredContent"] == {"value": 42}
    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert calls == [{"tool": "increment", "arguments": {"value": 41, "note": None}}]
    assert INCREMENT["_meta"]["ui"]["visibility"] == ["app"]  # the reason it is unlisted


def test_a_project_without_views_declares_no_extension(
    open_conversation: Any, tmp_path: Path
) -> None:
    plain = {**SHOW}
    del plain["_meta"]
    root = build_apps_project(
        tmp_path / "plain",
        tools={"show_counter.json": plain, "increment.json": {**INCREMENT, "_meta": {}}},
        views=[{**VIEW, "uri": "docs://readme", "mimeType": "text/html", "_meta": {}}],
    )
    conversation = open_conversation(STATELESS, root)
    capabilities = _capabilities(conversation)
    assert "extensions" not in capabilities
    tools = conversation.result("tools/list", _params(STATELESS))["tools"]
    assert [tool["name"] for tool in tools] == ["increment", "show_counter"]


def test_a_view_served_by_a_reader_carries_its_meta_too(
    open_conversation: Any, tmp_path: Path
) -> None:
    by_reader = {key: value for key, value in VIEW.items() if key != "x-mcp-codegen-file"}
    root = build_apps_project(tmp_path / "reader", views=[by_reader])
    handlers = root / PACKAGE / "handlers.py"
    text = handlers.read_text(encoding="utf-8").replace(
        'raise NotImplementedError("ui://counter/view.html")', 'return "<p>from code</p>"'
    )
    handlers.write_text(text, encoding="utf-8")
    assert not (root / "views" / "counter.d.ts").exists()  # no HTML file to sit beside
    conversation = open_conversation(STATELESS, root)
    read = conversation.result("resources/read", _params(STATELESS, uri=VIEW_URI))["contents"]
    assert read == [
        {
            "uri": VIEW_URI,
            "mimeType": VIEW_MIME,
            "text": "<p>from code</p>",
            "_meta": {"ui": VIEW["_meta"]["ui"]},
        }
    ]
