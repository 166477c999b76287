"""The build checks `x-mcp-codegen-http` of a tool file (a hand-edited one may be wrong):
each problem at its pointer, and a correct one accepted."""

from __future__ import annotations

from pathlib import Path

from tests.support.projects import run_cli, tool, write_project

GOOD = {
    "api": "shop",
    "method": "GET",
    "path": "/items/{id}",
    "server": "https://shop.example",
    "parameters": {"id": {"in": "path", "name": "id"}},
}


def test_a_correct_identity_builds(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    root = write_project(
        tmp_path, {"t.json": tool("t", inputSchema=schema, **{"x-mcp-codegen-http": GOOD})}
    )
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    assert (root / "server" / "_upstream.py").is_file()


def test_each_problem_is_reported_at_its_pointer(tmp_path: Path) -> None:
    wrong = {
        **GOOD,
        "method": "FETCH",
        "parameters": {"id": {"in": "path", "name": "item"}, "q": {"in": "body?"}},
        "security": [[{"type": "apiKey", "env": ["lower"]}]],
    }
    root = write_project(tmp_path, {"t.json": tool("t", **{"x-mcp-codegen-http": wrong})})
    code, _, err = run_cli("build", str(root))
    assert code == 2
    found = [line.split(": error: ")[0] for line in err.splitlines() if ": error: " in line]
    assert found == [
        "tools/t.json#/x-mcp-codegen-http/method",
        "tools/t.json#/x-mcp-codegen-http/parameters/id",
        "tools/t.json#/x-mcp-codegen-http/parameters/q",
        "tools/t.json#/x-mcp-codegen-http/security/0/0",
        "tools/t.json#/x-mcp-codegen-http/security/0/0",
    ]
    assert "path parameter 'item' is not in the path '/items/{id}'" in err
