"""The only stage that touches the disk: atomic writes of changed files, or a diff."""

from __future__ import annotations

import os
import secrets
import stat
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
    it exists, so a failure part-way can always remove it.

    Modes: a new file gets what any new file gets under the umask (``os.open`` with 0o666
    applies it; mkstemp would force 0600), and a rewritten file keeps the mode its owner
    gave it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        kept: int | None = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        kept = None
    fd, temporary = _new_temporary(path)
    staged.append(temporary)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    if kept is not None:
        os.chmod(temporary, kept)


def _new_temporary(path: Path) -> tuple[int, str]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        temporary = str(path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(temporary, flags, 0o666), temporary
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary file name beside {path}")


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
    # Bytes decoded as they are: read_text would turn CRLF into LF and call a CRLF file
    # different from the same CRLF text, and a file that is not UTF-8 differs from any
    # text we write rather than stopping the build here.
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
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
