"""The server runtime (mcp_schemagen.runtime) as files of a generated package's _runtime/.

The runtime imports only itself (relatively), the standard library, orjson and
jsonschema_rs, so the same files serve the generator, which imports them as
``mcp_schemagen.runtime``, and every generated server, which carries a copy.
"""

from __future__ import annotations

from pathlib import Path

from mcp_schemagen import runtime

RUNTIME_DIR = Path(runtime.__file__).resolve().parent


def runtime_sources() -> list[Path]:
    # Subpackages (auth/) too, each file named by its path under the runtime.
    return sorted(p for p in RUNTIME_DIR.rglob("*.py") if "__pycache__" not in p.parts)
