"""Helpers for tests that build small projects in a temporary folder."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcp_schemagen.cli import main
from tests.support.paths import REPO

EXAMPLE = REPO / "example"
EXAMPLE_HANDLERS = REPO / "generated" / "example_server" / "handlers.py"

# One protocol revision keeps inline builds fast; tests about revisions choose their own.
FAST_REVISIONS = ("2026-07-28",)


def write_project(
    root: Path,
    tools: Mapping[str, Any],
    *,
    package: str = "server",
    revisions: tuple[str, ...] = FAST_REVISIONS,
    extra: str = "",
) -> Path:
    """A project in ``root``: ``tools`` maps file names under tools/ to their content
    (a JSON-able value, or text written as is)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "1.2.3"\n\n[tool.mcp-codegen]\n'
        f'package = "{package}"\nrevisions = {json.dumps(list(revisions))}\n{extra}',
        encoding="utf-8",
    )
    folder = root / "tools"
    folder.mkdir(exist_ok=True)
    for name, content in tools.items():
        text = content if isinstance(content, str) else json.dumps(content, indent=2)
        (folder / name).write_text(text, encoding="utf-8")
    return root


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def tool(name: str = "echo", **fields: Any) -> dict[str, Any]:
    definition: dict[str, Any] = {
        "name": name,
        "description": "Echo the text back.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    }
    definition.update(fields)
    return definition


def build_embedded_example(destination: Path, seed: str = "0", cache: Path | None = None) -> Path:
    """Build a copy of the embedded example (with its committed handler bodies) in a fresh
    interpreter; returns the folder holding the ``example_server`` package."""
    project = destination / "example"
    shutil.copytree(EXAMPLE, project)
    settings = (project / "pyproject.toml").read_text(encoding="utf-8")
    settings = settings.replace('out = "../generated"', 'out = "out"')
    (project / "pyproject.toml").write_text(settings, encoding="utf-8")
    package = project / "out" / "example_server"
    package.mkdir(parents=True)
    shutil.copy(EXAMPLE_HANDLERS, package / "handlers.py")
    environment = {**os.environ, "PYTHONHASHSEED": seed}
    if cache is not None:
        environment["MCP_CODEGEN_CACHE_DIR"] = str(cache)
    subprocess.run(
        [sys.executable, "-m", "mcp_schemagen.cli", "build", "-q", str(project)],
        env=environment,
        check=True,
        capture_output=True,
    )
    return project / "out"


def mypy_strict(folder: Path, package: str) -> subprocess.CompletedProcess[str]:
    """`mypy --strict` over a generated package, run where it was generated."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", package],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
