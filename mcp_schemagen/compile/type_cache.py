"""The user cache's entries of tool-schema types (caches.folder("types")): the module
datamodel-code-generator made of one shielded schema and root name, with its warnings.

An entry's key is everything that shapes its text (our version, this format, the
generator's version, the root name, the schema's text), so an entry is never stale, only
unused. It is trusted only when it reads back whole, names its own key and matches its own
digest: a truncated, edited or misplaced file is a miss, made again and overwritten, never
wrong types in a build."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from importlib.metadata import version
from pathlib import Path

from mcp_schemagen import __version__
from mcp_schemagen.caches import store

# Bumped when what an entry holds changes (3: one JSON document, its key and digest inside).
_CACHE_FORMAT = "3"

Entry = tuple[str, tuple[str, ...]]  # the module's source, the generator's warnings


@cache
def _generator_version() -> str:
    return version("datamodel-code-generator")  # reads package metadata: once


def cache_key(schema_text: str, root: str) -> str:
    material = "\0".join([__version__, _CACHE_FORMAT, _generator_version(), root, schema_text])
    return hashlib.sha256(material.encode()).hexdigest()


def entry_path(cache_dir: Path, key: str) -> Path:
    return cache_dir / f"{key}.json"


def _digest(source: str, notes: tuple[str, ...]) -> str:
    return hashlib.sha256(json.dumps([source, list(notes)]).encode()).hexdigest()


def read_entry(path: Path, key: str) -> Entry | None:
    """The entry at ``path`` if it is whole and is the one for ``key``; else None."""
    try:
        document = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(document, dict) or document.get("key") != key:
        return None
    source, notes = document.get("source"), document.get("warnings")
    if not isinstance(source, str) or not isinstance(notes, list):
        return None
    if not all(isinstance(note, str) for note in notes):
        return None
    entry = (source, tuple(notes))
    return entry if document.get("sha256") == _digest(*entry) else None


def write_entry(path: Path, key: str, entry: Entry) -> None:
    """Best effort, atomically (caches.store): a cache that cannot be written costs a
    later build time, never this one."""
    source, notes = entry
    document = {"key": key, "sha256": _digest(source, notes), "source": source, "warnings": notes}
    store(path, json.dumps(document, ensure_ascii=True).encode("utf-8"))
