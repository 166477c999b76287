"""Files replaced so that a reader never sees one half-written: each is staged beside its
target, then renamed into place. The one primitive behind the package's files
(mcp_schemagen.write) and the user cache (mcp_schemagen.caches)."""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Sequence
from pathlib import Path


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


def replace_all(targets: Sequence[Path], data: Sequence[bytes]) -> None:
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
    replace_all([path], [data])
