"""The example project under `mcp-codegen breaking`: the worked example of the guide
(docs/how-to/breaking-changes.md), made from the real example files in a temporary
repository, prints what the guide shows."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from mcp_schemagen.cli import main
from tests.support.docs import page
from tests.support.paths import REPO


def _git(where: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *arguments],
        cwd=where,
        capture_output=True,
        check=True,
    )


def _guide_output() -> tuple[list[str], int]:
    guide = page("how-to/breaking-changes.md")
    block = guide.split("Worked example", 1)[1].split("```\n", 2)[1]
    lines = block.splitlines()
    assert lines[0].startswith("$ mcp-codegen breaking --against main")
    status = lines.index("$ echo $?")
    return lines[1:status], int(lines[status + 1])


def _edit_as_the_guide_says(project: Path) -> None:
    path = project / "tools" / "create_order.json"
    tool = json.loads(path.read_text(encoding="utf-8"))
    item = tool["inputSchema"]["properties"]["items"]["items"]["properties"]["quantity"]
    item["maximum"] = 100
    tool["inputSchema"]["properties"]["note"] = {"type": "string"}
    tool["annotations"]["destructiveHint"] = True
    tool["description"] += " Orders are final."
    path.write_text(json.dumps(tool, indent=2), encoding="utf-8")
    (project / "tools" / "divide.json").unlink()
    prompt = project / "prompts" / "weather_briefing.yaml"
    text = prompt.read_text(encoding="utf-8")
    assert "enum: [plain, pirate, haiku]" in text
    prompt.write_text(text.replace("[plain, pirate, haiku]", "[plain, pirate]"), encoding="utf-8")


def test_the_worked_example_prints_what_the_guide_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repository = tmp_path / "repo"
    project = repository / "example"
    shutil.copytree(REPO / "example", project)
    _git(repository, "init", "-q", "-b", "main")
    _git(repository, "add", "-A")
    _git(repository, "commit", "-qm", "example")
    arguments = ["breaking", "--against", "main", "--allow-outside-project", str(project)]
    assert main(arguments) == 0
    assert capsys.readouterr().out == ""  # unchanged: nothing to say
    _edit_as_the_guide_says(project)
    expected, status = _guide_output()
    assert main(arguments) == status
    assert capsys.readouterr().out.splitlines() == expected
