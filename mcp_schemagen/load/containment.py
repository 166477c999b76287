"""Paths that leave the project: the build reads tool files and writes the package only
inside the folder holding pyproject.toml, unless the user passes --allow-outside-project.

A project may come from anyone (a cloned repository): its configuration, a symbolic link
in tools/ or in the package must not make a build read, print, overwrite or remove a file
elsewhere on the machine.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath, PureWindowsPath

from mcp_schemagen.diagnostics import Diagnostic, error

ALLOW_FLAG = "--allow-outside-project"


def inside(path: Path, root: Path) -> bool:
    """Whether ``path``, with every symbolic link followed, lies in ``root``."""
    return path.resolve().is_relative_to(root.resolve())


def glob_problem(pattern: str, allow_outside: bool) -> str | None:
    """Why a tool glob cannot be used, if it cannot."""
    if PurePosixPath(pattern).is_absolute() or PureWindowsPath(pattern).anchor:
        return (
            f"tool glob {pattern!r} is absolute; globs are relative to pyproject.toml "
            '(like "tools/*.json"): copy or link the files into the project'
        )
    if not allow_outside and ".." in PurePosixPath(pattern.replace("\\", "/")).parts:
        return (
            f"tool glob {pattern!r} leaves the project; keep tool files inside it, or pass "
            f"{ALLOW_FLAG} to build and check"
        )
    return None


def outside_message(what: str) -> str:
    return (
        f"{what} leads outside the project (the folder holding pyproject.toml); keep it "
        f"inside, or pass {ALLOW_FLAG} to build and check"
    )


def package_link_problems(package_dir: Path, file: str) -> list[Diagnostic]:
    """Symbolic links inside the generated package: the build writes, reads back and
    removes files there, so a link would carry those writes anywhere. Reported, not
    followed, whatever the flag says."""
    if not package_dir.is_dir() or package_dir.is_symlink():
        return []
    problems = []
    for folder, folders, files in os.walk(package_dir):
        for name in sorted([*folders, *files]):
            path = Path(folder) / name
            if path.is_symlink():
                shown = path.relative_to(package_dir.parent).as_posix()
                problems.append(
                    error(
                        file,
                        "",
                        f"{shown} is a symbolic link; the generated package holds only files "
                        "the build writes, so the build never writes through a link. Remove it",
                    )
                )
    return problems
