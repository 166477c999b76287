"""`mcp-codegen breaking` end to end: a project in a folder of a temporary git repository,
compared with a commit, a saved tools/list, acknowledgements and breaking-fail."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen.cli import main

TOOL: dict[str, Any] = {
    "name": "order",
    "description": "Place an order.",
    "inputSchema": {
        "type": "object",
        "properties": {"quantity": {"type": "integer", "minimum": 1, "maximum": 100}},
        "required": ["quantity"],
    },
}
PYPROJECT = '[project]\nname = "shop"\n\n[tool.mcp-codegen]\npackage = "shop"\n'


def _git(where: Path, *arguments: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *arguments],
        cwd=where,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _write_tool(project: Path, tool: dict[str, Any]) -> None:
    (project / "tools" / "order.json").write_text(json.dumps(tool, indent=2), encoding="utf-8")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project in the folder services/shop of a repository, committed once."""
    repository = tmp_path / "repo"
    project = repository / "services" / "shop"
    (project / "tools").mkdir(parents=True)
    (project / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    _write_tool(project, TOOL)
    _git(repository, "init", "-q")
    _git(repository, "add", "-A")
    _git(repository, "commit", "-qm", "first")
    return project


def _narrowed(project: Path) -> None:
    tool = json.loads(json.dumps(TOOL))
    tool["inputSchema"]["properties"]["quantity"]["maximum"] = 10
    _write_tool(project, tool)


def _run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(["breaking", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


NARROWED = (
    "tools/order.json#/inputSchema/properties/quantity/maximum: breaking (callers): "
    "maximum 100 → maximum 10"
)
CACHED = (
    "tools/order.json: cache: inputSchema changed: the listing bytes differ for revisions "
    "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"
)


def test_a_narrowed_argument_fails_against_the_last_commit(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _narrowed(project)
    code, out, err = _run(capsys, "--against", "HEAD", str(project))
    assert code == 1, err
    assert out.splitlines() == [CACHED, NARROWED]
    assert "breaking-acknowledged.yaml" in err  # says how to accept it on purpose
    # Nothing was checked out: the working tree keeps the change, HEAD did not move.
    assert '"maximum": 10' in (project / "tools" / "order.json").read_text(encoding="utf-8")
    assert _git(project, "status", "--porcelain").strip() == "M services/shop/tools/order.json"


def test_unchanged_passes_and_a_widened_argument_passes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(capsys, "--against", "HEAD", str(project))[:2] == (0, "")
    tool = json.loads(json.dumps(TOOL))
    tool["inputSchema"]["properties"]["quantity"]["maximum"] = 1000
    _write_tool(project, tool)
    code, out, _ = _run(capsys, "--against", "HEAD", str(project))
    assert code == 0
    assert "compatible: maximum 100 → maximum 1000" in out


def test_json_format(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _narrowed(project)
    code, out, _ = _run(capsys, "--against", "HEAD", "--format", "json", str(project))
    document = json.loads(out)
    assert code == 1 and document["failing"] is True
    cache, change = document["changes"]
    assert cache["category"] == "cache"
    assert change == {
        "file": "tools/order.json",
        "pointer": "/inputSchema/properties/quantity/maximum",
        "category": "breaking-callers",
        "what": "maximum 100 → maximum 10",
        "acknowledged": None,
    }


def test_an_acknowledged_break_passes_and_an_unused_one_is_reported(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _narrowed(project)
    (project / "breaking-acknowledged.yaml").write_text(
        "- pointer: tools/order.json#/inputSchema/properties/quantity/maximum\n"
        "  reason: the warehouse ships at most 10\n"
        "- pointer: tools/order.json#/inputSchema/required\n"
        "  reason: stale\n",
        encoding="utf-8",
    )
    code, out, err = _run(capsys, "--against", "HEAD", str(project))
    assert code == 0, err
    assert out.splitlines() == [
        CACHED,
        f"{NARROWED} (acknowledged: the warehouse ships at most 10)",
    ]
    assert (
        "breaking-acknowledged.yaml#/1: unused acknowledgement: no change at "
        "tools/order.json#/inputSchema/required" in err
    )


def test_an_acknowledgement_for_another_ref_does_not_apply(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _narrowed(project)
    (project / "breaking-acknowledged.yaml").write_text(
        "- pointer: tools/order.json#/inputSchema/properties/quantity/maximum\n"
        "  reason: accepted for the 2.0 release\n  ref: v2.0\n",
        encoding="utf-8",
    )
    assert _run(capsys, "--against", "HEAD", str(project))[0] == 1


def test_a_malformed_acknowledgement_is_an_error_with_its_pointer(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "breaking-acknowledged.yaml").write_text("- pointer: x\n", encoding="utf-8")
    code, _, err = _run(capsys, "--against", "HEAD", str(project))
    assert code == 2
    assert "breaking-acknowledged.yaml#/0/reason: error: reason:" in err


def test_breaking_fail_chooses_the_failing_categories(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(PYPROJECT + 'breaking-fail = ["unknown"]\n', encoding="utf-8")
    _narrowed(project)
    assert _run(capsys, "--against", "HEAD", str(project))[0] == 0
    tool = json.loads(json.dumps(TOOL))
    tool["inputSchema"]["properties"]["quantity"]["not"] = {"const": 13}
    _write_tool(project, tool)
    code, out, _ = _run(capsys, "--against", "HEAD", str(project))
    assert code == 1 and "#/inputSchema/properties/quantity/not: unknown:" in out
    pyproject.write_text(
        PYPROJECT + 'breaking-fail = ["breaking", "sometimes"]\n', encoding="utf-8"
    )
    code, _, err = _run(capsys, "--against", "HEAD", str(project))
    assert code == 2 and "unknown categories 'sometimes'" in err


def test_an_older_commit_and_a_deleted_file(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _narrowed(project)
    _git(project, "commit", "-qam", "narrow")
    (project / "tools" / "order.json").unlink()
    code, out, _ = _run(capsys, "--against", "HEAD~1", str(project))
    assert code == 1
    assert "tools/order.json: breaking (callers): tool 'order' removed" in out


def test_an_old_file_the_build_would_refuse_is_left_out_and_said(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "tools" / "broken.json").write_text("{not json", encoding="utf-8")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "broken")
    (project / "tools" / "broken.json").unlink()
    code, _, err = _run(capsys, "--against", "HEAD", str(project))
    assert code == 0
    assert "tools/broken.json#: error: not valid JSON" in err and "(at HEAD)" in err


def test_files_at_a_revision_are_chosen_by_that_revisions_globs(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The tools moved to another folder since HEAD, and the globs with them: HEAD's files
    # are those its own pyproject.toml chose, so nothing reads as removed.
    (project / "tools").rename(project / "definitions")
    moved = PYPROJECT + 'tools = ["definitions/*.json"]\n'
    (project / "pyproject.toml").write_text(moved, encoding="utf-8")
    assert _run(capsys, "--against", "HEAD", str(project))[:2] == (0, "")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "moved")
    (project / "definitions").rename(project / "tools")
    (project / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    _narrowed(project)
    code, out, _ = _run(capsys, "--against", "HEAD", str(project))
    assert code == 1 and NARROWED in out.splitlines()
    assert "removed" not in out


def test_an_unreadable_pyproject_at_the_revision_falls_back_to_todays_globs(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text(PYPROJECT + 'tools = "tools/*.json"\n')
    _git(project, "commit", "-qam", "a string, not a list")
    (project / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    _narrowed(project)
    code, out, err = _run(capsys, "--against", "HEAD", str(project))
    assert code == 1 and NARROWED in out.splitlines()
    assert "pyproject.toml at HEAD#/tool/mcp-codegen/tools: not a list of globs" in err


@pytest.mark.parametrize("reference", ["no-such-branch", "HEAD~5"])
def test_an_unknown_revision_is_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], reference: str
) -> None:
    code, out, err = _run(capsys, "--against", reference, str(project))
    assert (code, out) == (2, "")
    assert f"no commit {reference!r} in this repository" in err


def test_outside_a_repository_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    code, _, err = _run(capsys, "--against", "HEAD", str(tmp_path))
    assert code == 2 and "is not in a git repository git can read" in err


def test_against_a_saved_listing(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = tmp_path / "deployed.json"
    response = {"jsonrpc": "2.0", "id": 1, "result": {"tools": [TOOL]}}
    listing.write_text(json.dumps(response), encoding="utf-8")
    code, out, err = _run(capsys, "--against", str(listing), str(project))
    assert (code, out) == (0, "")
    assert "deployed.json: holds no prompts/list result: prompts are not compared" in err
    _narrowed(project)
    code, out, _ = _run(capsys, "--against", str(listing), str(project))
    assert code == 1 and NARROWED in out.splitlines()


def test_a_file_that_is_not_a_listing_is_exit_2(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listing = tmp_path / "other.json"
    listing.write_text('{"name": "order"}', encoding="utf-8")
    code, _, err = _run(capsys, "--against", str(listing), str(project))
    assert (
        code == 2
        and "other.json#: error: not a saved tools/list, prompts/list, resources/list" in err
    )


def test_the_command_line_entry_and_its_help(project: Path) -> None:
    _narrowed(project)
    done = subprocess.run(
        [sys.executable, "-m", "mcp_schemagen.cli", "breaking", "--against", "HEAD", "."],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and done.stdout.splitlines() == [CACHED, NARROWED]
    shown = subprocess.run(
        [sys.executable, "-m", "mcp_schemagen.cli", "breaking", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for said in (
        "--against REF|FILE",
        "breaking (callers)",
        "safety",
        "cache",
        "unknown",
        "breaking-fail",
    ):
        assert said in shown, said


def test_a_linked_tool_file_is_followed_inside_the_project_and_not_outside(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = project / "shared"
    shared.mkdir()
    (project / "tools" / "order.json").rename(shared / "order.json")
    (project / "tools" / "order.json").symlink_to("../shared/order.json")
    outside = project.parent / "elsewhere.json"
    outside.write_text(json.dumps({**TOOL, "name": "elsewhere"}), encoding="utf-8")
    (project / "tools" / "elsewhere.json").symlink_to("../../elsewhere.json")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "links")
    (project / "tools" / "elsewhere.json").unlink()
    # The linked file is read at the revision: unchanged, nothing to say about it.
    code, out, err = _run(capsys, "--against", "HEAD", str(project))
    assert (code, out) == (0, ""), err
    assert (
        "tools/elsewhere.json: not read at HEAD: a symbolic link that leads outside the "
        "project (or nowhere) at this revision" in err
    )
    _narrowed(project)  # writes through the link
    code, out, _ = _run(capsys, "--against", "HEAD", str(project))
    # Named as the build names a linked file: by the file it leads to.
    assert code == 1 and NARROWED.replace("tools/", "shared/") in out.splitlines()


def test_against_a_saved_prompts_listing(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prompt = {"name": "brief", "arguments": [{"name": "city", "required": True}]}
    (project / "prompts").mkdir()
    (project / "prompts" / "brief.json").write_text(json.dumps(prompt), encoding="utf-8")
    listing = tmp_path / "prompts.json"
    old = {**prompt, "arguments": [{"name": "city"}]}
    listing.write_text(json.dumps({"result": {"prompts": [old]}}), encoding="utf-8")
    code, out, err = _run(capsys, "--against", str(listing), str(project))
    assert code == 1
    assert (
        "prompts/brief.json#/arguments/0: breaking (callers): argument 'city' is now required"
        in out.splitlines()
    )
    assert "prompts.json: holds no tools/list result: tools are not compared" in err
