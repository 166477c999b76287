"""The Skills extension's capability and methods per revision (runtime/core/negotiation.py,
runtime/skills/): declared in `extensions` only where a revision's capabilities carry that
field (2026-07-28; none before it defines one), merged with the tasks extension, and
skills/list, skills/get answered only there."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from mcp_schemagen.runtime.core.listing import ListCaching
from mcp_schemagen.runtime.core.negotiation import SKILLS_EXTENSION, TASKS_EXTENSION, Negotiation
from mcp_schemagen.runtime.protocol import REVISIONS, Revision
from mcp_schemagen.runtime.registry import PublishedForms, ToolEntry
from mcp_schemagen.runtime.server import Server
from mcp_schemagen.runtime.skills.serving import SkillRow

ALL = [revision.name for revision in REVISIONS]


def negotiation(**kinds: bool) -> Negotiation:
    return Negotiation(
        ALL, name="s", version="1", instructions=None, caching=ListCaching(0, "public"), **kinds
    )


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_declared_only_where_extensions_exist(revision: Revision) -> None:
    with_skills = negotiation(resources=True, skills=True)
    declared = with_skills.capabilities_of(revision)
    carries = revision.name == "2026-07-28"
    assert declared.get("extensions") == ({SKILLS_EXTENSION: {}} if carries else None)
    assert declared["resources"] == {}  # the SEP requires resources beside the extension
    for method in ("skills/list", "skills/get"):
        assert with_skills.serves(method, revision) is carries
        assert negotiation(resources=True).serves(method, revision) is False
    assert "extensions" not in negotiation(resources=True).capabilities_of(revision)


def test_merged_with_the_tasks_extension() -> None:
    both = negotiation(resources=True, skills=True, tasks=True)
    by_name = {r.name: r for r in REVISIONS}
    assert both.capabilities_of(by_name["2026-07-28"])["extensions"] == {
        TASKS_EXTENSION: {},
        SKILLS_EXTENSION: {},
    }
    legacy = both.capabilities_of(by_name["2025-11-25"])
    assert "extensions" not in legacy and "tasks" in legacy
    assert "extensions" not in both.capabilities  # the shared base is never changed


def _ask(srv: Server, method: str, params: dict[str, Any]) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    reply = asyncio.run(srv.handle_message(json.dumps(message)))
    assert reply is not None
    answer: dict[str, Any] = json.loads(reply)
    return answer


def test_bad_requests_are_invalid_params() -> None:
    tool = ToolEntry(
        name="t",
        published=PublishedForms(
            {"name": "t", "inputSchema": {"type": "object"}}, {r.name: r for r in REVISIONS}
        ),
        input_schema={"type": "object"},
        output_schema=None,
        handler=lambda: "t",
        arguments={},
        defaults={},
    )
    skill: SkillRow = {
        "uri": "skill://a/SKILL.md",
        "frontmatter": {"name": "a", "description": "A."},
        "resources": [{"uri": "skill://a/SKILL.md", "digest": "sha256:" + "0" * 64, "size": 1}],
    }
    srv = Server(tools=[tool], name="s", version="1", revisions=ALL, skills=[skill])
    assert _ask(srv, "skills/get", {"uri": 5})["error"] == {
        "code": -32602,
        "message": "skills/get needs the uri of a skill's SKILL.md, a string",
    }
    assert _ask(srv, "skills/list", {"cursor": "nonsense"})["error"]["code"] == -32602
    listed = _ask(srv, "skills/list", {})["result"]
    assert listed["skills"] == [skill] and listed["resultType"] == "complete"
