"""Which project a command works on: the folder given, or the nearest one above it whose
pyproject.toml has a ``[tool.mcp-codegen]`` table (as git and ruff find theirs), so that
``mcp-codegen check`` works from any subfolder of a project."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from mcp_schemagen.diagnostics import BuildError, error

_TABLE = "mcp-codegen"


def find_project(start: Path) -> Path:
    """``start`` when it holds a pyproject.toml (its own errors are then reported there),
    else the nearest folder above it with a pyproject.toml that configures mcp-codegen."""
    if (start / "pyproject.toml").is_file():
        return start
    looked: list[Path] = []
    here = start.resolve()
    for folder in (here, *here.parents):
        pyproject = folder / "pyproject.toml"
        looked.append(pyproject)
        if folder != here and _configures_mcp_codegen(pyproject):
            return _short(folder)
    raise BuildError(
        [
            error(
                str(start / "pyproject.toml"),
                "",
                f"no pyproject.toml with a [tool.mcp-codegen] table in {_shown(start)} or any "
                f"folder above it (looked for {', '.join(_shown(p) for p in looked)}); run the "
                "command in a project folder (or pass it), or run `mcp-codegen new NAME` to "
                "start one",
            )
        ]
    )


def _configures_mcp_codegen(pyproject: Path) -> bool:
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if _TABLE not in text:
        return False  # most pyproject.toml files on the way up are someone else's
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    tool = document.get("tool")
    return isinstance(tool, dict) and isinstance(tool.get(_TABLE), dict)


def _short(folder: Path) -> Path:
    """The folder as the user would type it from here (``../..``), for messages."""
    try:
        return Path(os.path.relpath(folder))
    except ValueError:
        return folder


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)
