"""A table of bad tool files: the exact diagnostics each gives, and the exit code.

Every error names the file and the JSON pointer of the fault, says what is wrong and how
to fix it; any error means exit 2 and nothing written.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen.load import specs
from tests.support.projects import run_cli, tool, write_project


def _object(properties: dict[str, Any], **keywords: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, **keywords}


NAME_RULE = (
    "must be 1 to 128 characters of A-Z a-z 0-9 _ - . (no spaces, newlines or other characters)"
)
NO_FETCH = 'references are never fetched or read. Copy the referenced schema under "$defs" and use "#/$defs/NAME"'

CASES: dict[str, tuple[dict[str, Any], list[str]]] = {
    "name with a trailing newline": (
        {"t.json": tool("echo\n")},
        [f"tools/t.json#/name: error: tool name 'echo\\n' {NAME_RULE}"],
    ),
    "name of 129 characters": (
        {"t.json": tool("a" * 129)},
        [f"tools/t.json#/name: error: tool name '{'a' * 129}' {NAME_RULE}"],
    ),
    "name with a space": (
        {"t.json": tool("get weather")},
        [f"tools/t.json#/name: error: tool name 'get weather' {NAME_RULE}"],
    ),
    "name used twice": (
        {"a.json": tool("echo"), "b.json": tool("echo")},
        [
            "tools/b.json#/name: error: tool name 'echo' is already used at tools/a.json#; "
            "names must be unique (case-sensitive)"
        ],
    ),
    "misspelt field": (
        {"t.json": tool(descripton="x")},
        [
            "tools/t.json#/descripton: error: unknown tool field 'descripton'; did you mean 'description'?"
        ],
    ),
    "no inputSchema": (
        {"t.json": {"name": "echo"}},
        ["tools/t.json#: error: not a valid 2026-07-28 Tool: 'inputSchema' is a required property"],
    ),
    "inputSchema not an object": (
        {"t.json": tool(inputSchema={"type": "string"})},
        [
            "tools/t.json#/inputSchema/type: error: not a valid 2026-07-28 Tool: 'object' was expected"
        ],
    ),
    "invalid regular expression": (
        {"t.json": tool(inputSchema=_object({"a": {"type": "string", "pattern": "(unclosed"}}))},
        [
            "tools/t.json#/inputSchema/properties/a/pattern: error: schema does not compile: "
            '"(unclosed" is not a "regex"'
        ],
    ),
    "$ref to a network URI": (
        {"t.json": tool(inputSchema=_object({"a": {"$ref": "https://example.com/s.json"}}))},
        [
            "tools/t.json#/inputSchema/properties/a/$ref: error: $ref 'https://example.com/s.json' "
            f"points to a network URI; {NO_FETCH}"
        ],
    ),
    "$ref to a file": (
        {"t.json": tool(inputSchema=_object({"a": {"$ref": "other.json#/x"}}))},
        [
            "tools/t.json#/inputSchema/properties/a/$ref: error: $ref 'other.json#/x' points to a "
            f"file or external document; {NO_FETCH}"
        ],
    ),
    "$ref under a property named like a data keyword": (
        {"t.json": tool(inputSchema=_object({"default": {"$ref": "http://example.com/s.json"}}))},
        [
            "tools/t.json#/inputSchema/properties/default/$ref: error: $ref "
            f"'http://example.com/s.json' points to a network URI; {NO_FETCH}"
        ],
    ),
    "$ref that resolves to nothing": (
        {"t.json": tool(inputSchema=_object({"a": {"$ref": "#/$defs/Missing"}}))},
        [
            "tools/t.json#/inputSchema/properties/a/$ref: error: $ref '#/$defs/Missing' does not "
            "resolve inside this schema"
        ],
    ),
    "unsupported dialect": (
        {
            "t.json": tool(
                inputSchema=_object({}, **{"$schema": "http://json-schema.org/draft-04/schema#"})
            )
        },
        [
            "tools/t.json#/inputSchema/$schema: error: unsupported JSON Schema dialect "
            "'http://json-schema.org/draft-04/schema#'; use "
            '"https://json-schema.org/draft/2020-12/schema" (the default) or '
            '"http://json-schema.org/draft-07/schema#"'
        ],
    ),
    "broken JSON": (
        {"t.json": '{"name": "echo",'},
        [
            "tools/t.json#: error: not valid JSON: Expecting property name enclosed in double "
            "quotes at line 1 column 17"
        ],
    ),
    "duplicate JSON key": (
        {"t.json": '{"name": "echo", "name": "other", "inputSchema": {"type": "object"}}'},
        ["tools/t.json#: error: duplicate key 'name'; JSON keys must be unique"],
    ),
    "YAML date": (
        {"t.yaml": "name: echo\ninputSchema: {type: object}\ndescription: 2024-01-01\n"},
        ["tools/t.yaml#/description: error: a date value is not JSON; quote it as a string"],
    ),
    "properties equal after NFKC": (
        {
            "t.json": tool(
                inputSchema=_object({"\ufb01le": {"type": "string"}, "file": {"type": "string"}})
            )
        },
        [
            "tools/t.json#/inputSchema/properties/file: error: property 'file' and property "
            "'\ufb01le' both become the Python parameter 'file'; rename one of them"
        ],
    ),
    "properties equal as identifiers": (
        {
            "t.json": tool(
                inputSchema=_object(
                    {"my-field": {"type": "string"}, "my_field": {"type": "string"}}
                )
            )
        },
        [
            "tools/t.json#/inputSchema/properties/my_field: error: property 'my_field' and "
            "property 'my-field' both become the Python parameter 'my_field'; rename one of them"
        ],
    ),
    "tools needing one handler name": (
        {"a.json": tool("get-weather"), "b.json": tool("get_weather")},
        [
            "tools/b.json#/name: error: tool 'get_weather' and tool 'get-weather' (tools/a.json#) "
            "both need the handler name 'get_weather'; rename one"
        ],
    ),
    "misspelt type": (
        {"t.json": tool(inputSchema=_object({"a": {"type": "strin"}}))},
        [
            "tools/t.json#/inputSchema/properties/a/type: error: not a valid 2020-12 JSON Schema: "
            "'strin' is not valid under any of the given schemas"
        ],
    ),
    "infinite number": (
        {
            "t.json": '{"name": "echo", "inputSchema": {"type": "object", "properties": {"a": {"maximum": 1e999}}}}'
        },
        [
            "tools/t.json#/inputSchema/properties/a/maximum: error: inf is not a JSON number; use a finite number"
        ],
    ),
    "not a tool at all": (
        {"t.json": '"just a string"'},
        [
            "tools/t.json#: error: expected a tool (an object with name and inputSchema), a list "
            'of tools, or a tools/list result ({"tools": [...]})'
        ],
    ),
    "several faults reported at once": (
        {"a.json": tool("bad name"), "b.json": tool(descripton="x", name="ok")},
        [
            f"tools/a.json#/name: error: tool name 'bad name' {NAME_RULE}",
            "tools/b.json#/descripton: error: unknown tool field 'descripton'; did you mean 'description'?",
        ],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("command", ["build", "check"])
def test_bad_tool_files(
    case: str, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools, expected = CASES[case]
    root = write_project(tmp_path / "project", tools)
    monkeypatch.chdir(root)
    code, _, err = run_cli(command, ".")
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert errors == expected
    assert code == 2
    written = "" if command == "check" else "; nothing was written"  # check never writes
    assert err.rstrip().endswith(f"mcp-codegen: {len(expected)} error(s){written}")
    assert not (root / "server").exists(), "nothing may be written when there is an error"


def test_warning_names_the_older_revisions_and_what_their_clients_get(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    definition = tool(
        title="Echo",
        outputSchema={"type": "array", "items": {"type": "string"}},
        icons=[{"src": "https://example.com/i.png"}],
    )
    root = write_project(
        tmp_path / "p", {"t.json": definition}, revisions=("2025-03-26", "2025-11-25", "2026-07-28")
    )
    monkeypatch.chdir(root)
    code, _, err = run_cli("build", ".")
    assert code == 0
    warnings = [line for line in err.splitlines() if ": warning: " in line]
    silence = '; to silence: accept-omitted = ["{}"] in [tool.mcp-codegen]'
    assert warnings == [
        "tools/t.json#/icons: warning: protocol revision 2025-03-26 does not define this; its "
        "clients receive the tool without icons" + silence.format("icons"),
        "tools/t.json#/outputSchema: warning: protocol revision 2025-03-26 does not define this; "
        "its clients receive the tool without outputSchema; structured results reach them as text only"
        + silence.format("outputSchema"),
        "tools/t.json#/outputSchema: warning: protocol revision 2025-11-25 does not define this; "
        "its clients receive the tool without outputSchema, because this revision requires an "
        "object at its root; structured results reach them as text only"
        + silence.format("outputSchema"),
        "tools/t.json#/title: warning: protocol revision 2025-03-26 does not define this; its "
        "clients receive the tool without title (clients show the name)" + silence.format("title"),
    ]


def _titled(name: str) -> dict[str, Any]:
    return tool(name, title=f"The {name} tool")


def test_omission_warnings_are_one_line_per_field_and_revisions_with_a_count(
    tmp_path: Path,
) -> None:
    tools = {f"t{i}.json": _titled(f"t{i}") for i in range(5)}
    tools["list.json"] = {"tools": [_titled("a"), _titled("b")]}
    root = write_project(tmp_path / "p", tools, revisions=("2025-03-26", "2026-07-28"))
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    warnings = [line for line in err.splitlines() if ": warning: " in line]
    assert warnings == [
        "tools/list.json#/tools/0/title: warning: protocol revision 2025-03-26 does not define "
        "this; its clients receive the tool without title (clients show the name) (so do 6 "
        "other tools, e.g. tools/list.json#/tools/1/title); to silence: "
        'accept-omitted = ["title"] in [tool.mcp-codegen]'
    ]
    (root / "server" / "_manifest.json").unlink()  # no fast path: the pipeline runs
    code, _, err = run_cli("check", str(root))
    assert code == 0
    assert [line for line in err.splitlines() if ": warning: " in line] == warnings


def test_accept_omitted_silences_the_fields_named(tmp_path: Path) -> None:
    definition = tool(title="T", outputSchema={"type": "object"})
    root = write_project(
        tmp_path / "p",
        {"t.json": definition},
        revisions=("2025-03-26", "2026-07-28"),
        extra='accept-omitted = ["title"]\n',
    )
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    warnings = [line for line in err.splitlines() if ": warning: " in line]
    assert [w.split(":")[0] for w in warnings] == ["tools/t.json#/outputSchema"]


def test_accept_omitted_names_only_tool_fields(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p", {"t.json": tool()}, extra='accept-omitted = ["outputSchme"]\n'
    )
    code, _, err = run_cli("build", str(root))
    assert code == 2
    assert (
        f"{root / 'pyproject.toml'}#/tool/mcp-codegen/accept-omitted: error: 'outputSchme' is "
        "not a tool field; did you mean 'outputSchema'?"
    ) in err


def test_quiet_silences_warnings_and_progress_on_every_command(tmp_path: Path) -> None:
    definition = tool(title="T")
    root = write_project(tmp_path / "p", {"t.json": definition}, revisions=("2025-03-26",))
    code, out, err = run_cli("build", "-q", str(root))
    assert (code, err) == (0, "")
    assert out.startswith("wrote ")
    (root / "server" / "_manifest.json").unlink()  # no fast path: the pipeline runs
    code, out, err = run_cli("check", "--quiet", str(root))
    assert (code, err) == (0, "")
    code, out, err = run_cli("check", str(root))
    assert code == 0 and ": warning: " in err
    code, out, err = run_cli("specs", "list", "-q")
    assert (code, err) == (0, "")
    assert out.split() == list(specs.revision_names())
    target = tmp_path / "new"
    code, out, err = run_cli(
        "new", "quiet_server", "--dir", str(target), "-q", "--revision", "2026-07-28"
    )
    assert (code, out, err) == (0, f"created {os.path.relpath(target)}\n", "")


def test_warnings_say_what_2024_10_07_clients_lose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    definition = tool(
        title="Echo",
        outputSchema={"type": "object", "properties": {"text": {"type": "string"}}},
        annotations={"readOnlyHint": True},
    )
    root = write_project(
        tmp_path / "p", {"t.json": definition}, revisions=("2024-10-07", "2024-11-05", "2025-06-18")
    )
    monkeypatch.chdir(root)
    code, _, err = run_cli("build", ".")
    assert code == 0
    warnings = [line for line in err.splitlines() if ": warning: " in line]
    # Its result is a bare toolResult: a structured result reaches its clients as the value
    # itself, where 2024-11-05 clients get text.
    silence = '; to silence: accept-omitted = ["{}"] in [tool.mcp-codegen]'
    assert warnings == [
        "tools/t.json#/annotations: warning: protocol revisions 2024-10-07, 2024-11-05 do not "
        "define this; their clients receive the tool without annotations (no "
        "read-only/destructive hints)" + silence.format("annotations"),
        "tools/t.json#/outputSchema: warning: protocol revision 2024-10-07 does not define this; "
        "its clients receive the tool without outputSchema; structured results reach them as "
        "the toolResult value itself, with no schema to check it against"
        + silence.format("outputSchema"),
        "tools/t.json#/outputSchema: warning: protocol revision 2024-11-05 does not define this; "
        "its clients receive the tool without outputSchema; structured results reach them as "
        "text only" + silence.format("outputSchema"),
        "tools/t.json#/title: warning: protocol revisions 2024-10-07, 2024-11-05 do not define "
        "this; their clients receive the tool without title (clients show the name)"
        + silence.format("title"),
    ]


def test_no_tool_files_is_an_error(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {})
    code, _, err = run_cli("build", str(root))
    assert code == 2
    assert (
        "error: no tool files match tools/*.json, tools/*.yaml, tools/*.yml; add one or fix the globs"
        in err
    )


def test_config_errors_point_into_pyproject(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"t.json": tool()}, package="not-a-name")
    code, _, err = run_cli("build", str(root))
    assert code == 2
    assert "pyproject.toml#/tool/mcp-codegen/package: error: must be a Python package name" in err
