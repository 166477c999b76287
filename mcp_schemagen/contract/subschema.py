"""Decide whether one JSON Schema accepts every value another accepts ("old ⊆ new").

The comparison walks both schemas together, keyword by keyword, in the way of
jsonsubschema (Habib, Shinnar, Hirzel, Pradel, ISSTA 2021) without its canonicalisation:
a schema is the conjunction of its keywords, so when no keyword narrows, the schema does
not narrow. Each change is reported with its effect (differences.Effect); where inclusion
cannot be decided (a changed pattern, `not`, `if`, `oneOf` whose branches may overlap,
an external $ref) the answer is UNKNOWN, which no caller treats as compatible. $ref is
resolved inside each document; a pair of references met again while being compared is
taken to hold (recursive schemas, compared coinductively).
"""

from __future__ import annotations

from typing import Any

from mcp_schemagen.contract import combinators, instances, keywords
from mcp_schemagen.contract.differences import Difference, Effect, difference, shown, value_key
from mcp_schemagen.contract.objects import compare_object
from mcp_schemagen.contract.readers import Reader
from mcp_schemagen.diagnostics import pointer_join

# Keywords that never change which values are valid (format is an annotation: the
# generated validators do not assert it).
ANNOTATIONS = frozenset(
    {
        "title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
        "writeOnly", "format", "contentMediaType", "contentEncoding", "contentSchema",
        "$schema", "$id", "$anchor", "$defs", "definitions", "$vocabulary",
    }
)  # fmt: skip
_COMPARED = frozenset(
    {
        "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "minLength", "maxLength", "pattern", "minItems", "maxItems",
        "uniqueItems", "items", "prefixItems", "properties", "required", "additionalProperties",
        "patternProperties", "minProperties", "maxProperties", "allOf", "anyOf", "oneOf", "$ref",
        "additionalItems",
    }
)  # fmt: skip
_UNEVALUATED = frozenset({"unevaluatedProperties", "unevaluatedItems"})
_MAX_DEPTH = 64
_MAX_WORK = 200_000  # subschema pairs compared, at most, for one schema
_NONE_OPEN = 1 << 62
_NUMBERS = frozenset({"number", "integer"})


class Comparer:
    """Compares schemas of two documents (old, new), resolving each $ref in its own."""

    def __init__(
        self, old_root: Any, new_root: Any, base: str = "", reader: Reader = Reader.SERVER
    ) -> None:
        """``base``: the pointer of the documents' root in the file (a tool's
        "/inputSchema"), which the pointer of every referenced definition starts with;
        ``reader``: who reads the values (arguments: the server; results: the client)."""
        self.old_root, self.new_root, self.base = old_root, new_root, base
        self.reader = reader
        self.judges = (instances.Judge(old_root), instances.Judge(new_root))
        # Up to draft-07, keywords beside a $ref are ignored by validators.
        self._bare_references = (
            instances.ignores_reference_siblings(old_root),
            instances.ignores_reference_siblings(new_root),
        )
        self._open: dict[tuple[str, str], int] = {}  # pairs being compared: their depth
        self._lowest = _NONE_OPEN
        self._known: dict[tuple[str, str], list[Difference]] = {}
        # Pairs done but waiting for the first pair of their group: (pair, depth) in the
        # order they were done, and what each found, with the lowest open pair it leaned on.
        self._pending: list[tuple[tuple[str, str], int]] = []
        self._partial: dict[tuple[str, str], tuple[int, list[Difference]]] = {}
        self._work = 0
        self._same_known: dict[tuple[str, str], bool] = {}
        self._same_active: set[tuple[str, str]] = set()
        self._same_assumed = 0
        self._depth = 0

    def compare(self, old: Any, new: Any, at: str) -> list[Difference]:
        if self._depth > _MAX_DEPTH:
            return [difference(at, "nested too deep to compare", Effect.UNKNOWN)]
        if self._depth == 0:
            self._work = 0  # a budget for each question asked from outside
        self._work += 1
        if self._work > _MAX_WORK:
            raise _Exhausted
        self._depth += 1
        try:
            # Each difference once: references reached along several paths repeat theirs.
            return list(dict.fromkeys(self._compare(old, new, at)))
        except _Exhausted:
            if self._depth > 1:
                raise
            # An answer, not an endless comparison.
            self._lowest, self._pending, self._partial = _NONE_OPEN, [], {}
            return [difference(at, "too large to compare within bounds", Effect.UNKNOWN)]
        finally:
            self._depth -= 1

    def _compare(self, old: Any, new: Any, at: str) -> list[Difference]:
        if self.same(old, new):
            return []
        if (isinstance(old, dict) and "$ref" in old) or (isinstance(new, dict) and "$ref" in new):
            return self._references(old, new, at)
        old, new = _boolean(old), _boolean(new)
        if old is False or new is False:
            if old is new:
                return []
            if old is False:
                return [difference(at, "accepted no value; now accepts some", Effect.WIDENS)]
            return [difference(at, "now accepts no value", Effect.NARROWS)]
        if not isinstance(old, dict) or not isinstance(new, dict):
            return [difference(at, "not a schema", Effect.UNKNOWN)]
        return self._keywords(old, new, at)

    def _keywords(self, old: dict[str, Any], new: dict[str, Any], at: str) -> list[Difference]:
        found: list[Difference] = []
        # A keyword not compared, present on one side only, is a conjunct added (it may
        # narrow) or removed (it may widen); unevaluated* make keywords depend on others.
        alone = not (old.keys() | new.keys()) & _UNEVALUATED
        for key in sorted((old.keys() | new.keys()) - ANNOTATIONS - _COMPARED):
            if not self.same(old.get(key), new.get(key)):
                said = f"{key} {shown(old.get(key))} → {shown(new.get(key))}"
                effect = Effect.UNKNOWN
                if alone and key not in old:
                    effect = Effect.MAYBE_NARROWS
                elif alone and key not in new:
                    effect = Effect.MAYBE_WIDENS
                found.append(difference(pointer_join(at, key), said, effect))
        found += keywords.compare_types(old, new, at)
        found += keywords.compare_values(old, new, at)
        # A keyword of one type constrains only values of that type: where a type is
        # gained or lost the type change says so, and its keywords are not a change too.
        types = (keywords.types_of(old) or keywords.ALL_TYPES) & (
            keywords.types_of(new) or keywords.ALL_TYPES
        )
        if types & _NUMBERS:
            found += keywords.compare_numbers(
                old, new, at, integers=types & _NUMBERS == {"integer"} and "number" not in types
            )
        if "string" in types:
            found += keywords.compare_lengths(old, new, at, "minLength", "maxLength")
            found += keywords.compare_pattern(old, new, at)
        if "array" in types:
            found += keywords.compare_lengths(old, new, at, "minItems", "maxItems")
            found += keywords.compare_flag(old, new, at, "uniqueItems")
            found += self._items(old, new, at)
        if "object" in types:
            found += keywords.compare_lengths(old, new, at, "minProperties", "maxProperties")
            found += compare_object(self, old, new, at)
        found += combinators.compare_all_of(self, old, new, at)
        found += combinators.compare_any_of(self, old, new, at, "anyOf")
        found += combinators.compare_one_of(self, old, new, at)
        return instances.settle(found, old, new, at, self.judges)

    # ------------------------------------------------------------------ $ref

    def _references(self, old: Any, new: Any, at: str) -> list[Difference]:
        old_target, old_rest, old_ref = self._split(old, self.old_root, self._bare_references[0])
        new_target, new_rest, new_ref = self._split(new, self.new_root, self._bare_references[1])
        if old_target is _UNRESOLVED or new_target is _UNRESOLVED:
            said = f"$ref {shown(old_ref)} → {shown(new_ref)} (only references inside the document can be followed)"
            return [difference(pointer_join(at, "$ref"), said, Effect.UNKNOWN)]
        if old_ref is not None and new_ref is not None:
            return self._pair(old_ref, new_ref, old_target, new_target) + self.compare(
                old_rest, new_rest, at
            )
        if _only_annotations(old_rest) and _only_annotations(new_rest):
            # One side names its schema by reference, the other writes it out.
            return self.compare(old_target, new_target, at)
        said = "a $ref with sibling keywords on one side only"
        return [difference(at, said, Effect.UNKNOWN)]

    def _pair(
        self, old_ref: str, new_ref: str, old_target: Any, new_target: Any
    ) -> list[Difference]:
        """Two referenced schemas compared, once. A pair met again while it is being
        compared is taken to hold (coinduction: what differs is found by the comparison
        in progress). Pairs that reach one another (a strongly connected group, found by
        Tarjan's low-link on the stack of open pairs) are complete only when the first of
        them is: then each gets its own differences and the group's."""
        pair = (old_ref, new_ref)
        if pair in self._known:
            return self._known[pair]
        if pair in self._open:
            self._lowest = min(self._lowest, self._open[pair])
            return []
        if pair in self._partial:  # done, its group still open: as good as recomputed
            lowest, found = self._partial[pair]
            self._lowest = min(self._lowest, lowest)
            return found
        index = self._open[pair] = len(self._open)
        outer_lowest, self._lowest = self._lowest, index
        try:
            inside = self.compare(old_target, new_target, self.base + _pointer_of(new_ref))
        finally:
            del self._open[pair]
        if self._lowest >= index:  # complete: every assumption made inside is discharged
            self._known[pair] = inside
            while self._pending and self._pending[-1][1] > index:
                member, _ = self._pending.pop()
                _, partial = self._partial.pop(member)
                self._known[member] = list(dict.fromkeys(partial + inside))
            self._lowest = outer_lowest
        else:
            self._pending.append((pair, index))
            self._partial[pair] = (self._lowest, inside)
            self._lowest = min(outer_lowest, self._lowest)
        return inside

    @staticmethod
    def _split(schema: Any, root: Any, bare: bool) -> tuple[Any, Any, str | None]:
        """(target, the schema without $ref, the reference) of a schema; a schema without
        $ref is its own target with nothing beside it. ``bare``: the dialect ignores the
        keywords beside a $ref (draft-07 and before), so they are not compared."""
        if not isinstance(schema, dict) or "$ref" not in schema:
            return schema, {}, None
        reference = schema["$ref"]
        rest = {} if bare else {k: v for k, v in schema.items() if k != "$ref"}
        return resolve(root, reference), rest, reference if isinstance(reference, str) else None

    # ------------------------------------------------------------ arrays

    def _items(self, old: dict[str, Any], new: dict[str, Any], at: str) -> list[Difference]:
        if isinstance(old.get("items"), list) or isinstance(new.get("items"), list):
            # draft-07 tuple form: positions in `items`, the rest in `additionalItems`
            old = _tuple_form(old)
            new = _tuple_form(new)
        before, after = old.get("prefixItems", []), new.get("prefixItems", [])
        if not isinstance(before, list) or not isinstance(after, list):
            return [difference(pointer_join(at, "prefixItems"), "not a list", Effect.UNKNOWN)]
        found: list[Difference] = []
        old_rest, new_rest = old.get("items", True), new.get("items", True)
        for index in range(max(len(before), len(after))):
            first = before[index] if index < len(before) else old_rest
            second = after[index] if index < len(after) else new_rest
            where = (
                pointer_join(at, "prefixItems", index)
                if index < len(after)
                else pointer_join(at, "items")
            )
            found += self.compare(first, second, where)
        found += self.compare(old_rest, new_rest, pointer_join(at, "items"))
        return found

    # ------------------------------------------------------------ helpers

    def target(self, schema: Any, *, old: bool) -> Any:
        """The schema a bare local $ref leads to (itself otherwise), in the old or new
        document."""
        for _ in range(_MAX_DEPTH):  # a loop of references ends somewhere
            if not (isinstance(schema, dict) and set(schema) - ANNOTATIONS == {"$ref"}):
                break
            found = resolve(self.old_root if old else self.new_root, schema["$ref"])
            if found is _UNRESOLVED or found is schema:
                return schema
            schema = found
        return schema

    def refused_example(self, accepted_before: Any, new: Any) -> tuple[bool, Any]:
        """A value the old schema ``accepted_before`` accepts and the new ``new`` refuses."""
        old_judge, new_judge = self.judges
        return instances.refused_example((old_judge, accepted_before), (new_judge, new))

    def same(self, old: Any, new: Any) -> bool:
        """Equal by JSON equality (Python's would take true for 1) once references are
        followed: a changed $defs entry behind an unchanged $ref is a change."""
        if isinstance(old, dict) and isinstance(new, dict):
            old_ref, new_ref = old.get("$ref"), new.get("$ref")
            if isinstance(old_ref, str) and isinstance(new_ref, str):
                rest_old = {k: v for k, v in old.items() if k != "$ref"}
                rest_new = {k: v for k, v in new.items() if k != "$ref"}
                return self._same_targets(old_ref, new_ref) and self.same(rest_old, rest_new)
            if old.keys() != new.keys():
                return False
            return all(self.same(old[k], new[k]) for k in old)
        if isinstance(old, list) and isinstance(new, list):
            return len(old) == len(new) and all(map(self.same, old, new))
        if isinstance(old, dict | list) or isinstance(new, dict | list):
            return False
        return value_key(old) == value_key(new)

    def _same_targets(self, old_ref: str, new_ref: str) -> bool:
        """Whether two references lead to equal schemas: each pair decided once, a pair
        met inside its own comparison taken as equal (what differs is found elsewhere)."""
        pair = (old_ref, new_ref)
        if pair in self._same_known:
            return self._same_known[pair]
        old_target, new_target = resolve(self.old_root, old_ref), resolve(self.new_root, new_ref)
        if old_target is _UNRESOLVED or new_target is _UNRESOLVED:
            return old_ref == new_ref and old_target is new_target
        if pair in self._same_active:
            self._same_assumed += 1
            return True
        self._same_active.add(pair)
        assumed_before = self._same_assumed
        try:
            equal = self.same(old_target, new_target)
        finally:
            self._same_active.discard(pair)
        if not equal or self._same_assumed == assumed_before:
            self._same_known[pair] = equal
        return equal


_UNRESOLVED = object()


class _Exhausted(Exception):
    """More subschema pairs compared than _MAX_WORK."""


def resolve(root: Any, reference: Any) -> Any:
    """The schema a local reference ("#", "#/$defs/x") points at in ``root``."""
    if not isinstance(reference, str) or not reference.startswith("#"):
        return _UNRESOLVED
    node = root
    if reference in ("#", "#/"):
        return node
    if not reference.startswith("#/"):
        return _UNRESOLVED  # an $anchor: not followed
    for raw in reference[2:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _UNRESOLVED
    return node


def _pointer_of(reference: str) -> str:
    return reference[1:] if reference.startswith("#") else ""


def _schema_like(value: Any) -> bool:
    return isinstance(value, dict | bool)


def _boolean(schema: Any) -> Any:
    if schema is True:
        return {}
    return schema


def _only_annotations(schema: Any) -> bool:
    return isinstance(schema, dict) and not (schema.keys() - ANNOTATIONS)


def _tuple_form(schema: dict[str, Any]) -> dict[str, Any]:
    items = schema.get("items")
    if not isinstance(items, list):
        return schema
    rest = {k: v for k, v in schema.items() if k not in ("items", "additionalItems")}
    return {**rest, "prefixItems": items, "items": schema.get("additionalItems", True)}
