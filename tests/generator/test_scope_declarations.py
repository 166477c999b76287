"""A tool's required scopes, declared in its ``_meta`` under ``io.mcp-codegen/scopes``:
checked at build time with file#/pointer errors, and carried to the server unchanged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen.runtime.auth.scopes import SCOPES_KEY, ScopePolicy, declared_scopes
from tests.support.projects import run_cli, tool, write_project

KEY = SCOPES_KEY
AT = "tools/t.json#/_meta/io.mcp-codegen~1scopes"

BAD: dict[str, tuple[Any, list[str]]] = {
    "not a list": ("notes:read", [f"{AT}: error: must be a non-empty list of scopes"]),
    "empty list": ([], [f"{AT}: error: must be a non-empty list of scopes"]),
    "a number": ([7], [f"{AT}/0: error: a scope is a string, got int"]),
    "a space inside": (["notes read"], [f"{AT}/0: error: 'notes read' is not a scope token"]),
    "a double quote": (['notes"read'], [f"{AT}/0: error: 'notes\"read' is not a scope token"]),
    "a non-ASCII letter": (["notés"], [f"{AT}/0: error: 'notés' is not a scope token"]),
    "listed twice": (["a", "a"], [f"{AT}/1: error: scope 'a' is listed twice"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_scope_declarations_are_errors_at_their_pointer(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    value, expected = BAD[case]
    root = write_project(tmp_path / "project", {"t.json": tool(_meta={KEY: value})})
    monkeypatch.chdir(root)
    code, _, err = run_cli("build", ".")
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert code == 2
    assert len(errors) == len(expected)
    for line, start in zip(errors, expected, strict=True):
        assert line.startswith(start), line


def test_a_near_miss_key_is_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_project(
        tmp_path / "project", {"t.json": tool(_meta={"io.mcp-codegen/scope": ["a"]})}
    )
    monkeypatch.chdir(root)
    code, _, err = run_cli("build", ".")
    assert code == 0, err
    assert (
        "tools/t.json#/_meta/io.mcp-codegen~1scope: warning: 'io.mcp-codegen/scope' declares "
        "no scopes; did you mean 'io.mcp-codegen/scopes'?" in err
    )


def test_revisions_without_tool_meta_cannot_carry_scopes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_project(
        tmp_path / "project",
        {"t.json": tool(_meta={KEY: ["a"]})},
        revisions=("2024-11-05", "2025-03-26"),
    )
    monkeypatch.chdir(root)
    code, _, err = run_cli("build", ".")
    assert code == 2
    assert f"{AT}: error: none of the targeted revisions publishes a tool's _meta" in err


def test_good_declarations_reach_the_server_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_project(
        tmp_path / "project",
        {"t.json": [tool(_meta={KEY: ["notes:read", "x.y/z"]}), tool("other")]},
    )
    monkeypatch.chdir(root)
    code, _, err = run_cli("build", ".")
    assert code == 0, err
    shown = subprocess.run(
        [sys.executable, "-c", "import json; from server._dispatch import TOOLS; "
         "print(json.dumps([t.published['2026-07-28'].get('_meta') for t in TOOLS]))"],
        cwd=root, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    # Published as written: clients of revisions with a tool _meta see what a call needs.
    assert json.loads(shown.stdout) == [{KEY: ["notes:read", "x.y/z"]}, None]
    policy = ScopePolicy(["base"], {"echo": declared_scopes({"_meta": {KEY: ["notes:read"]}})})
    call = {"method": "tools/call", "params": {"name": "echo"}}
    assert policy.needed(call) == ("base", "notes:read")
    assert policy.needed([call, {"method": "tools/call", "params": {"name": "other"}}]) == (
        "base",
        "notes:read",
    )
    assert policy.needed({"method": "tools/list"}) == ("base",)
