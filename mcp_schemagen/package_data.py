"""Where the data folders (templates/, specs/) are, installed or in a checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """A top-level data folder: inside the wheel it is ``mcp_schemagen/NAME``, in a checkout ``NAME``."""
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"mcp-codegen is installed without its {name}/ folder")
