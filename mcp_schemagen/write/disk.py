"""The package's files onto the disk, all-or-nothing, or the diff that would apply; and the
removal of files an earlier build generated and this one does not."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from mcp_schemagen.atomic import replace_all
from mcp_schemagen.render.output import OutputFile
from mcp_schemagen.write import linediff


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
    replace_all([f.path for f in pending], [f.text.encode("utf-8") for f in pending])
    return pending


def remove_stale(paths: Iterable[Path]) -> None:
    """Delete files an earlier build generated and this one does not (each checked by the
    plan to carry our header)."""
    for path in paths:
        path.unlink(missing_ok=True)


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
