"""black, run once over each generated module, with settings fixed here (not read from
the user's project) so the same input gives the same bytes everywhere."""

from __future__ import annotations

import contextlib
import hashlib
from importlib.metadata import version
from pathlib import Path

import black
from black.mode import TargetVersion

from mcp_schemagen.write import write_atomic

_BLACK_VERSION = version("black")
_MODE = black.Mode(
    target_versions={TargetVersion.PY311},
    line_length=100,
    string_normalization=True,
    magic_trailing_comma=True,
)


def format_python(source: str, cache_dir: Path | None = None) -> str:
    """black's output for ``source``; with ``cache_dir``, remembered by the sha256 of the
    input and black's version, since black is most of a build's time and most modules
    do not change between builds."""
    if cache_dir is None:
        return black.format_str(source, mode=_MODE)
    key = hashlib.sha256(f"{_BLACK_VERSION}\0{_MODE!r}\0{source}".encode()).hexdigest()
    path = cache_dir / key[:2] / f"{key}.py"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        pass
    formatted = black.format_str(source, mode=_MODE)
    with contextlib.suppress(OSError):  # a read-only cache only costs speed
        write_atomic(path, formatted.encode("utf-8"))
    return formatted
