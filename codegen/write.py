"""The only stage that touches the disk: atomic writes of changed files, or a diff."""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class OutputFile:
    path: Path
    text: str


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so a reader never sees a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _current(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def changed_files(files: Iterable[OutputFile]) -> list[OutputFile]:
    return [f for f in files if _current(f.path) != f.text]


def write_all(files: Sequence[OutputFile]) -> list[OutputFile]:
    """Write every file whose content differs, all-or-nothing; returns those written.

    Each new content is first staged beside its target, then all are renamed into
    place; if staging fails nothing is replaced.
    """
    pending = changed_files(files)
    staged: list[tuple[str, Path]] = []
    try:
        for output in pending:
            output.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(
                dir=output.path.parent, prefix=f".{output.path.name}.", suffix=".tmp"
            )
            staged.append((temporary, output.path))
            with os.fdopen(fd, "wb") as handle:
                handle.write(output.text.encode("utf-8"))
    except BaseException:
        for temporary, _ in staged:
            Path(temporary).unlink(missing_ok=True)
        raise
    for temporary, target in staged:
        os.replace(temporary, target)
    return pending


def unified_diff(files: Iterable[OutputFile], root: Path) -> str:
    """The diff that writing ``files`` would apply, paths relative to ``root``."""
    chunks: list[str] = []
    for output in files:
        before = _current(output.path)
        name = os.path.relpath(output.path, root)
        chunks.extend(
            difflib.unified_diff(
                [] if before is None else before.splitlines(keepends=True),
                output.text.splitlines(keepends=True),
                fromfile=f"a/{name}" if before is not None else "/dev/null",
                tofile=f"b/{name}",
            )
        )
    return "".join(chunks)
