"""The README and the documentation site as written: the handler-context guide's example
serves real notifications, and the README's quick start works in a fresh shell (the slow
one: two virtual environments, about 3 min).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import tomllib
from pathlib import Path

from mcp_schemagen import DISTRIBUTION
from tests.support.docs import block, section
from tests.support.paths import REPO
from tests.support.projects import run_cli, write_project
from tests.support.shell import markdown_block, run_in_fresh_shell
from tests.support.stdio_conversation import Conversation

README = (REPO / "README.md").read_text(encoding="utf-8")


def _block(heading: str, language: str) -> str:
    return markdown_block(README, heading, language)


def test_the_handler_context_example_logs_and_reports_progress(tmp_path: Path) -> None:
    example = block(
        "how-to/handler-context.md",
        "# The handler context: logging, progress, cancellation",
        "python",
    )
    long_job = {
        "name": "long_job",
        "description": "Do some slow work, saying how far it got.",
        "inputSchema": {
            "type": "object",
            "properties": {"steps": {"type": "integer", "minimum": 1}},
            "required": ["steps"],
        },
    }
    root = write_project(tmp_path / "p", {"long_job.json": long_job}, revisions=("2025-06-18",))
    (root / "server").mkdir()
    (root / "server" / "handlers.py").write_text(example, encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    assert (root / "server" / "handlers.py").read_text(encoding="utf-8") == example, "as written"

    client = Conversation(root, "server", "2025-06-18", tmp_path / "stderr.txt")
    try:
        client.result(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "readme", "version": "1"},
            },
        )
        client.notify("notifications/initialized")
        assert client.result("logging/setLevel", {"level": "info"}) == {}
        call = {"name": "long_job", "arguments": {"steps": 2}, "_meta": {"progressToken": "t"}}
        result = client.result("tools/call", call)
        assert result["content"] == [{"type": "text", "text": "finished 2 steps"}]
        methods = [n["method"] for n in client.notifications]
        assert methods == ["notifications/message"] + ["notifications/progress"] * 2
        assert client.notifications[0]["params"] == {
            "level": "info",
            "data": {"starting": 2},
            "logger": "long_job",
        }
        assert client.notifications[2]["params"]["message"] == "step 2 of 2"
        refused = client.result("tools/call", {"name": "long_job", "arguments": {"steps": 101}})
        assert refused["isError"] is True
        assert refused["content"][0]["text"] == "at most 100 steps; ask for fewer"
    finally:
        client.kill()


def test_the_quick_start_works_as_written_in_a_fresh_shell(tmp_path: Path) -> None:
    script = _block("## Quick start", "sh")
    assert "/path/to/mcp-codegen" in script and "~/.mcp-codegen" in script
    script = script.replace("~/.mcp-codegen", str(tmp_path / "generator-env"))
    script = script.replace("/path/to/mcp-codegen", str(REPO))
    done = run_in_fresh_shell(script, tmp_path, tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-6000:]
    assert re.search(r" 12 passed", done.stdout), done.stdout[-2000:]
    assert "generated code is up to date" in done.stdout

    # The steps `new` printed are the ones the quick start ran after it.
    project = tmp_path / "weather_server"
    printed = done.stdout.split("Set it up", 1)[1]
    after_new = script.split("mcp-codegen new weather_server", 1)[1].splitlines()[1:5]
    for line in after_new:
        assert line.split("#")[0].strip() in printed, line
    # The project's README and hook name the generator the way it was installed here.
    requirement = f"{DISTRIBUTION} @ {REPO.as_uri()}"
    assert f"pip install '{requirement}'" in (project / "README.md").read_text(encoding="utf-8")
    hook = (project / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert f"additional_dependencies: [{json.dumps(requirement)}]" in hook


def test_tasks_example_says_how_to_talk_to_the_server_where_the_cli_is_and_how_to_start() -> None:
    spec = importlib.util.spec_from_file_location("tasks", REPO / "tasks.py")
    assert spec is not None and spec.loader is not None
    tasks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tasks)
    steps: str = tasks.EXAMPLE_NEXT_STEPS
    settings = tomllib.loads((REPO / "example" / "pyproject.toml").read_text(encoding="utf-8"))
    package = settings["tool"]["mcp-codegen"]["package"]
    out = (REPO / "example" / settings["tool"]["mcp-codegen"]["out"]).resolve()
    assert f"{out.relative_to(REPO)}/{package}/handlers.py" in steps
    commands = [line.strip() for line in steps.splitlines() if line.startswith("    ")]
    # Each command names the environment tasks.py makes, from the folder it cds into.
    for command in commands:
        folder = REPO
        if command.startswith("cd "):
            where, command = command[3:].split(" && ", 1)
            folder = REPO / where
        words = shlex.split(command, comments=True)
        executables = [w for w in words if "/bin/" in w]
        assert executables, command
        for executable in executables:
            located = Path(os.path.normpath(folder / executable))
            assert located.parent == Path(tasks.BIN), command
    assert any(
        "@modelcontextprotocol/inspector --cli" in c and f"-m {package}" in c for c in commands
    )
    assert any(" new " in c for c in commands)
    assert "README.md" in steps
    # the Inspector's tools/list shows one page: say how big, and that there is more
    page = settings["tool"]["mcp-codegen"]["page-size"]
    assert f"lists {page} tools per tools/list page" in steps and "nextCursor" in steps


def test_the_conformance_section_says_what_fails_as_the_expected_failures_do() -> None:
    expected = "\n".join(
        path.read_text(encoding="utf-8")
        for path in (REPO / "tests" / "e2e" / "conformance").glob("expected-failures-*.yaml")
    )
    entries = re.findall(r"^\s*-\s*(\S+)", expected, re.MULTILINE)
    conformance = section("reference/conformance.md", "# Conformance")
    passing, _, failing = conformance.partition("What does not")
    assert failing, "the section says what does not pass"
    passes = ("sampling", "elicitation", "roots", "prompts", "completion", "resources")
    for feature in (*passes, "subscriptions"):
        # what the README says passes is in no expected failure, and is not said to wait
        assert not [e for e in entries if feature in e], feature
        assert feature in passing.lower() and feature not in failing.lower(), feature
    assert [e for e in entries if e.startswith("tasks")] and "tasks" in failing


def test_nothing_done_is_announced_as_to_come() -> None:
    deployment = section("how-to/http-and-deployment.md", "## Deployment")
    assert "to come" not in deployment
    assert "elicitation, sampling, roots" in deployment


def test_node_versions_say_what_needs_which() -> None:
    # The Inspector runs on Node 20; only the conformance suite needs 22 (tests install it).
    scaffold_readme = (REPO / "templates" / "scaffold" / "README.md.jinja").read_text(
        encoding="utf-8"
    )
    tasks = (REPO / "tasks.py").read_text(encoding="utf-8")
    for text in (README, scaffold_readme, tasks):
        assert "Node.js 22" not in text and "Node.js 20 or newer" in text
    assert "Node 22, which the suite requires" in section(
        "reference/conformance.md", "# Conformance"
    )
