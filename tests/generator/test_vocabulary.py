"""Every key the build reads is checked against one vocabulary (check/vocabulary.py): a
misspelt ``x-mcp-codegen-*`` key, or a misspelt MCP field or annotation, stops the build
(exit 2) at ``file#/pointer`` with the key meant; nothing is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen.check.vocabulary import MCP_FIELDS, OWN_KEYS, looks_like_own, unknown_key
from tests.support.projects import run_cli, tool, write_project

TEXT = {"uri": "app://readme", "name": "readme", "mimeType": "text/markdown"}
TEMPLATE = {"uriTemplate": "app://logs/{day}", "name": "logs"}
ARGUMENT = {"name": "topic", "x-mcp-codegen-schema": {"pattern": "^[a-z]+$"}}

# name -> (tools, prompts, resources, the expected line of stderr)
CASES: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any], str]] = {
    "our schema key misspelt on a prompt argument": (
        {},
        {"p.json": {"name": "p", "arguments": [{"name": "topic", "x-mcp-codegen-shema": {}}]}},
        {},
        "prompts/p.json#/arguments/0/x-mcp-codegen-shema: error: unknown mcp-codegen key"
        " 'x-mcp-codegen-shema'; did you mean 'x-mcp-codegen-schema'?",
    ),
    "our complete key without its dash on a prompt argument": (
        {},
        {"p.json": {"name": "p", "arguments": [{"name": "a", "x-mcpcodegen-complete": True}]}},
        {},
        "prompts/p.json#/arguments/0/x-mcpcodegen-complete: error: unknown mcp-codegen key"
        " 'x-mcpcodegen-complete'; did you mean 'x-mcp-codegen-complete'?",
    ),
    "our file key in the plural on a resource": (
        {},
        {},
        {"r.json": {**TEXT, "x-mcp-codegen-files": "docs/a.md"}},
        "resources/r.json#/x-mcp-codegen-files: error: unknown mcp-codegen key"
        " 'x-mcp-codegen-files'; did you mean 'x-mcp-codegen-file'?",
    ),
    "our complete key misspelt on a template": (
        {},
        {},
        {"r.json": {**TEMPLATE, "x-mcp-codegen-compelte": ["day"]}},
        "resources/r.json#/x-mcp-codegen-compelte: error: unknown mcp-codegen key"
        " 'x-mcp-codegen-compelte'; did you mean 'x-mcp-codegen-complete'?",
    ),
    "a tool annotation in the wrong case": (
        {"t.json": tool(annotations={"readonlyHint": True})},
        {},
        {},
        "tools/t.json#/annotations/readonlyHint: error: unknown tool annotation 'readonlyHint';"
        " did you mean 'readOnlyHint'?",
    ),
    "a tool annotation misspelt": (
        {"t.json": tool(annotations={"destructivHint": False})},
        {},
        {},
        "tools/t.json#/annotations/destructivHint: error: unknown tool annotation"
        " 'destructivHint'; did you mean 'destructiveHint'?",
    ),
    "a resource annotation misspelt": (
        {},
        {},
        {"r.json": {**TEXT, "annotations": {"priorty": 0.5}}},
        "resources/r.json#/annotations/priorty: error: unknown resource annotation 'priorty';"
        " did you mean 'priority'?",
    ),
    "our key on a tool": (
        {"t.json": tool(**{"x-mcp-codegen-scheme": {}})},
        {},
        {},
        "tools/t.json#/x-mcp-codegen-scheme: error: unknown mcp-codegen key"
        " 'x-mcp-codegen-scheme'; did you mean 'x-mcp-codegen-schema' (which belongs on a"
        " prompt argument or a resource template)?",
    ),
    "our key inside an inputSchema": (
        {
            "t.json": tool(
                inputSchema={
                    "type": "object",
                    "properties": {"a": {"type": "string", "x-mcp-codegen-complete": True}},
                }
            )
        },
        {},
        {},
        "tools/t.json#/inputSchema/properties/a/x-mcp-codegen-complete: error: unknown"
        " mcp-codegen key 'x-mcp-codegen-complete' inside a JSON Schema",
    ),
    "a header keyword misspelt": (
        {
            "t.json": tool(
                inputSchema={
                    "type": "object",
                    "properties": {"a": {"type": "string", "x-mcp-headr": "A"}},
                }
            )
        },
        {},
        {},
        "tools/t.json#/inputSchema/properties/a/x-mcp-headr: error: unknown keyword"
        " 'x-mcp-headr': did you mean 'x-mcp-header'?",
    ),
    "an icon field misspelt on a tool": (
        {"t.json": tool(icons=[{"src": "https://example.com/a.png", "mimetype": "image/png"}])},
        {},
        {},
        "tools/t.json#/icons/0/mimetype: error: unknown icon 'mimetype'; did you mean 'mimeType'?",
    ),
    "an icon field misspelt on a prompt": (
        {},
        {
            "p.json": {
                "name": "p",
                "icons": [{"src": "https://example.com/a.png", "size": ["48x48"]}],
            }
        },
        {},
        "prompts/p.json#/icons/0/size: error: unknown icon 'size'; did you mean 'sizes'?",
    ),
    "a file's list of templates misspelt": (
        {},
        {},
        {"r.json": {"resourceTemplate": [TEMPLATE]}},
        "resources/r.json#/resourceTemplate: error: unknown resource field 'resourceTemplate';"
        " did you mean 'resourceTemplates', the list a file may hold its definitions in?",
    ),
    "a file's list of tools misspelt": (
        {"t.json": {"tool": [tool()]}},
        {},
        {},
        "tools/t.json#/tool: error: unknown tool field 'tool'; did you mean 'tools', the list a"
        " file may hold its definitions in?",
    ),
    "a prompt argument field misspelt": (
        {},
        {"p.json": {"name": "p", "arguments": [{"name": "a", "titel": "A"}]}},
        {},
        "prompts/p.json#/arguments/0/titel: error: unknown prompt argument field 'titel'; did"
        " you mean 'title'?",
    ),
}


def _project(
    tmp_path: Path, tools: dict[str, Any], prompts: dict[str, Any], resources: dict[str, Any]
) -> Path:
    root = write_project(tmp_path / "p", tools or {"echo.json": tool()})
    for folder, files in (("prompts", prompts), ("resources", resources)):
        if files:
            (root / folder).mkdir()
        for name, content in files.items():
            (root / folder / name).write_text(json.dumps(content), encoding="utf-8")
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("# A\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("case", CASES)
def test_a_misspelt_key_stops_the_build_with_the_key_meant(case: str, tmp_path: Path) -> None:
    tools, prompts, resources, expected = CASES[case]
    root = _project(tmp_path, tools, prompts, resources)
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 2, err
    assert expected in err, err
    assert not (root / "server" / "_dispatch.py").exists()


def test_the_right_keys_build(tmp_path: Path) -> None:
    """The same definitions spelt right: the checks above are about spelling alone."""
    root = _project(
        tmp_path,
        {"t.json": tool(annotations={"readOnlyHint": True, "destructiveHint": False})},
        {"p.json": {"name": "p", "arguments": [{**ARGUMENT, "x-mcp-codegen-complete": True}]}},
        {
            "r.json": {**TEXT, "x-mcp-codegen-file": "docs/a.md", "x-other-tool": 1},
            "t.json": {**TEMPLATE, "x-mcp-codegen-complete": ["day"]},
        },
    )
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err


def test_every_own_key_is_known_where_it_belongs_and_only_there() -> None:
    kinds = ("prompt argument", "resource", "resource template", "tool", "prompt")
    for own in OWN_KEYS.values():
        assert own.key.startswith("x-mcp-codegen-") and looks_like_own(own.key)
        for kind in kinds:
            found = unknown_key(own.key, kind)
            assert (found is None) == (kind in own.places), (own.key, kind, found)
    assert "readOnlyHint" in MCP_FIELDS["tool annotations"]
    assert not looks_like_own("x-mcp-header") and not looks_like_own("x-python-type")


def test_a_misspelt_setting_gets_the_key_meant(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"echo.json": tool()}, extra='accept-omited = ["title"]\n')
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 2, err
    assert (
        "pyproject.toml#/tool/mcp-codegen/accept-omited: error: unknown key; did you mean"
        " 'accept-omitted'? known keys: " in err
    ), err
