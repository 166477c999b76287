"""The server runtime (mcp_schemagen.runtime) as files of a generated package's _runtime/.

The runtime imports only itself (relatively), the standard library, orjson and
jsonschema_rs, so the same files serve the generator, which imports them as
``mcp_schemagen.runtime``, and every generated server, which carries a copy. Its folders
(``http/``, ``asking/``, ``core/``) are copied as they are, so the copy's relative imports
resolve as the original's do.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from mcp_schemagen import runtime

RUNTIME_DIR = Path(runtime.__file__).resolve().parent


def runtime_sources() -> list[Path]:
    """Every module of the runtime, its subfolders' included, in one fixed order (by
    relative path, so every machine copies the same files in the same order)."""
    return sorted(
        (p for p in RUNTIME_DIR.rglob("*.py") if "__pycache__" not in p.parts),
        key=lambda p: runtime_path(p).parts,
    )


def runtime_path(source: Path) -> PurePosixPath:
    """Where ``source`` goes under ``_runtime/``: its path relative to the runtime."""
    return PurePosixPath(source.relative_to(RUNTIME_DIR).as_posix())
