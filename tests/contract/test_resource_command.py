"""`mcp-codegen breaking` on resources end to end: a project with a resource file in a
temporary git repository, compared with its commit and with saved resources/list and
resources/templates/list results."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen.cli import main
from tests.support.docs import page

PYPROJECT = '[project]\nname = "shop"\n\n[tool.mcp-codegen]\npackage = "shop"\n'
README: dict[str, Any] = {
    "uri": "file:///readme.md",
    "name": "readme",
    "mimeType": "text/markdown",
    "x-mcp-codegen-file": "docs/readme.md",
}
ORDERS: dict[str, Any] = {
    "uriTemplate": "shop://orders/{id}",
    "name": "order",
    "x-mcp-codegen-schema": {"id": {"type": "string", "pattern": "^[0-9]+$"}},
}


def _git(where: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *arguments],
        cwd=where,
        capture_output=True,
        check=True,
    )


def _write(project: Path, *definitions: dict[str, Any]) -> None:
    text = json.dumps(list(definitions), indent=2)
    (project / "resources" / "shop.json").write_text(text, encoding="utf-8")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with one resource and one template, committed once."""
    project = tmp_path / "repo"
    (project / "resources").mkdir(parents=True)
    (project / "docs").mkdir()
    (project / "docs" / "readme.md").write_text("# Shop\n", encoding="utf-8")
    (project / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    _write(project, README, ORDERS)
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "first")
    return project


def _run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, list[str], str]:
    code = main(["breaking", *arguments])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


def test_unchanged_resources_say_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The content file changes: it is not part of the contract.
    (project / "docs" / "readme.md").write_text("# Shop, edited\n", encoding="utf-8")
    assert _run(capsys, "--against", "HEAD", str(project))[:2] == (0, [])


def test_a_changed_uri_and_a_removed_variable_fail_against_the_commit(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    moved = {**README, "uri": "file:///docs/readme.md"}
    narrowed = {**ORDERS, "uriTemplate": "shop://orders/{year}/{id}"}
    _write(project, moved, narrowed)
    code, out, _ = _run(capsys, "--against", "HEAD", str(project))
    assert code == 1
    assert (
        "resources/shop.json#/0: breaking (callers): resource 'file:///readme.md' removed:"
        " resources/read of it fails (its uri changed to 'file:///docs/readme.md'? same name"
        " or content file)" in out
    )
    assert any(
        line.startswith("resources/shop.json#/1/uriTemplate: breaking (callers): uriTemplate")
        for line in out
    ), out


def test_an_optional_query_variable_and_a_wider_schema_pass(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wider = {
        **ORDERS,
        "uriTemplate": "shop://orders/{id}{?fields}",
        "x-mcp-codegen-schema": {"id": {"type": "string"}},
    }
    _write(project, README, wider)
    code, out, _ = _run(capsys, "--against", "HEAD", str(project))
    assert code == 0
    assert (
        "resources/shop.json#/1/uriTemplate: compatible: optional query variable 'fields'"
        " added: URIs without it still match" in out
    )
    assert any(
        "#/1/x-mcp-codegen-schema/id" in line and ": compatible: " in line for line in out
    ), out
    assert any(": cache: uriTemplate changed" in line for line in out), out


def test_against_saved_resources_and_templates_listings(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    published = {k: v for k, v in README.items() if not k.startswith("x-")}
    resources = tmp_path / "resources.json"
    response = {"jsonrpc": "2.0", "id": 1, "result": {"resources": [published]}}
    resources.write_text(json.dumps(response), encoding="utf-8")
    code, out, err = _run(capsys, "--against", str(resources), str(project))
    assert (code, out) == (0, [])
    assert (
        "resources.json: holds no resources/templates/list result: resource templates are not"
        " compared" in err
    )
    _write(project, {**README, "mimeType": "text/plain"}, ORDERS)
    code, out, _ = _run(capsys, "--against", str(resources), str(project))
    assert code == 1
    assert (
        "resources/shop.json#/0/mimeType: breaking (result consumers): mimeType 'text/markdown'"
        " → 'text/plain': readers of the contents get another type" in out
    )

    templates = tmp_path / "templates.json"
    old = {"uriTemplate": "shop://orders/{id}{?fields}", "name": "order"}
    templates.write_text(json.dumps({"resourceTemplates": [old]}), encoding="utf-8")
    code, out, err = _run(capsys, "--against", str(templates), str(project))
    assert code == 1
    assert any(
        line.startswith("resources/shop.json#/1/uriTemplate: breaking (callers): variable")
        and "'fields'" in line
        for line in out
    ), out
    assert "templates.json: holds no resources/list result: resources are not compared" in err


def test_the_guide_example(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moved = {**README, "uri": "file:///docs/readme.md"}
    renamed = {
        **ORDERS,
        "uriTemplate": "shop://orders/{order}{?fields}",
        "x-mcp-codegen-schema": {"order": {"type": "string"}},
    }
    _write(project, moved, renamed)
    code, out, _ = _run(capsys, "--against", "HEAD", str(project))
    shown = page("how-to/breaking-changes.md").split("$ mcp-codegen breaking --against HEAD\n")[1]
    assert code == 1 and out == shown.split("\n$ echo")[0].splitlines()
