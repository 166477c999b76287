"""The user cache, one place for the three things a build keeps between projects: pinned
protocol schemas (``specs/``), each tool schema's generated types (``types/``) and each
revision's protocol models (``protocol-models/``). Every entry is keyed by what made it,
so an entry is never stale, only unused; and every write is a best effort: a cache that
cannot be written (a read-only home, a full disk) costs a later build time, never a build."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Literal

import platformdirs

from mcp_schemagen.atomic import write_atomic

CACHE_ENV = "MCP_CODEGEN_CACHE_DIR"

Kind = Literal["specs", "types", "protocol-models"]


def folder(kind: Kind) -> Path:
    configured = os.environ.get(CACHE_ENV)
    base = Path(configured) if configured else Path(platformdirs.user_cache_dir("mcp-codegen"))
    return base / kind


def store(path: Path, data: bytes) -> None:
    """``data`` at ``path`` atomically, if the cache can be written at all."""
    with contextlib.suppress(OSError):
        write_atomic(path, data)
