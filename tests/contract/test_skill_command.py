"""`mcp-codegen breaking` on skills end to end: a project with a skills/ folder in a
temporary git repository, compared with its commit: a skill or a file removed breaks
callers, a file's content changed (its digest) or a file added breaks the hosts holding
the entry, allowed-tools changed is a safety change, other front matter is compatible."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mcp_schemagen.cli import main

PYPROJECT = '[project]\nname = "shop"\n\n[tool.mcp-codegen]\npackage = "shop"\n'
REFUNDS = "---\nname: refunds\ndescription: Refund orders.\nallowed-tools: Read\n---\nSteps.\n"
GIT = "---\nname: git-flow\ndescription: Branch and commit.\n---\nBranch from main.\n"


def _git(where: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *arguments],
        cwd=where,
        capture_output=True,
        check=True,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "repo"
    refunds = project / "skills" / "acme" / "refunds"
    (refunds / "references").mkdir(parents=True)
    (refunds / "SKILL.md").write_text(REFUNDS, encoding="utf-8")
    (refunds / "references" / "POLICY.md").write_text("30 days.\n", encoding="utf-8")
    (refunds / "references" / "OLD.md").write_text("old\n", encoding="utf-8")
    (project / "skills" / "git-flow").mkdir(parents=True)
    (project / "skills" / "git-flow" / "SKILL.md").write_text(GIT, encoding="utf-8")
    (project / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "first")
    return project


def _run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, list[str], str]:
    code = main(["breaking", *arguments])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


def test_unchanged_skills_say_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "--against", "HEAD", str(project))[:2] == (0, [])


def test_a_removed_skill_breaks_callers(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "skills" / "git-flow" / "SKILL.md").unlink()
    code, out, _ = _run(capsys, "--against", "HEAD", str(project))
    assert code == 1
    assert (
        "skills/git-flow/SKILL.md: breaking (callers): skill 'skill://git-flow/SKILL.md'"
        " removed: skills/get and resources/read of its files fail" in out
    )
    assert (
        "skills/git-flow/SKILL.md: cache: skill 'skill://git-flow/SKILL.md' removed from"
        " skills/list" in out
    ), out


def test_file_changes_and_front_matter(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refunds = project / "skills" / "acme" / "refunds"
    (refunds / "references" / "POLICY.md").write_text("14 days.\n", encoding="utf-8")
    (refunds / "references" / "OLD.md").unlink()
    (refunds / "references" / "NEW.md").write_text("new\n", encoding="utf-8")
    changed = REFUNDS.replace("Refund orders.", "Refund paid orders.").replace("Read", "Read Bash")
    (refunds / "SKILL.md").write_text(changed, encoding="utf-8")
    code, out, _ = _run(capsys, "--against", "HEAD", str(project))
    assert code == 1
    expected = [
        "skills/acme/refunds/references/OLD.md: breaking (callers): file"
        " 'skill://acme/refunds/references/OLD.md' removed from the skill: resources/read of it"
        " fails",
        "skills/acme/refunds/references/NEW.md: breaking (result consumers): file"
        " 'skill://acme/refunds/references/NEW.md' added to the skill: its set of files changed,"
        " so hosts ask for approval again",
        "skills/acme/refunds/SKILL.md#/allowed-tools: safety: front matter 'allowed-tools'"
        " changed: the tools the skill may use unasked changed; hosts must ask again",
        "skills/acme/refunds/SKILL.md#/description: compatible: front matter 'description' changed",
    ]
    for line in expected:
        assert line in out, out
    digests = [line for line in out if "content changed (sha256:" in line]
    assert [line.split(":")[0] for line in digests] == [
        "skills/acme/refunds/SKILL.md",
        "skills/acme/refunds/references/POLICY.md",
    ]
    assert all(": breaking (result consumers): " in line for line in digests)


def test_a_moved_skill_is_named(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "skills" / "acme" / "refunds").rename(project / "skills" / "refunds")
    code, out, _ = _run(capsys, "--against", "HEAD", str(project))
    assert code == 1
    assert (
        "skills/acme/refunds/SKILL.md: breaking (callers): skill 'skill://acme/refunds/SKILL.md'"
        " removed: skills/get and resources/read of its files fail (moved to"
        " 'skill://refunds/SKILL.md'? the same front matter)" in out
    )
    assert "skills/refunds/SKILL.md: compatible: skill 'skill://refunds/SKILL.md' added" in out
