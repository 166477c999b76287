"""Read files at a git revision with git itself: no checkout, no shell, list arguments."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

_SYMLINK_MODE = "120000"


class RevisionError(Exception):
    """The revision to compare with cannot be read: no repository, no such commit."""


def _git(directory: Path, *arguments: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["git", "-C", str(directory), *arguments], capture_output=True, check=False
        )
    except FileNotFoundError:
        raise RevisionError("git is not installed or not on PATH") from None


@dataclass(frozen=True)
class Revision:
    top: Path  # the repository's top folder
    prefix: str  # the project folder inside it ("" at the top), with a trailing "/"
    commit: str
    reference: str

    @classmethod
    def open(cls, root: Path, reference: str) -> Revision:
        found = _git(root, "rev-parse", "--show-toplevel")
        if found.returncode != 0:
            message = (
                f"{root} is not in a git repository, so there is no revision to compare with; "
                "pass a saved tools/list file instead, or run `git init`"
            )
            raise RevisionError(message)
        top = Path(found.stdout.decode().strip()).resolve()
        if reference.startswith("-"):
            raise RevisionError(f"--against {reference}: a revision does not start with '-'")
        commit = _git(root, "rev-parse", "--verify", "--quiet", f"{reference}^{{commit}}")
        if commit.returncode != 0:
            message = (
                f"no commit {reference!r} in this repository (and no file of that name); "
                "name a branch, tag or commit, like HEAD~1 or origin/main"
            )
            raise RevisionError(message)
        inside = root.resolve().relative_to(top).as_posix()
        prefix = "" if inside == "." else inside + "/"
        return cls(top, prefix, commit.stdout.decode().strip(), reference)

    def files(self, globs: Iterable[str]) -> list[str]:
        """The project files (relative to the project) the globs match at this revision,
        sorted as the build sorts them; symbolic links are not followed."""
        arguments = ["ls-tree", "-r", "-z", "--full-tree", self.commit]
        listed = _git(self.top, *arguments)
        if listed.returncode != 0:
            raise RevisionError(f"git ls-tree {self.reference}: {listed.stderr.decode().strip()}")
        patterns = tuple(globs)
        found = []
        for entry in listed.stdout.decode("utf-8", "surrogateescape").split("\0"):
            if not entry or "\t" not in entry:
                continue
            meta, path = entry.split("\t", 1)
            if meta.split(" ")[0] == _SYMLINK_MODE or not path.startswith(self.prefix):
                continue
            relative = path[len(self.prefix) :]
            if any(glob_match(pattern, relative) for pattern in patterns):
                found.append(relative)
        return sorted(found)

    def read(self, relative: str) -> bytes:
        shown = _git(self.top, "cat-file", "blob", f"{self.commit}:{self.prefix}{relative}")
        if shown.returncode != 0:
            raise RevisionError(f"{relative} at {self.reference}: {shown.stderr.decode().strip()}")
        return shown.stdout


def glob_match(pattern: str, path: str) -> bool:
    """pathlib's glob, on strings: ``*`` stays within a folder, ``**`` spans folders."""
    return _match(pattern.split("/"), path.split("/"))


def _match(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_match(pattern[1:], parts[i:]) for i in range(len(parts) + 1))
    if not parts or not fnmatchcase(parts[0], pattern[0]):
        return False
    return _match(pattern[1:], parts[1:])
