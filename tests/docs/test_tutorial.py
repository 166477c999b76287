"""The tutorial (docs/tutorial.md), followed word for word: every block, in page order,
in a temporary folder. A `console` block's `$` lines are run in bash (a `cd` moves the
following commands), and the lines under each are what it must print (`...` stands for
anything); a block with `title="PATH"` is written to PATH. A block the test cannot run
fails it, unless it is marked illustrative with its reason."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.docs import DOCS, Fenced, fenced_blocks
from tests.support.paths import needs_shared

TUTORIAL = DOCS / "tutorial.md"
PROJECT = "tickets"  # the folder `mcp-codegen new` makes; its package is importable from it


def _commands(body: str) -> list[tuple[str, list[str]]]:
    """(command, the lines shown under it) for each `$` line of a console block."""
    steps: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif line.strip():
            assert steps, f"output before any command: {line!r}"
            steps[-1][1].append(line)
    return steps


def _shown_in(shown: list[str], printed: str) -> None:
    """Every shown line is a line printed, in order; `...` anywhere stands for anything."""
    pattern = r"\n(?:.*\n)*?".join(
        re.escape(line).replace(re.escape("..."), ".*") for line in shown if line != "..."
    )
    assert re.search(pattern, printed), f"expected, in order:\n{shown}\nprinted:\n{printed}"


def _run(command: str, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        ["bash", "-e", "-c", command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one stream, in the order a terminal shows them
        text=True,
        timeout=600,
        check=False,
    )
    printed = done.stdout
    assert done.returncode == 0, f"$ {command}\n{printed[-4000:]}"
    return printed


def _follow(blocks: list[Fenced], where: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    # The set-up the page marks illustrative (a venv with the project installed) is the
    # Quick start's, run by tests/e2e/test_readme.py; here the test's own environment, on
    # PATH first, serves instead, with the project on PYTHONPATH for its editable install.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = str(where / PROJECT)
    env["PYTHONUNBUFFERED"] = "1"  # stdout and stderr interleaved as in a terminal
    cwd = where
    done: list[str] = []
    for found in blocks:
        if found.mark == "illustrative":
            assert found.mark_detail, f"line {found.line}: say why it is illustrative"
            continue
        if "title" in found.attributes:
            target = cwd / found.attributes["title"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(found.body, encoding="utf-8")
            done.append(f"wrote {found.attributes['title']}")
            continue
        assert found.language == "console", f"line {found.line}: a block the test cannot run"
        for command, shown in _commands(found.body):
            if command.startswith("cd "):
                cwd = (cwd / command[3:].strip()).resolve()
                assert cwd.is_dir(), command
                continue
            _shown_in(shown, _run(command, cwd, env))
            done.append(f"$ {command}")
    return done


@needs_shared
def test_the_tutorial_runs_as_written(tmp_path: Path) -> None:
    assert shutil.which("bash")
    done = _follow(fenced_blocks(TUTORIAL), tmp_path)
    # the steps that make it a tutorial, all of them run
    for step in (
        "$ mcp-codegen new tickets",
        "wrote tools/create_ticket.json",
        "wrote prompts/triage.yaml",
        "wrote resources/tickets.yaml",
        "$ mcp-codegen build",
        "wrote tickets/handlers.py",
        "$ mcp-codegen check",
        "wrote tests/test_tickets.py",
        "$ pytest",
    ):
        assert step in done, (step, done)
    # the handler module is kept as the page shows it by the build that follows it
    handlers = next(
        b for b in fenced_blocks(TUTORIAL) if b.attributes.get("title") == "tickets/handlers.py"
    )
    written = (tmp_path / PROJECT / "tickets" / "handlers.py").read_text(encoding="utf-8")
    assert written == handlers.body


def test_shown_output_must_be_printed() -> None:
    _shown_in(["created tickets", "..."], "created tickets\nSet it up\n")
    _shown_in(["3 passed in ..."], "...\n3 passed in 4.2s\n")
    for shown, printed in ((["2 passed"], "3 passed\n"), (["b", "a"], "a\nb\n")):
        try:
            _shown_in(shown, printed)
        except AssertionError:
            continue
        raise AssertionError(f"{shown} matched {printed!r}")
