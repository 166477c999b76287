"""``list-changed`` and ``resource-subscriptions`` naming what the project does not have:
the server would declare nothing, so the build warns with the key's pointer; with the kind
present, no warning."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.projects import run_cli, write_project

TOOL = {"name": "ping_me", "inputSchema": {"type": "object"}}
KEYS = 'list-changed = ["tools", "prompts", "resources"]\nresource-subscriptions = true\n'


def test_keys_without_their_kind_are_warned_with_pointers(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"ping.json": TOOL}, extra=KEYS)
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    assert "pyproject.toml#/tool/mcp-codegen/list-changed" in err
    assert "'prompts' is listed but the project has no prompts" in err
    assert "'resources' is listed but the project has no resources" in err
    assert "'tools' is listed" not in err
    assert "pyproject.toml#/tool/mcp-codegen/resource-subscriptions" in err


def test_no_warning_when_the_project_has_each_kind(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"ping.json": TOOL}, extra=KEYS)
    (root / "prompts").mkdir()
    prompt = {"name": "greet", "description": "Say hello."}
    (root / "prompts" / "greet.json").write_text(json.dumps(prompt), encoding="utf-8")
    (root / "resources").mkdir()
    (root / "notes.md").write_text("# notes\n", encoding="utf-8")
    resource = {"uri": "file:///notes.md", "name": "notes", "mimeType": "text/markdown"}
    resource["x-mcp-codegen-file"] = "notes.md"
    (root / "resources" / "notes.json").write_text(json.dumps(resource), encoding="utf-8")
    code, _, err = run_cli("build", str(root))
    assert code == 0, err
    assert "list-changed" not in err and "resource-subscriptions" not in err
