"""black, run once over each generated module, with settings fixed here (not read from
the user's project) so the same input gives the same bytes everywhere."""

from __future__ import annotations

import hashlib
from pathlib import Path

import black

from codegen.write import write_atomic

_MODE = black.Mode(
    target_versions={black.TargetVersion.PY311},
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
    key = hashlib.sha256(f"{black.__version__}\0{_MODE!r}\0{source}".encode()).hexdigest()
    path = cache_dir / key[:2] / f"{key}.py"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        pass
    formatted = black.format_str(source, mode=_MODE)
    try:
        write_atomic(path, formatted.encode("utf-8"))
    except OSError:
        pass  # a read-only cache only costs speed
    return formatted
