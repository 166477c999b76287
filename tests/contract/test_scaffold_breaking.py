"""A project made by `mcp-codegen new` runs `mcp-codegen breaking` as its README and its
pre-commit configuration say: committed, a tool changed, the break named and failing."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from mcp_schemagen import scaffold
from mcp_schemagen.cli import main

NAME = "demo_server"


def _git(where: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *arguments],
        cwd=where,
        capture_output=True,
        check=True,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scaffold") / NAME
    scaffold.scaffold(NAME, root, None)
    return root


def test_a_scaffolded_project_is_checked_against_its_main_branch(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _git(project, "init", "-q", "-b", "main")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "new")
    assert main(["breaking", "--against", "main", str(project)]) == 0
    assert capsys.readouterr().out == ""
    path = project / "tools" / "greet.json"
    tool = json.loads(path.read_text(encoding="utf-8"))
    tool["inputSchema"]["properties"]["language"] = {"type": "string"}
    tool["inputSchema"]["required"] = [*tool["inputSchema"].get("required", []), "language"]
    path.write_text(json.dumps(tool, indent=2), encoding="utf-8")
    assert main(["breaking", "--against", "main", str(project)]) == 1
    out = capsys.readouterr().out
    assert (
        "tools/greet.json#/inputSchema/required: breaking (callers): 'language' is now required"
        in out
    )


def test_its_pre_commit_config_carries_the_hook_commented_out(project: Path) -> None:
    text = (project / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    (repo,) = yaml.safe_load(text)["repos"]
    assert [hook["id"] for hook in repo["hooks"]] == [scaffold.HOOK_ID], "off by default"
    # Uncommented as its comment says, it is a hook that runs the command on schema files.
    enabled = re.sub(r"(?m)^(\s+)# (- id: mcp-codegen-breaking|  \w)", r"\1\2", text)
    hooks = {hook["id"]: hook for hook in yaml.safe_load(enabled)["repos"][0]["hooks"]}
    hook = hooks["mcp-codegen-breaking"]
    assert hook["entry"] == "mcp-codegen breaking --against origin/main"
    assert hook["additional_dependencies"] == hooks[scaffold.HOOK_ID]["additional_dependencies"]
    files = re.compile(hook["files"])
    for path in ("tools/greet.json", "prompts/proofread.yaml", "breaking-acknowledged.yaml"):
        assert files.search(path), path
    assert not files.search(f"{NAME}/_dispatch.py")
    readme = (project / "README.md").read_text(encoding="utf-8")
    assert "mcp-codegen breaking --against origin/main" in readme
