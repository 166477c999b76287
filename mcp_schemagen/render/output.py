"""A file a build plans: where it goes and its whole text. Rendering makes them; only
mcp_schemagen.write puts them on the disk."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class OutputFile:
    path: Path
    text: str
