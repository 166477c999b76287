"""Pinned protocol revisions: find each schema.json, verify its sha256, patch known defects.

A schema comes from the first of: the mirror (``MCP_CODEGEN_SPEC_MIRROR``, a folder laid
out as ``REV/schema.json`` or an http(s) URL with that layout), the user cache, the
upstream URL. Bytes whose sha256 differs from the pin never leave this module.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from mcp_schemagen import caches
from mcp_schemagen.package_data import data_dir

MIRROR_ENV = "MCP_CODEGEN_SPEC_MIRROR"
CACHE_ENV = caches.CACHE_ENV
DOWNLOAD_TIMEOUT_SECONDS = 30


class SpecError(Exception):
    """A pinned schema could not be obtained; the message says which, from where, and what to do."""


class SpecUnavailable(SpecError):
    """No source had the revision: said once for all the revisions missing together
    (:func:`unavailable_message`), since the cause and the cure are the same."""

    def __init__(self, revision: str, sha256: str, tried: Sequence[str]) -> None:
        self.revision = revision
        self.sha256 = sha256
        self.tried = tuple(tried)
        super().__init__(unavailable_message([self]))


def unavailable_message(failures: Sequence[SpecUnavailable]) -> str:
    """One explanation for every revision no source had: which, where each was looked
    for (said once when every revision was looked for in the same places), what to do."""
    names = [f.revision for f in failures]
    shapes = {
        tuple(t.replace(f.revision, "<revision>").replace(f.sha256, "<sha256>") for t in f.tried)
        for f in failures
    }
    if len(failures) == 1:
        subject, tried = f"protocol revision {names[0]} is not available", failures[0].tried
    else:
        subject = f"protocol revisions {', '.join(names)} are not available"
        tried = (
            next(iter(shapes))
            if len(shapes) == 1
            else tuple(f"{f.revision}: {'; '.join(f.tried)}" for f in failures)
        )
    folder = f"{names[0]}/schema.json" if len(names) == 1 else "<revision>/schema.json for each"
    pull = " ".join(names)
    return (
        f"{subject}. Tried{', for each' if len(names) > 1 and len(shapes) == 1 else ''}:"
        f" {'; '.join(tried)}. Connect to the internet and run `mcp-codegen specs pull"
        f" {pull}`, or set {MIRROR_ENV} to a folder or URL holding {folder}."
    )


@dataclass(frozen=True)
class PinnedSchema:
    """A revision's schema file as specs/revisions.toml pins it (what the revision does is
    mcp_schemagen.runtime.protocol's ``Revision``)."""

    name: str
    commit: str
    sha256: str
    upstream_url: str


@dataclass(frozen=True)
class Patch:
    revision: str
    pointer: str
    expect: Any
    replace: Any


@dataclass(frozen=True)
class LoadedSpec:
    revision: PinnedSchema
    document: dict[str, Any]
    source: str


@cache
def pinned_revisions() -> tuple[PinnedSchema, ...]:
    lock = tomllib.loads((data_dir("specs") / "revisions.toml").read_text(encoding="utf-8"))
    template: str = lock["upstream"]
    return tuple(
        PinnedSchema(
            name=entry["name"],
            commit=entry["commit"],
            sha256=entry["sha256"],
            upstream_url=entry.get("upstream", template).format(
                commit=entry["commit"], revision=entry["name"]
            ),
        )
        for entry in lock["revision"]
    )


def revision_names() -> tuple[str, ...]:
    return tuple(r.name for r in pinned_revisions())


def get_revision(name: str) -> PinnedSchema:
    for revision in pinned_revisions():
        if revision.name == name:
            return revision
    known = ", ".join(revision_names())
    raise SpecError(f"unknown protocol revision {name!r}; known revisions: {known}")


@cache
def patches() -> tuple[Patch, ...]:
    table = tomllib.loads((data_dir("specs") / "patches.toml").read_text(encoding="utf-8"))
    return tuple(Patch(**entry) for entry in table.get("patch", []))


def cache_dir() -> Path:
    return caches.folder("specs")


def cached_path(revision: PinnedSchema) -> Path:
    # Named by hash so a re-pinned revision never reads a stale file.
    return cache_dir() / revision.name / f"{revision.sha256}.json"


def _mirror_location(revision: PinnedSchema) -> str | None:
    mirror = os.environ.get(MIRROR_ENV)
    if not mirror:
        return None
    if mirror.startswith(("http://", "https://")):
        return f"{mirror.rstrip('/')}/{revision.name}/schema.json"
    return str(Path(mirror) / revision.name / "schema.json")


def _read(location: str) -> bytes:
    if location.startswith(("http://", "https://")):
        import urllib.error  # only when downloading: `check` should not pay for http
        import urllib.request

        try:
            with urllib.request.urlopen(location, timeout=DOWNLOAD_TIMEOUT_SECONDS) as response:
                data: bytes = response.read()
                return data
        except urllib.error.HTTPError as exc:
            raise OSError(f"could not download {location}: HTTP {exc.code} {exc.reason}") from exc
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise OSError(f"could not download {location}: {reason}") from exc
    return Path(location).read_bytes()


def _verified(revision: PinnedSchema, data: bytes, location: str) -> bytes:
    actual = hashlib.sha256(data).hexdigest()
    if actual != revision.sha256:
        raise SpecError(
            f"protocol revision {revision.name}: {location} has sha256 {actual}, "
            f"but {revision.name} is pinned to {revision.sha256}. The file is corrupted or "
            "is another version; fix or remove that source (a mirror must hold the files "
            "unmodified, as published at the pinned commit) and run "
            f"`mcp-codegen specs pull {revision.name}`."
        )
    return data


def fetch(revision: PinnedSchema) -> tuple[bytes, str]:
    """The verified bytes of a revision's schema.json and where they came from."""
    cached = cached_path(revision)
    tried: list[str] = []
    mirror = _mirror_location(revision)
    for location in (mirror, str(cached), revision.upstream_url):
        if location is None:
            continue
        try:
            data = _read(location)
        except FileNotFoundError:
            tried.append(f"{location} (not found)")
            continue
        except OSError as exc:
            tried.append(f"{location} ({exc})")
            continue
        verified = _verified(revision, data, location)
        if location != str(cached):
            caches.store(cached, verified)
        return verified, location
    raise SpecUnavailable(revision.name, revision.sha256, tried)


def apply_patches(revision: PinnedSchema, document: dict[str, Any]) -> dict[str, Any]:
    """Apply the revision's patches to ``document`` (in place), each after checking that
    the value it replaces is exactly the one it expects."""
    for patch in patches():
        if patch.revision != revision.name:
            continue
        location = _locate(document, patch.pointer)
        found = _ABSENT if location is None else location[0][location[1]]
        if location is None or not _same_json(found, patch.expect):
            has = "no value there" if found is _ABSENT else json.dumps(found)
            raise SpecError(
                f"protocol revision {revision.name}: patch at {patch.pointer} expects "
                f"{json.dumps(patch.expect)} but the schema has {has}. "
                "The pinned file changed or the defect was fixed upstream: review the patch "
                "in specs/patches.toml and remove or update it."
            )
        container, key = location
        container[key] = patch.replace
    return document


_ABSENT: Any = object()


def _same_json(a: Any, b: Any) -> bool:
    # Python's == holds for 1 == 1.0 == True, which are three different JSON values.
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _locate(document: Any, pointer: str) -> tuple[Any, Any] | None:
    """The container (object or array) holding the value at ``pointer``, and its key
    there; None when the pointer names no value."""
    if not pointer.startswith("/"):
        return None
    *parents, last = _split_pointer(pointer)
    node = document
    for part in parents:
        node = _child(node, part)
        if node is _ABSENT:
            return None
    if _child(node, last) is _ABSENT:
        return None
    return node, int(last) if isinstance(node, list) else last


def _child(node: Any, part: str) -> Any:
    if isinstance(node, dict):
        return node.get(part, _ABSENT)
    if isinstance(node, list) and part.isdecimal() and int(part) < len(node):
        return node[int(part)]
    return _ABSENT


def _split_pointer(pointer: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]


@cache
def load(name: str) -> LoadedSpec:
    """The patched schema document of a pinned revision."""
    revision = get_revision(name)
    data, source = fetch(revision)
    document = apply_patches(revision, json.loads(data))
    return LoadedSpec(revision=revision, document=document, source=source)


def availability(revision: PinnedSchema) -> str:
    """Where a revision can be read right now, without downloading anything."""
    mirror = _mirror_location(revision)
    if mirror and not mirror.startswith("http") and Path(mirror).is_file():
        return f"mirror {mirror}"
    if cached_path(revision).is_file():
        return f"cache {cached_path(revision)}"
    if mirror:
        return f"mirror {mirror} (not checked)"
    return f"upstream only (run `mcp-codegen specs pull {revision.name}`)"
