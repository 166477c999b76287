"""The only stage that touches the disk: atomic writes of changed files, or a diff."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcp_schemagen import linediff


@dataclass(frozen=True)
class OutputFile:
    path: Path
    text: str


def _staged(path: Path, data: bytes, staged: list[str]) -> None:
    """Write ``data`` to a temporary file beside ``path``, recorded in ``staged`` as soon as
    it exists, so a failure part-way can always remove it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    staged.append(temporary)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _replace_all(targets: Sequence[Path], data: Sequence[bytes]) -> None:
    """Stage every file, then rename each into place; if staging fails nothing is replaced."""
    staged: list[str] = []
    try:
        for path, content in zip(targets, data, strict=True):
            _staged(path, content, staged)
    except BaseException:
        for temporary in staged:
            Path(temporary).unlink(missing_ok=True)
        raise
    for temporary, path in zip(staged, targets, strict=True):
        os.replace(temporary, path)


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so a reader never sees a half-written file."""
    _replace_all([path], [data])


def _current(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def changed_files(files: Iterable[OutputFile]) -> list[OutputFile]:
    return [f for f in files if _current(f.path) != f.text]


def write_all(files: Sequence[OutputFile]) -> list[OutputFile]:
    """Write every file whose content differs, all-or-nothing; returns those written."""
    pending = changed_files(files)
    _replace_all([f.path for f in pending], [f.text.encode("utf-8") for f in pending])
    return pending


def unified_diff(files: Iterable[OutputFile], root: Path) -> str:
    """The diff that writing ``files`` would apply, paths relative to ``root``."""
    chunks: list[str] = []
    for output in files:
        before = _current(output.path)
        name = os.path.relpath(output.path, root)
        chunks.extend(
            linediff.unified_diff(
                [] if before is None else before.splitlines(keepends=True),
                output.text.splitlines(keepends=True),
                fromfile=f"a/{name}" if before is not None else "/dev/null",
                tofile=f"b/{name}",
            )
        )
    return "".join(chunks)
