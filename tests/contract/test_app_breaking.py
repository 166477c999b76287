"""`mcp-codegen breaking` over an MCP Apps project: the view's tools' arguments and
results compared like any tool's, and the view link and visibility as changes of their
own (a git repository, the command's exit code and report)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen.cli import main
from tests.support.apps_project import write_apps_project


def _git(where: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *arguments],
        cwd=where,
        capture_output=True,
        check=True,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = write_apps_project(tmp_path / "repo")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "first")
    return root


def _edit(root: Path, name: str, edit: Any) -> None:
    path = root / "tools" / f"{name}.json"
    tool = json.loads(path.read_text(encoding="utf-8"))
    edit(tool)
    path.write_text(json.dumps(tool, indent=2), encoding="utf-8")


def _breaking(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["breaking", "--against", "HEAD", str(root)])
    return code, capsys.readouterr().out


def test_unchanged_passes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _breaking(project, capsys) == (0, "")


def test_a_views_tool_arguments_narrowed_break_callers(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(project, "increment", lambda t: t["inputSchema"]["properties"]["value"].update(minimum=0))
    code, out = _breaking(project, capsys)
    assert code == 1
    assert (
        "tools/increment.json#/inputSchema/properties/value/minimum: breaking (callers)" in out
    ), out


def test_a_views_tool_result_loosened_breaks_the_view(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(project, "show_counter", lambda t: t["outputSchema"].update(required=[]))
    code, out = _breaking(project, capsys)
    assert code == 1
    assert "tools/show_counter.json#/outputSchema" in out and "breaking (result consumers)" in out


def test_the_view_link_and_visibility_are_compared(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(project, "show_counter", lambda t: t["_meta"]["ui"].pop("resourceUri"))
    _edit(project, "increment", lambda t: t["_meta"]["ui"].update(visibility=["model"]))
    (project / "resources" / "views.json").write_text("[]", encoding="utf-8")
    code, out = _breaking(project, capsys)
    assert code == 1
    lines = out.splitlines()
    assert (
        "tools/show_counter.json#/_meta/ui/resourceUri: breaking (result consumers): view "
        "'ui://counter/view.html' unlinked: hosts no longer show this tool's results in it"
    ) in lines
    assert (
        "tools/increment.json#/_meta/ui/visibility: breaking (callers): no longer callable "
        "from views (visibility): a view's call to it is refused"
    ) in lines
    assert (
        "tools/increment.json#/_meta/ui/visibility: compatible: now visible to model (visibility)"
        in lines
    )


def test_a_tool_shown_to_more_callers_is_compatible(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(project, "increment", lambda t: t["_meta"]["ui"].update(visibility=["app", "model"]))
    code, out = _breaking(project, capsys)
    assert code == 0, out
    assert "compatible: now visible to model (visibility)" in out
