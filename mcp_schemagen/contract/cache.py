"""The bytes a client receives in a listing, per protocol revision, through the same
publishing the server does (runtime/protocol/), to tell when they change."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcp_schemagen.contract.changes import Category, Change
from mcp_schemagen.contract.snapshot import LISTINGS, Definition, key_of
from mcp_schemagen.diagnostics import pointer_join
from mcp_schemagen.runtime.protocol import BY_NAME, Revision
from mcp_schemagen.runtime.protocol.resources import publish_resource as _publish_resource

Publisher = Callable[[Revision, dict[str, Any]], dict[str, Any]]


def publish_tool(revision: Revision, definition: dict[str, Any]) -> dict[str, Any]:
    return revision.publish_tool(definition)[0]


def publish_prompt(revision: Revision, definition: dict[str, Any]) -> dict[str, Any]:
    return revision.publish_prompt(definition)[0]


def publish_resource(revision: Revision, definition: dict[str, Any]) -> dict[str, Any]:
    """A resource or template as resources/list or resources/templates/list sends it: its
    ``x-`` keys (content file, variable schemas) are never published."""
    return _publish_resource(definition, revision)[0]


def _bytes(value: Any) -> bytes:
    # Key order is kept: the server sends the definition in the order it was written.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def cache_change(
    old: Definition,
    new: Definition,
    revisions: tuple[str, ...],
    publish: Publisher,
    *,
    saved_in: tuple[str, ...] | None = None,
) -> list[Change]:
    """A cache line when some revision's clients receive other bytes for this definition.
    ``saved_in``: the old definition is from a saved listing, which the revisions named
    could have published (all of its definitions as they are); it is compared with what
    each of them sends now. None: both are definitions as authored."""
    second = {r: publish(BY_NAME[r], new.definition) for r in revisions}
    if saved_in is not None:
        alone = fitting(old.definition, revisions, publish)
        # When no revision published the whole listing, each definition on its own.
        chosen = saved_in or alone or revisions
        first = {r: old.definition for r in chosen}
    else:
        first = {r: publish(BY_NAME[r], old.definition) for r in revisions}
    changed = [r for r in first if _bytes(first[r]) != _bytes(second[r])]
    if not changed:
        return []
    # Named from what is published: a field no client receives is not the change.
    fields = list(dict.fromkeys(f for r in changed for f in _changed_fields(first[r], second[r])))
    said = f"{', '.join(fields) or 'key order'} changed: the listing bytes differ for "
    said += f"revision{'s' * (len(changed) > 1)} {', '.join(changed)}"
    return [Change(new.file, new.pointer, Category.CACHE, said)]


def fitting(
    saved: dict[str, Any], revisions: tuple[str, ...], publish: Publisher
) -> tuple[str, ...]:
    """The revisions that can have published a saved definition: those whose publishing
    leaves it as it is (a 2024-11-05 form has no title; a 2025-06-18 one can)."""
    return tuple(r for r in revisions if _bytes(publish(BY_NAME[r], saved)) == _bytes(saved))


def _changed_fields(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    return [k for k in dict.fromkeys([*old, *new]) if _bytes(old.get(k)) != _bytes(new.get(k))]


def listing_changes(
    kind: str,
    old: list[Definition],
    new: list[Definition],
    revisions: tuple[str, ...],
    key: str = "name",
) -> list[Change]:
    """Added, removed and reordered entries change the listing too."""
    noun, method = LISTINGS[kind]
    old_names = [key_of(d, key) for d in old]
    new_names = [key_of(d, key) for d in new]
    changes = []
    for item in new:
        if key_of(item, key) not in old_names:
            said = f"{noun} {key_of(item, key)!r} added to {method}"
            changes.append(Change(item.file, item.pointer, Category.CACHE, said))
    for item in old:
        if key_of(item, key) not in new_names:
            said = f"{noun} {key_of(item, key)!r} removed from {method}"
            changes.append(Change(item.file, item.pointer, Category.CACHE, said))
    kept_old = [n for n in old_names if n in new_names]
    kept_new = [n for n in new_names if n in old_names]
    if kept_old != kept_new:
        said = f"order of {method} changed, for revisions {', '.join(revisions)}"
        changes.append(Change(method, "", Category.CACHE, said))
    return changes


def where(definition: Definition, *parts: str) -> str:
    return pointer_join(definition.pointer, *parts)
