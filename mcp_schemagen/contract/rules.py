"""Compare two snapshots kind by kind: the definitions paired by name, each pair by its
kind's rules, and the listing bytes of every revision the project speaks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp_schemagen.contract import cache, prompt_rules, resource_rules, skill_rules, tool_rules
from mcp_schemagen.contract.changes import Change
from mcp_schemagen.contract.snapshot import Definition, Snapshot, by_name


@dataclass(frozen=True)
class KindRules:
    removed: Callable[[Definition, str | None], list[Change]]
    added: Callable[[Definition], list[Change]]
    changed: Callable[[Definition, Definition], list[Change]]
    publish: cache.Publisher
    # The fields that tell a rename: the same value under another key.
    signature: tuple[str, ...]
    key: str = "name"  # what pairs old and new: a static resource is read by its uri


# One entry per kind of sources.KINDS, and skills.
KIND_RULES: dict[str, KindRules] = {
    "tools": KindRules(
        tool_rules.removed,
        tool_rules.added,
        tool_rules.changed,
        cache.publish_tool,
        ("inputSchema",),
    ),
    "prompts": KindRules(
        prompt_rules.removed,
        prompt_rules.added,
        prompt_rules.changed,
        cache.publish_prompt,
        ("arguments",),
    ),
    "resources": KindRules(
        resource_rules.removed,
        resource_rules.added,
        resource_rules.changed,
        cache.publish_resource,
        ("name", resource_rules.FILE_KEY),
        key="uri",
    ),
    "resourceTemplates": KindRules(
        resource_rules.template_removed,
        resource_rules.template_added,
        resource_rules.template_changed,
        cache.publish_resource,
        ("uriTemplate",),
    ),
    # Read from skills/ folders (sources.skill_definitions), never from a saved listing.
    "skills": KindRules(
        skill_rules.removed,
        skill_rules.added,
        skill_rules.changed,
        skill_rules.publish,
        ("frontmatter",),
        key="uri",
    ),
}


def compare(old: Snapshot, new: Snapshot, revisions: tuple[str, ...]) -> list[Change]:
    changes: list[Change] = []
    saved_in = _saved_in(old, revisions)
    for kind, rules in KIND_RULES.items():
        if kind not in old.kinds or kind not in new.kinds:
            continue  # not read on one side (a saved tools/list has no prompts)
        before = by_name(old.kinds[kind], rules.key)
        after = by_name(new.kinds[kind], rules.key)
        for name, item in before.items():
            if name in after:
                changes += rules.changed(item, after[name])
                changes += cache.cache_change(
                    item, after[name], revisions, rules.publish, saved_in=saved_in
                )
            else:
                renamed = _renamed(item, after, before, rules.signature)
                changes += rules.removed(item, renamed)
        changes += [
            c for name, item in after.items() if name not in before for c in rules.added(item)
        ]
        changes += cache.listing_changes(
            kind, list(before.values()), list(after.values()), revisions, rules.key
        )
    return changes


def _saved_in(old: Snapshot, revisions: tuple[str, ...]) -> tuple[str, ...] | None:
    """For a saved listing, the revisions that can have sent it: each of its definitions
    as that revision publishes it (None: not a saved listing)."""
    if not old.published:
        return None
    possible = set(revisions)
    for kind, rules in KIND_RULES.items():
        for item in old.kinds.get(kind, []):
            possible &= set(cache.fitting(item.definition, revisions, rules.publish))
    return tuple(r for r in revisions if r in possible)


def _renamed(
    old: Definition,
    after: dict[str, Definition],
    before: dict[str, Definition],
    fields: tuple[str, ...],
) -> str | None:
    """A new definition with the same signature as a removed one: most likely a rename
    (the key it is found under now)."""
    for field in fields:
        signature: Any = old.definition.get(field)
        if signature is None:
            continue
        for key, item in after.items():
            if key not in before and item.definition.get(field) == signature:
                return key
    return None
