"""A static resource's content from a file of the project, named by the resource's
``x-mcp-codegen-file`` (relative to the folder holding pyproject.toml; never published).

Read at build time and shipped in the generated package (``_dispatch.py``), so what a
client reads is exactly what the build saw, the server needs no project files at run
time, and ``mcp-codegen check`` notices an edited content file (its digest is an input).
Text or blob by the resource's ``mimeType``: a text type (``text/*``, JSON, XML, YAML,
JavaScript, ``+json``/``+xml``) must be UTF-8 and is sent as ``text``; any other type is
sent base64 as ``blob``; without a ``mimeType``, UTF-8 content is text and anything else a
blob. A path outside the project, or a symbolic link leading out of it, is refused.
"""

from __future__ import annotations

import base64
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join
from mcp_schemagen.load.containment import inside
from mcp_schemagen.runtime.resources.table import FILE_KEY
from mcp_schemagen.source import Source

MAX_CONTENT_BYTES = 16 * 1024 * 1024
_TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/yaml",
        "application/x-yaml",
        "application/javascript",
        "application/ecmascript",
        "application/toml",
        "application/sql",
        "application/graphql",
    }
)


def is_text_type(mime_type: str) -> bool:
    essence = mime_type.split(";", 1)[0].strip().lower()
    return (
        essence.startswith("text/")
        or essence in _TEXT_TYPES
        or essence.endswith(("+json", "+xml", "+yaml"))
    )


def content_path(
    root: Path, source: Source, package_dir: Path | None = None
) -> tuple[Path | None, list[Diagnostic]]:
    """The file a resource names, checked to lie inside the project (links followed) and
    outside the generated package (whose files each build rewrites)."""
    name = source.definition.get(FILE_KEY)
    where = pointer_join(source.pointer, FILE_KEY)
    if not isinstance(name, str) or not name:
        return None, [error(source.file, where, "must be a file path relative to pyproject.toml")]
    if PurePosixPath(name).is_absolute() or PureWindowsPath(name).anchor:
        return None, [
            error(
                source.file,
                where,
                f"{name!r} is absolute; name the file relative to pyproject.toml, inside the"
                " project",
            )
        ]
    path = root / name
    if not inside(path, root):
        return None, [
            error(
                source.file,
                where,
                f"{name!r} leads outside the project (the folder holding pyproject.toml, links"
                " followed); a resource's content is read only from inside it: copy the file"
                " into the project",
            )
        ]
    if not path.is_file():
        return None, [error(source.file, where, f"{name!r}: no such file in the project")]
    if package_dir is not None and inside(path, package_dir):
        return None, [
            error(
                source.file,
                where,
                f"{name!r} is in the generated package, which each build rewrites; keep a"
                " resource's content in a file of its own outside the package",
            )
        ]
    return path, []


def read_content(
    root: Path, source: Source, package_dir: Path | None = None
) -> tuple[list[dict[str, Any]] | None, list[Diagnostic]]:
    """The resource's contents (one text or blob item with its uri and mimeType), or None
    with the problems that stop it being read."""
    path, problems = content_path(root, source, package_dir)
    if path is None:
        return None, problems
    where = pointer_join(source.pointer, FILE_KEY)
    if path.stat().st_size > MAX_CONTENT_BYTES:
        message = f"the file is larger than {MAX_CONTENT_BYTES // (1024 * 1024)} MiB; serve it from a reader"
        return None, [error(source.file, where, message)]
    data = path.read_bytes()
    definition = source.definition
    mime_type = definition.get("mimeType")
    item: dict[str, Any] = {"uri": definition.get("uri")}
    if isinstance(mime_type, str):
        item["mimeType"] = mime_type
    meta = definition.get("_meta")
    if isinstance(meta, dict) and isinstance(meta.get("ui"), dict):
        # An MCP Apps view's CSP and border preference go with its content too: hosts
        # read them from the resources/read item (revisions without _meta drop it).
        item["_meta"] = {"ui": meta["ui"]}
    textual = is_text_type(mime_type) if isinstance(mime_type, str) else None
    try:
        text = data.decode("utf-8") if textual is not False else None
    except UnicodeDecodeError:
        if textual:
            message = (
                f"the file is not UTF-8 text, but mimeType {mime_type!r} is a text type; save it"
                " as UTF-8 or give it a binary mimeType (it is then sent as a base64 blob)"
            )
            return None, [error(source.file, where, message)]
        text = None
    if text is not None:
        item["text"] = text
    else:
        item["blob"] = base64.b64encode(data).decode("ascii")
    return [item], []
