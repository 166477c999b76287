"""Compare two snapshots kind by kind: the definitions paired by name, each pair by its
kind's rules, and the listing bytes of every revision the project speaks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp_schemagen.contract import cache, prompt_rules, tool_rules
from mcp_schemagen.contract.changes import Change
from mcp_schemagen.contract.snapshot import Definition, Snapshot, by_name


@dataclass(frozen=True)
class KindRules:
    removed: Callable[[Definition, str | None], list[Change]]
    added: Callable[[Definition], list[Change]]
    changed: Callable[[Definition, Definition], list[Change]]
    publish: cache.Publisher
    signature: str  # the field that tells a rename: same value under another name


# Resources join here (and in sources.KINDS) once the project has them.
KIND_RULES: dict[str, KindRules] = {
    "tools": KindRules(
        tool_rules.removed, tool_rules.added, tool_rules.changed, cache.publish_tool, "inputSchema"
    ),
    "prompts": KindRules(
        prompt_rules.removed,
        prompt_rules.added,
        prompt_rules.changed,
        cache.publish_prompt,
        "arguments",
    ),
}


def compare(old: Snapshot, new: Snapshot, revisions: tuple[str, ...]) -> list[Change]:
    changes: list[Change] = []
    for kind, rules in KIND_RULES.items():
        if kind not in old.kinds or kind not in new.kinds:
            continue  # not read on one side (a saved tools/list has no prompts)
        before, after = by_name(old.kinds[kind]), by_name(new.kinds[kind])
        for name, item in before.items():
            if name in after:
                changes += rules.changed(item, after[name])
                changes += cache.cache_change(
                    item, after[name], revisions, rules.publish, old_published=old.published
                )
            else:
                renamed = _renamed(item, after, before, rules.signature)
                changes += rules.removed(item, renamed)
        changes += [
            c for name, item in after.items() if name not in before for c in rules.added(item)
        ]
        changes += cache.listing_changes(
            kind, list(before.values()), list(after.values()), revisions
        )
    return changes


def _renamed(
    old: Definition, after: dict[str, Definition], before: dict[str, Definition], field: str
) -> str | None:
    """A new definition with the same signature as a removed one: most likely a rename."""
    signature: Any = old.definition.get(field)
    for name, item in after.items():
        if name not in before and signature is not None and item.definition.get(field) == signature:
            return name
    return None
