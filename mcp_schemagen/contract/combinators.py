"""allOf, anyOf and oneOf: which branches of the old side each new branch covers.

A conjunct added to an allOf can only narrow, and does not when the old schema already
implies it; a conjunct removed can only widen. A oneOf whose branches cannot overlap (distinct
types, distinct constants, or a tagged union: a required property whose const or enum tells
the branches apart) is compared as an anyOf."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from mcp_schemagen.contract import keywords
from mcp_schemagen.contract.differences import Difference, Effect, difference, narrows, widens
from mcp_schemagen.diagnostics import pointer_join

_WIDENING = frozenset({Effect.WIDENS, Effect.MAYBE_WIDENS})


class Comparer(Protocol):
    """What combinators need of subschema.Comparer (which calls in here: no import back)."""

    def compare(self, old: Any, new: Any, at: str) -> list[Difference]: ...

    def same(self, old: Any, new: Any) -> bool: ...

    def target(self, schema: Any, *, old: bool) -> Any: ...


def compare_all_of(
    comparer: Comparer, old: dict[str, Any], new: dict[str, Any], at: str
) -> list[Difference]:
    before, after = old.get("allOf", []), new.get("allOf", [])
    if comparer.same(before, after):
        return []
    where = pointer_join(at, "allOf")
    if not isinstance(before, list) or not isinstance(after, list):
        return [difference(where, "allOf is not a list of schemas", Effect.UNKNOWN)]
    if len(before) == len(after):
        found: list[Difference] = []
        for index, (first, second) in enumerate(zip(before, after, strict=True)):
            found += comparer.compare(first, second, pointer_join(at, "allOf", index))
        return found
    added = [s for s in after if not any(comparer.same(s, b) for b in before)]
    dropped = [b for b in before if not any(comparer.same(b, a) for a in after)]
    if added and dropped:
        # Conjuncts replaced: matching them up is a search this does not make.
        said = f"allOf of {len(before)} → {len(after)} schemas, some replaced"
        return [difference(where, said, Effect.UNKNOWN)]
    if added:
        return _conjuncts(comparer, old, added, where, before=True)
    return _conjuncts(comparer, new, dropped, where, before=False)


def _conjuncts(
    comparer: Comparer, whole: dict[str, Any], extra: list[Any], where: str, *, before: bool
) -> list[Difference]:
    """Conjuncts added (``before``: ``whole`` is the old schema, each narrows unless it
    already implies it) or removed (``whole`` is the new schema, each widens unless the new
    schema still implies it)."""
    found = []
    for conjunct in extra:
        implied = _implies(comparer, whole, conjunct, old=before)
        if implied is True:
            continue
        if before:
            effect = Effect.NARROWS if implied is False else Effect.MAYBE_NARROWS
            said = "allOf: a conjunct added that the old schema does not imply"
        else:
            effect = Effect.WIDENS if implied is False else Effect.MAYBE_WIDENS
            said = "allOf: a conjunct removed that the new schema does not imply"
        found.append(difference(where, said, effect))
    return found


def _implies(comparer: Comparer, whole: dict[str, Any], conjunct: Any, *, old: bool) -> bool | None:
    """Whether every value ``whole`` accepts satisfies ``conjunct`` (None: not decided).
    Each part of the conjunction is tried alone, then the parts merged when no keyword
    appears in two of them with different values; only the merged whole decides "no"."""
    rest = {k: v for k, v in whole.items() if k != "allOf"}
    members = [comparer.target(m, old=old) for m in whole.get("allOf", [])]
    parts = [rest, *members]
    merged: dict[str, Any] | None = {}
    for part in parts:
        clash = merged is None or not isinstance(part, dict)
        if not clash and merged is not None and isinstance(part, dict):
            clash = any(not comparer.same(merged[k], part[k]) for k in merged.keys() & part.keys())
        if clash or merged is None or not isinstance(part, dict):
            merged = None
            break
        merged.update(part)
    candidates = parts + ([merged] if merged is not None else [])
    decided = False
    for candidate in candidates:
        # Compared old schema first, new second, so that each side's $ref resolves in its
        # own document: "whole implies conjunct" is "no narrowing" from whole to conjunct,
        # or, when whole is the new side, "no widening" from conjunct to whole.
        if old:
            found = comparer.compare(candidate, conjunct, "")
            holds, undecided = not narrows(found), {Effect.UNKNOWN, Effect.MAYBE_NARROWS}
        else:
            found = comparer.compare(conjunct, candidate, "")
            holds, undecided = not widens(found), {Effect.UNKNOWN, Effect.MAYBE_WIDENS}
        if holds:
            return True
        if candidate is merged:
            decided = not any(d.effects & undecided for d in found)
    return False if decided else None


def compare_any_of(
    comparer: Comparer, old: dict[str, Any], new: dict[str, Any], at: str, key: str
) -> list[Difference]:
    """Each old branch inside some new branch: nothing narrows; each new branch inside
    some old branch: nothing widens. A branch covered only by several others together
    is not found, and answered unknown."""
    before, after = old.get(key, [True]), new.get(key, [True])
    if comparer.same(before, after):
        return []
    where = pointer_join(at, key)
    if not isinstance(before, list) or not isinstance(after, list) or not before or not after:
        return [difference(where, f"{key} is not a list of schemas", Effect.UNKNOWN)]

    def quiet(a: Any, b: Any) -> list[Difference]:
        return comparer.compare(a, b, "")

    found: list[Difference] = []
    if not all(any(not narrows(quiet(a, b)) for b in after) for a in before):
        found.append(_uncovered(quiet, before, after, where, key, Effect.NARROWS, narrows))
    if not all(any(not widens(quiet(a, b)) for a in before) for b in after):
        found.append(_uncovered(quiet, before, after, where, key, Effect.WIDENS, widens))
    return found


def _uncovered(
    quiet: Callable[[Any, Any], list[Difference]],
    before: list[Any],
    after: list[Any],
    where: str,
    key: str,
    effect: Effect,
    test: Callable[[list[Difference]], bool],
) -> Difference:
    """NARROWS (or WIDENS) when the old and new branches are matched one to one by
    position and that pair changes so; UNKNOWN when coverage needs a union."""
    if len(before) == len(after):
        for a, b in zip(before, after, strict=True):
            pair = quiet(a, b)
            if test(pair) and not any(Effect.UNKNOWN in d.effects for d in pair):
                effects = {e for d in pair for e in d.effects}
                if effect is Effect.WIDENS and effects.isdisjoint(_WIDENING):
                    # Only a declared property dropped (a result schema's reader's rule).
                    said = f"{key}: a branch no longer declares a property"
                    return difference(where, said, Effect.DROPS_PROPERTY)
                said = "a branch " + (
                    "accepts less" if effect is Effect.NARROWS else "accepts more"
                )
                return difference(where, f"{key}: {said}", effect)
    if effect is Effect.NARROWS and len(after) < len(before):
        return difference(where, f"{key}: {len(before)} → {len(after)} branches", Effect.NARROWS)
    if effect is Effect.WIDENS and len(after) > len(before):
        return difference(where, f"{key}: {len(before)} → {len(after)} branches", Effect.WIDENS)
    said = f"{key}: a branch is not inside any single branch of the other side"
    maybe = Effect.MAYBE_NARROWS if effect is Effect.NARROWS else Effect.MAYBE_WIDENS
    return difference(where, said, maybe)


def compare_one_of(
    comparer: Comparer, old: dict[str, Any], new: dict[str, Any], at: str
) -> list[Difference]:
    before, after = old.get("oneOf"), new.get("oneOf")
    if comparer.same(before, after):
        return []
    where = pointer_join(at, "oneOf")
    if before is None or after is None:
        # Added, a constraint more (it may narrow); removed, one less (it may widen).
        said = "oneOf added" if before is None else "oneOf removed"
        return [
            difference(where, said, Effect.MAYBE_NARROWS if before is None else Effect.MAYBE_WIDENS)
        ]
    if _disjoint(comparer, before, old) and _disjoint(comparer, after, new, old=False):
        # No value matches two branches: exactly one is any one.
        return compare_any_of(comparer, old, new, at, "oneOf")
    said = "oneOf changed and its branches may overlap (a value matching two is refused)"
    return [difference(where, said, Effect.UNKNOWN)]


def _disjoint(
    comparer: Comparer, branches: Any, parent: dict[str, Any], *, old: bool = True
) -> bool:
    """Whether no value can match two branches: each names types no other names, a
    constant (const, or an enum) no other allows, or a required property's constant no
    other branch allows for it (a tagged union)."""
    if not isinstance(branches, list):
        return False
    resolved = [comparer.target(b, old=old) for b in branches]
    if not all(isinstance(b, dict) for b in resolved):
        return False
    kinds = [keywords.types_of(b) for b in resolved]
    if all(k is not None and k != keywords.ALL_TYPES for k in kinds):
        seen: set[str] = set()
        for kind in kinds:
            assert kind is not None
            if kind & seen:
                break
            seen |= kind
        else:
            return True
    if _apart([keywords.allowed_values(b) for b in resolved]):
        return True
    # The schema holding the oneOf is a conjunct of each branch: its type and required
    # count as theirs (a tag required once, beside the oneOf).
    objects_only = keywords.types_of(parent) == frozenset({"object"})
    branches_with_parent = [
        {
            **b,
            "type": "object" if objects_only else b.get("type"),
            "required": _names(b.get("required")) + _names(parent.get("required")),
        }
        for b in resolved
    ]
    return any(
        _apart([_tag(b, name) for b in branches_with_parent])
        for name in _tag_names(branches_with_parent)
    )


def _apart(constants: list[dict[str, Any] | None]) -> bool:
    """Whether each set of values is known and none shares a value with another."""
    if not all(c is not None for c in constants):
        return False
    keys: set[str] = set()
    for allowed in constants:
        assert allowed is not None
        if keys & allowed.keys():
            return False
        keys |= allowed.keys()
    return True


def _names(required: Any) -> list[str]:
    return [n for n in required if isinstance(n, str)] if isinstance(required, list) else []


def _tag_names(branches: list[dict[str, Any]]) -> list[str]:
    """The properties every branch requires."""
    if not branches:
        return []
    required = [_names(b.get("required")) for b in branches]
    return [n for n in required[0] if all(n in r for r in required)]


def _tag(branch: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The values an object branch allows for a property it requires; None when the
    branch also accepts values that are not objects, or allows any value there."""
    if keywords.types_of(branch) != frozenset({"object"}):
        return None
    properties = branch.get("properties")
    schema = properties.get(name) if isinstance(properties, dict) else None
    return keywords.allowed_values(schema) if isinstance(schema, dict) else None
