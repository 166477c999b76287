"""Objects: properties, required, additionalProperties and patternProperties together,
since which of them checks a key depends on the others."""

from __future__ import annotations

import re
from typing import Any, Protocol

from mcp_schemagen.contract.differences import Difference, Effect, difference, narrows, shown
from mcp_schemagen.contract.readers import Reader
from mcp_schemagen.diagnostics import pointer_join

_NARROWING = frozenset({Effect.NARROWS, Effect.NARROWS_UNDECLARED})


class Comparer(Protocol):
    """What objects need of subschema.Comparer (which calls in here: no import back)."""

    reader: Reader

    def compare(self, old: Any, new: Any, at: str) -> list[Difference]: ...

    def same(self, old: Any, new: Any) -> bool: ...

    def refused_example(self, accepted_before: Any, new: Any) -> tuple[bool, Any]: ...


def compare_object(
    comparer: Comparer, old: dict[str, Any], new: dict[str, Any], at: str
) -> list[Difference]:
    found = _compare_required(old, new, at, comparer.reader)
    before, after = old.get("required", []), new.get("required", [])
    # A property added and required, or removed and no longer required, is one change:
    # told where `required` is.
    required_changed = (
        {n for n in after if isinstance(n, str) and n not in before}
        | {n for n in before if isinstance(n, str) and n not in after}
        if isinstance(before, list) and isinstance(after, list)
        else set()
    )
    required_at = pointer_join(at, "required")
    old_properties, new_properties = old.get("properties", {}), new.get("properties", {})
    if not isinstance(old_properties, dict) or not isinstance(new_properties, dict):
        return [*found, difference(pointer_join(at, "properties"), "not an object", Effect.UNKNOWN)]
    patterns = (old.get("patternProperties"), new.get("patternProperties"))
    if any(p is not None for p in patterns) and not comparer.same(*patterns):
        said = "patternProperties changed: which keys each pattern checks is not compared"
        where = pointer_join(at, "patternProperties")
        return [*found, difference(where, said, Effect.UNKNOWN)]
    names = sorted(old_properties.keys() | new_properties.keys())
    old_rest = old.get("additionalProperties", True)
    new_rest = new.get("additionalProperties", True)
    for name in names:
        where = pointer_join(at, "properties", name)
        if name in old_properties and name in new_properties:
            found += comparer.compare(old_properties[name], new_properties[name], where)
        elif _matches_pattern(name, patterns):
            # A pattern checks the key too: what the key's schema was or becomes is the
            # conjunction of both, which is not worked out.
            said = f"property {name!r} added or removed where a patternProperties key matches it"
            found.append(difference(where, said, Effect.UNKNOWN))
        else:
            if name in old_properties:
                one = _removed(comparer, name, old_properties[name], new_rest, where)
            else:
                one = _added(comparer, name, old_rest, new_properties[name], where)
            if name in required_changed:
                said = f"property {name!r} {'removed' if name in old_properties else 'added'}"
                # Words told for the reader are kept (they say more than the name).
                one = [
                    Difference(required_at, d.effects, d.what if d.told else said, d.told)
                    for d in one
                ]
            found += one
    return found + _compare_rest(comparer, old_rest, new_rest, at)


def _compare_rest(comparer: Comparer, old: Any, new: Any, at: str) -> list[Difference]:
    where = pointer_join(at, "additionalProperties")
    if new is False and old is not False:
        said = "additionalProperties closed: keys not in properties are refused"
        return [difference(where, said, Effect.NARROWS)]
    if old is False and new is not False:
        said = "additionalProperties opened: keys not in properties are accepted"
        return [difference(where, said, Effect.WIDENS)]
    return comparer.compare(old, new, where)


def _removed(comparer: Comparer, name: str, schema: Any, rest: Any, where: str) -> list[Difference]:
    inside = comparer.compare(schema, rest, where)
    reader = comparer.reader
    # To a result consumer a declared property removed is a promise dropped, whatever the
    # values: one that reads it no longer finds it described. To a server it is only the
    # values it now accepts under that key.
    dropped = {Effect.DROPS_PROPERTY} if reader is Reader.CLIENT else set()
    if rest is False:
        said = reader.property_removed_over_closed(name)
        return [Difference(where, frozenset({Effect.NARROWS, *dropped}), said, bool(dropped))]
    if not inside and not dropped:
        return []
    effects = frozenset().union(dropped, *(d.effects for d in inside))
    return [Difference(where, effects, reader.property_removed_over_open(name), bool(dropped))]


def _added(comparer: Comparer, name: str, rest: Any, schema: Any, where: str) -> list[Difference]:
    inside = comparer.compare(rest, schema, where)
    reader = comparer.reader
    told = reader is Reader.CLIENT
    if rest is False:
        said = reader.property_added_over_closed(name)
        return [Difference(where, frozenset({Effect.WIDENS}), said, told)]
    if not narrows(inside):
        return [difference(where, f"property {name!r} added", Effect.WIDENS)] if inside else []
    effects = {e for d in inside for e in d.effects} - {Effect.NARROWS}
    if rest is True or rest == {}:
        # Only a value sent under this key before it was declared is refused now.
        effects.add(Effect.NARROWS_UNDECLARED)
        example = comparer.refused_example(rest, schema)
        said = reader.property_added_over_any(name, example)
        return [Difference(where, frozenset(effects), said, told and effects <= _NARROWING)]
    effects.add(Effect.NARROWS)
    return [difference(where, f"property {name!r} added", *effects)]


def _compare_required(
    old: dict[str, Any], new: dict[str, Any], at: str, reader: Reader
) -> list[Difference]:
    before, after = old.get("required", []), new.get("required", [])
    if before == after:
        return []
    where = pointer_join(at, "required")
    if not isinstance(before, list) or not isinstance(after, list):
        return [difference(where, f"required {shown(before)} → {shown(after)}", Effect.UNKNOWN)]
    found = []
    added = [n for n in after if n not in before]
    dropped = [n for n in before if n not in after]
    told = reader is Reader.CLIENT
    for name in added:
        said = reader.now_required(name)
        found.append(Difference(where, frozenset({Effect.NARROWS}), said, told))
    for name in dropped:
        said = reader.no_longer_required(name)
        found.append(Difference(where, frozenset({Effect.WIDENS}), said, told))
    return found


def _matches_pattern(name: str, patterns: tuple[Any, Any]) -> bool:
    for table in patterns:
        if not isinstance(table, dict):
            continue
        for pattern in table:
            try:
                if re.search(pattern, name):
                    return True
            except re.error:
                return True  # cannot tell: assume it matches
    return False
