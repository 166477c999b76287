"""Tool, parameter and prompt names that could break the typed client's methods: a
parameter called `self`, `arguments` or `_cast` (names the method body uses), a tool
called `_mcp_client` (the attribute the methods reach the client through), a keyword and
dotted names; resource names and template variables of the same kinds. The generated
client passes mypy --strict and every method calls its tool or reads its resource in
process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.projects import mypy_strict, run_cli, write_project

pytest.importorskip("mcp")

TOOLS = {
    "self_test.json": {
        "name": "self-test",
        "inputSchema": {
            "type": "object",
            "properties": {
                "self": {"type": "string"},
                "arguments": {"type": "integer"},
                "_cast": {"type": "boolean"},
                "_cast_": {"type": "string"},
            },
            "required": ["self", "arguments"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"echo": {"type": "string"}},
            "required": ["echo"],
        },
    },
    "attribute.json": {"name": "_mcp_client", "inputSchema": {"type": "object"}},
    "keyword.json": {"name": "class", "inputSchema": {"type": "object"}},
    "dotted.json": {"name": "with.dots-and-dashes", "inputSchema": {"type": "object"}},
}
PROMPT = """name: self
arguments:
  - name: self
    required: true
  - name: _mcp_types
"""

CALLS = """
import anyio
from server.client import connect_in_process

async def main() -> None:
    async with connect_in_process(mode="2026-07-28") as client:
        print((await client.tools.self_test(self="s", arguments=2, _cast__=True, _cast_="x"))["echo"])
        print((await client.tools._mcp_client_())[0].text)
        print((await client.tools.class_())[0].text)
        print((await client.tools.with_dots_and_dashes())[0].text)
        got = await client.prompts.self(self="me", _mcp_types_="t")
        print(got.messages[0].content.text)

anyio.run(main)
"""


def test_names_that_collide_with_the_method_body_are_renamed(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", TOOLS)
    (root / "prompts").mkdir()
    (root / "prompts" / "self.yaml").write_text(PROMPT, encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers = root / "server" / "handlers.py"
    source = handlers.read_text(encoding="utf-8")
    for tool, value in (
        ("self-test", 'return {"echo": f"{self} {arguments} {_cast} {_cast_}"}'),
        ("_mcp_client", 'return "attribute"'),
        ("class", 'return "keyword"'),
        ("with.dots-and-dashes", 'return "dotted"'),
        ("self", 'return f"{self} {_mcp_types}"'),
    ):
        assert f'raise NotImplementedError("{tool}")' in source, tool
        source = source.replace(f'raise NotImplementedError("{tool}")', value)
    handlers.write_text(source, encoding="utf-8")
    client = (root / "server" / "client.py").read_text(encoding="utf-8")
    assert (
        "async def self_test(\n        self_," in client or "async def self_test(self_," in client
    )
    result = mypy_strict(root, "server")
    assert result.returncode == 0, result.stdout + result.stderr
    ran = subprocess.run(
        [sys.executable, "-c", CALLS],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.splitlines() == ["s 2 True x", "attribute", "keyword", "dotted", "me t"]


RESOURCES = """resources:
  - uri: file://a-b
    name: a-b
    mimeType: text/plain
    x-mcp-codegen-file: docs/a.txt
  - uri: reader://a_b
    name: a_b
resourceTemplates:
  - uriTemplate: t://{self}/{_cast}{?class}
    name: self
    x-mcp-codegen-schema:
      class: {enum: [x, "y z"]}
"""

READS = """
import anyio
from server.client import ArgumentError, connect_in_process

async def main() -> None:
    async with connect_in_process() as client:
        for contents in (
            await client.resources.read_a_b_(),
            await client.resources.read_a_b(),
            await client.resources.read_self(self="a b", _cast_="c/d", class_="y z"),
            await client.resources.read_self(self="e", _cast_="f"),
        ):
            item = contents[0]
            raw = await client.sdk.read_resource(str(item.uri))
            assert raw.contents == contents, (raw.contents, contents)
            print(item.uri, getattr(item, "text"))
        try:
            await client.resources.read_self(self="", _cast_="f")
        except ArgumentError as error:
            print(error)

anyio.run(main)
"""


def test_resource_names_match_their_readers_and_variables_are_renamed_and_encoded(
    tmp_path: Path,
) -> None:
    # a file resource whose reader name a reader holds steps aside (`read_a_b_`); template
    # variables called `self`, `_cast` (a body name) and `class` (a keyword); values that
    # need percent-encoding reach the reader as they were given
    root = write_project(
        tmp_path / "p", {"t.json": {"name": "t", "inputSchema": {"type": "object"}}}
    )
    (root / "resources").mkdir()
    (root / "resources" / "names.yaml").write_text(RESOURCES, encoding="utf-8")
    (root / "docs").mkdir()
    (root / "docs" / "a.txt").write_text("from a file", encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers = root / "server" / "handlers.py"
    source = handlers.read_text(encoding="utf-8")
    for key, value in (
        ("reader://a_b", 'return "from a reader"'),
        ("t://{self}/{_cast}{?class}", 'return f"{self}|{_cast}|{class_}"'),
    ):
        assert f'raise NotImplementedError("{key}")' in source, key
        source = source.replace(f'raise NotImplementedError("{key}")', value)
    handlers.write_text(source, encoding="utf-8")
    result = mypy_strict(root, "server")
    assert result.returncode == 0, result.stdout + result.stderr
    ran = subprocess.run(
        [sys.executable, "-c", READS],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.splitlines() == [
        "file://a-b from a file",
        "reader://a_b from a reader",
        "t://a%20b/c%2Fd?class=y%20z a b|c/d|y z",
        "t://e/f e|f|None",
        "resource template 'self': invalid arguments: /self: is required and may not be empty",
    ]
