"""Read files at a git revision with git itself: no checkout, no shell, list arguments."""

from __future__ import annotations

import posixpath
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

_SYMLINK_MODE = "120000"
_MAX_LINKS = 8


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
            said = found.stderr.decode("utf-8", "replace").strip().splitlines()
            message = (
                f"{root} is not in a git repository git can read, so there is no revision to "
                "compare with; pass a saved tools/list file instead, or run `git init`"
            )
            if said and "not a git repository" not in said[0]:
                message += f" (git: {said[0]})"  # dubious ownership, a broken .git, ...
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
        if not root.resolve().is_relative_to(top):
            raise RevisionError(f"{root} is not inside the repository at {top}")
        inside = root.resolve().relative_to(top).as_posix()
        prefix = "" if inside == "." else inside + "/"
        return cls(top, prefix, commit.stdout.decode().strip(), reference)

    def files(self, globs: Iterable[str]) -> list[TreeFile]:
        """The project files (relative to the project) the globs match at this revision,
        sorted as the build sorts them. A symbolic link is followed while it stays inside
        the project, as the build follows it; one that leaves it is reported, not read."""
        tree = self._tree()
        patterns = tuple(globs)
        found = []
        for path in tree:
            if not path.startswith(self.prefix):
                continue
            relative = path[len(self.prefix) :]
            if any(glob_match(pattern, relative) for pattern in patterns):
                found.append(self._followed(relative, path, tree))
        return sorted(found, key=lambda f: f.relative)

    def project_file(self, relative: str) -> bytes | None:
        """A file of the project (not followed if it is a link) at this revision, or None."""
        path = self.prefix + relative
        mode, _ = self._tree().get(path, (_SYMLINK_MODE, 0))
        return None if mode == _SYMLINK_MODE else self._blob(path)

    def _tree(self) -> dict[str, tuple[str, int]]:
        """path -> (mode, size) of every file at this revision."""
        listed = _git(self.top, "ls-tree", "-r", "-z", "-l", "--full-tree", self.commit)
        if listed.returncode != 0:
            raise RevisionError(f"git ls-tree {self.reference}: {listed.stderr.decode().strip()}")
        tree = {}
        for entry in listed.stdout.decode("utf-8", "surrogateescape").split("\0"):
            if "\t" not in entry:
                continue
            meta, path = entry.split("\t", 1)
            mode, _, _, size = meta.split()
            tree[path] = (mode, int(size) if size.isdigit() else 0)
        return tree

    def _followed(self, relative: str, path: str, tree: dict[str, tuple[str, int]]) -> TreeFile:
        for _ in range(_MAX_LINKS):
            mode, size = tree[path]
            if mode != _SYMLINK_MODE:
                return TreeFile(relative, path, size, None)
            target = posixpath.normpath(
                posixpath.join(posixpath.dirname(path), self._blob(path).decode("utf-8", "replace"))
            )
            if not target.startswith(self.prefix) or target not in tree:
                break
            path = target
        problem = "a symbolic link that leads outside the project (or nowhere) at this revision"
        return TreeFile(relative, path, 0, problem)

    def read(self, file: TreeFile) -> bytes:
        return self._blob(file.path)

    def _blob(self, path: str) -> bytes:
        shown = _git(self.top, "cat-file", "blob", f"{self.commit}:{path}")
        if shown.returncode != 0:
            raise RevisionError(f"{path} at {self.reference}: {shown.stderr.decode().strip()}")
        return shown.stdout


@dataclass(frozen=True)
class TreeFile:
    relative: str  # as the project names it
    path: str  # the blob read, from the repository's top (a link's target)
    size: int
    problem: str | None  # why it is not read


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
