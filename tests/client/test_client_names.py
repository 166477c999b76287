"""Tool, parameter and prompt names that could break the typed client's methods: a
parameter called `self`, `arguments` or `_cast` (names the method body uses), a tool
called `_mcp_client` (the attribute the methods reach the client through), a keyword and
dotted names. The generated client passes mypy --strict and every method calls its tool
in process."""

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
