"""The `mcp-codegen-check` hook, run by the real pre-commit tool in a git repository of a
scaffolded project: the scaffold's local hook as written, with real `git commit`s, and
the hook this repository offers (the remote form) through `pre-commit try-repo`.

pre-commit installs each hook into an environment of its own: the local hook's from this
checkout (where the running mcp-codegen came from), the offered hook's from a throwaway
git copy of this working tree (tracked and untracked files alike, so the test sees the
code as it is on disk, committed or not). PRE_COMMIT_HOME is private to the module, so
each environment is built once (about 20 s) and shared by every call.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from mcp_schemagen import scaffold
from tests.support.paths import REPO
from tests.support.projects import run_cli

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
HOOK = scaffold.HOOK_ID
# What `pip install` of mcp-codegen needs from the working tree.
_SHIPPED_ROOTS = ("mcp_schemagen/", "templates/", "specs/")
_SHIPPED_FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "LICENSE")


def _git(*argv: str, cwd: Path) -> str:
    done = subprocess.run(
        [
            "git",
            "-c",
            "user.name=test",
            "-c",
            "user.email=test@example.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
            *argv,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, f"git {argv}: {done.stdout}{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def environment(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = dict(os.environ)
    env["PRE_COMMIT_HOME"] = str(tmp_path_factory.mktemp("pre-commit-home"))
    # The hook's `check` finds protocol schemas where the rest of the suite does
    # (conftest sets MCP_CODEGEN_SPEC_MIRROR and a private cache), like a user's env would.
    assert "MCP_CODEGEN_SPEC_MIRROR" in env or "MCP_CODEGEN_CACHE_DIR" in env
    env.pop("PRE_COMMIT", None)  # set when this suite itself runs inside a hook
    env.pop("VIRTUAL_ENV", None)
    return env


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git copy of this working tree: what pre-commit clones and installs the hook from."""
    listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=REPO)
    root = tmp_path_factory.mktemp("hook-repo")
    for name in sorted(set(filter(None, listed.split("\0")))):
        if (name.startswith(_SHIPPED_ROOTS) or name in _SHIPPED_FILES) and (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    _git("init", "-q", cwd=root)
    _git("add", "-A", cwd=root)
    _git("commit", "-q", "-m", "mcp-codegen working tree", cwd=root)
    return root


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    # One protocol revision keeps each hook run short; the hook does not care how many.
    root = scaffold.scaffold("hooked", tmp_path / "hooked", ["2026-07-28"])
    _git("init", "-q", cwd=root)
    _git("add", "-A", cwd=root)
    _git("commit", "-q", "-m", "scaffold", cwd=root)
    yield root


def _pre_commit(*argv: str, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    done = subprocess.run(
        [str(PRE_COMMIT), *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    return done.returncode, done.stdout + done.stderr


def _edit_a_tool(project: Path) -> None:
    path = project / "tools" / "greet.json"
    tool = json.loads(path.read_text(encoding="utf-8"))
    tool["description"] = "Greet someone by name, warmly."
    path.write_text(json.dumps(tool, indent=2) + "\n", encoding="utf-8")


def _assert_stale_report(output: str) -> None:
    assert f"{HOOK}" in output or "mcp-codegen check" in output
    assert "Failed" in output
    # The hook names the edited file at once, from the build record (no generation).
    assert re.search(r"^tools/greet\.json: changed since the last build$", output, re.MULTILINE)
    assert "generated code is stale. Fix with:\n    mcp-codegen build ." in output
    assert "`mcp-codegen check --diff .` shows the changes" in output


def test_try_repo_passes_fails_after_a_tool_edit_and_passes_after_build(
    project: Path, hook_repo: Path, environment: dict[str, str]
) -> None:
    try_repo = ("try-repo", str(hook_repo), HOOK, "--all-files")

    code, output = _pre_commit(*try_repo, cwd=project, env=environment)
    assert code == 0, output
    assert "Passed" in output

    _edit_a_tool(project)
    code, output = _pre_commit(*try_repo, cwd=project, env=environment)
    assert code == 1, output
    _assert_stale_report(output)

    code, _, err = run_cli("build", "-q", str(project))
    assert code == 0, err
    code, output = _pre_commit(*try_repo, cwd=project, env=environment)
    assert code == 0, output
    assert "Passed" in output


def test_the_scaffolded_config_guards_commits_as_written(
    project: Path, environment: dict[str, str]
) -> None:
    # The scaffold's own .pre-commit-config.yaml, unchanged: a local hook whose
    # environment pre-commit installs from where this mcp-codegen came from (here, this
    # checkout), so the first real `git commit` works before anything is published.
    config = yaml.safe_load((project / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert config["repos"][0]["repo"] == "local"
    code, output = _pre_commit("install", cwd=project, env=environment)
    assert code == 0, output

    def commit(message: str) -> subprocess.CompletedProcess[str]:
        _git("add", "-A", cwd=project)
        return subprocess.run(
            [
                "git",
                "-c",
                "user.name=test",
                "-c",
                "user.email=test@example.invalid",
                "-c",
                "commit.gpgsign=false",
                "commit",
                "-q",
                "-m",
                message,
            ],
            cwd=project,
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
        )

    (project / "README.md").write_text("# hooked\n", encoding="utf-8")
    done = commit("a file no build reads")  # pre-commit makes the hook's env now
    assert done.returncode == 0, done.stdout + done.stderr
    # The hook runs on every commit: no file filter frozen at scaffold time.
    assert "Skipped" not in done.stdout + done.stderr
    assert "Passed" in done.stdout + done.stderr

    head = _git("rev-parse", "HEAD", cwd=project)
    _edit_a_tool(project)
    done = commit("a tool edit without a build")
    assert done.returncode != 0
    _assert_stale_report(done.stdout + done.stderr)
    assert _git("rev-parse", "HEAD", cwd=project) == head, "the commit was refused"

    code, _, err = run_cli("build", "-q", str(project))
    assert code == 0, err
    done = commit("the tool edit with its build")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout + done.stderr
    assert _git("status", "--porcelain", cwd=project) == ""

    # A content file the scaffold never had, named by a resource added later (in a format
    # and folder no filter written at scaffold time would list): editing it alone, without
    # a build, is refused as well.
    (project / "notes").mkdir()
    (project / "notes" / "faq.txt").write_text("Q: why?\nA: because.\n", encoding="utf-8")
    faq = {"uri": "docs://faq", "name": "faq", "mimeType": "text/plain"}
    (project / "resources" / "faq.json").write_text(
        json.dumps({**faq, "x-mcp-codegen-file": "notes/faq.txt"}), encoding="utf-8"
    )
    code, _, err = run_cli("build", "-q", str(project))
    assert code == 0, err
    done = commit("a resource read from a new content file, built")
    assert done.returncode == 0, done.stdout + done.stderr
    head = _git("rev-parse", "HEAD", cwd=project)
    (project / "notes" / "faq.txt").write_text("Q: why?\nA: it depends.\n", encoding="utf-8")
    done = commit("the content file edited without a build")
    assert done.returncode != 0, done.stdout + done.stderr
    assert re.search(
        r"^notes/faq\.txt: changed since the last build$", done.stdout + done.stderr, re.MULTILINE
    ), done.stdout + done.stderr
    assert _git("rev-parse", "HEAD", cwd=project) == head, "the commit was refused"
