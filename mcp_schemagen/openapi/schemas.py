"""OpenAPI schemas (3.0's dialect or 3.1's 2020-12) -> JSON Schema 2020-12 for one tool's
inputSchema or outputSchema.

Every ``$ref`` (internal or to a relative file) becomes a ``#/$defs/NAME`` of the tool's
schema, so a shared schema is written once per tool and a recursive one stays finite.
3.0's ``nullable`` becomes ``"null"`` in ``type`` (or an ``anyOf`` with it), boolean
``exclusiveMinimum``/``exclusiveMaximum`` the numeric form, ``example`` ``examples``, and a
``discriminator`` over ``oneOf``/``anyOf`` pins the property's value in each branch, so the
branch the API would pick is the only one that matches. ``readOnly`` properties leave
inputs, ``writeOnly`` ones outputs. Messy keywords are cleaned with a warning naming
file#/pointer."""

from __future__ import annotations

import json
import posixpath
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Literal
from urllib.parse import unquote, urldefrag, urlsplit

from mcp_schemagen import openapi
from mcp_schemagen.diagnostics import Diagnostic, pointer_join, warning
from mcp_schemagen.openapi.document import Scope, UnresolvableRef

Direction = Literal["input", "output"]

# Keywords whose value is one schema, a map of schemas, or a list of schemas.
_ONE = ("additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
        "unevaluatedItems", "unevaluatedProperties", "contentSchema")  # fmt: skip
_MAP = ("properties", "patternProperties", "dependentSchemas")
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
# Annotations of OpenAPI that JSON Schema has no use for.
_DROPPED = frozenset({"xml", "externalDocs", "discriminator", "nullable", "$schema", "$id"})
# Keyword spellings real documents use by mistake (OpenAI's `min_items`), and the keyword.
_TYPOS = {
    "min_items": "minItems",
    "max_items": "maxItems",
    "min_length": "minLength",
    "max_length": "maxLength",
    "unique_items": "uniqueItems",
    "min_properties": "minProperties",
    "max_properties": "maxProperties",
}
_MAX_DEPTH = 96
# What a schema may hold to be merged with others of an allOf: listed properties only.
_PLAIN_OBJECT = frozenset({"type", "properties", "required", "description", "title", "examples"})
# Characters of JSON one inputSchema or outputSchema may hold with its $defs, by default
# (`import openapi --schema-budget KB`). Measured: Swagger Petstore's largest is 1.4 KB;
# of GitHub's 2,146 schemas one is larger (89 KB, an issue timeline of 33 event kinds); Stripe's
# outputs reach its whole graph (290 KB each, 115 MB of tool files for 416 tools at 256 KB,
# a build that does not end in 15 minutes). At 64 KB Stripe's tool files are 30 MB.
SCHEMA_BUDGET = openapi.SCHEMA_BUDGET


class SchemaError(Exception):
    """A schema that cannot be translated (what and where)."""


@dataclass
class SharedDefs:
    """The ``$defs`` of one import, shared by its tools: a schema many operations use is
    translated once per direction and has one name in every tool file (each file holds
    only the entries its schemas reach)."""

    names: dict[str, str] = field(default_factory=dict)  # target URI -> def name
    by_direction: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {"input": {}, "output": {}}
    )
    # JSON length of each finished def, by (direction, name): a def is measured once per
    # import, not once per tool reaching it (Stripe's 416 tools reach ~800 defs each).
    sizes: dict[tuple[str, str], int] = field(default_factory=dict)
    reaches: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # likewise, refs

    def size(self, direction: str, name: str) -> int:
        key = (direction, name)
        if key not in self.sizes:
            self.sizes[key] = len(json.dumps(self.by_direction[direction][name]))
        return self.sizes[key]

    def refs(self, direction: str, name: str) -> list[str]:
        key = (direction, name)
        if key not in self.reaches:
            self.reaches[key] = _refs(self.by_direction[direction][name])
        return self.reaches[key]


@dataclass
class Translation:
    """The translation of one direction of one tool, and what was cleaned on the way."""

    version: str  # "3.0" or "3.1"
    direction: Direction
    label: str  # the document, as diagnostics name it
    root_uri: str
    shared: SharedDefs = field(default_factory=SharedDefs)
    warnings: list[Diagnostic] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)  # defs `finish` cut to stay within budget

    @property
    def defs(self) -> dict[str, Any]:
        """Every def translated so far in this direction (name -> schema)."""
        return self.shared.by_direction[self.direction]

    def finish(self, schema: Any, budget: int = SCHEMA_BUDGET) -> Any:
        """``schema`` with the ``$defs`` its refs reach (a flattened body's own def is
        left out), sorted so that the output is stable. A root that is only a ``$ref`` is
        the schema it names, so hosts and the build see its type at the root.

        The defs nearest the root are kept while the schema stays within ``budget``
        characters of JSON; the rest are cut to a schema that accepts anything and says
        where the original is (named in ``self.cut``), so one tool file of a huge document
        stays readable and buildable. Every def reached is charged as such a stand-in
        until it is kept, so the stand-ins too fit in the budget."""
        if isinstance(schema, dict) and set(schema) == {"$ref"}:
            name = str(schema["$ref"]).removeprefix("#/$defs/")
            if isinstance(self.defs.get(name), dict):
                schema = dict(self.defs[name])
        if not isinstance(schema, dict):
            return schema
        origin = {name: uri for uri, name in self.shared.names.items()}
        stand_ins: dict[str, Any] = {}
        size = len(json.dumps({**schema, "$defs": {}}))
        kept: dict[str, Any] = {}
        queue: deque[str] = deque()

        def entry(name: str, value: Any) -> int:  # `"name": value, ` in json.dumps
            return len(json.dumps(name)) + len(json.dumps(value)) + 4

        def reach(names: list[str]) -> tuple[int, int]:
            """Charge the newly reached ``names`` as stand-ins and queue them: their
            characters and how many were new."""
            charged, count = 0, 0
            for name in names:
                if name in stand_ins or name not in self.defs:
                    continue
                where = self._where(origin[name])
                stand_ins[name] = {
                    "description": f"Cut by mcp-codegen import (schema budget): {where}"
                }
                queue.append(name)  # breadth first: the nearest defs are kept first
                charged, count = charged + entry(name, stand_ins[name]), count + 1
            return charged, count

        size += reach(_refs(schema))[0]
        while queue:
            name = queue.popleft()
            cost = len(json.dumps(name)) + self.shared.size(self.direction, name) + 4
            cost -= entry(name, stand_ins[name])
            added, count = reach(self.shared.refs(self.direction, name))
            if size + cost + added > budget:
                for _ in range(count):  # not reached after all: the queue's last entries
                    del stand_ins[queue.pop()]
                continue
            size += cost + added
            kept[name] = self.defs[name]
        self.cut = sorted(name for name in stand_ins if name not in kept)
        kept.update((name, stand_ins[name]) for name in self.cut)
        if not kept:
            return schema
        return {**schema, "$defs": dict(sorted(kept.items()))}

    def schema(self, node: Any, scope: Scope, pointer: str, depth: int = 0) -> Any:
        if depth > _MAX_DEPTH:
            raise SchemaError(
                f"{self.file_of(scope)}#{pointer}: nested more than {_MAX_DEPTH} deep"
            )
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict):
            raise SchemaError(f"{self.file_of(scope)}#{pointer}: a schema must be an object")
        if isinstance(node.get("$ref"), str):
            reference = self._reference(node["$ref"], scope)
            if self.version == "3.0":  # 3.0: siblings of $ref are ignored by definition
                return reference
            rest = {k: v for k, v in node.items() if k != "$ref"}
            if not rest:
                return reference
            return {**reference, **self._object(rest, scope, pointer, depth)}
        return self._object(node, scope, pointer, depth)

    def _object(self, node: dict[str, Any], scope: Scope, pointer: str, depth: int) -> Any:
        out: dict[str, Any] = {}
        for key, value in node.items():
            at = pointer_join(pointer, key)
            if key in _TYPOS:
                self._clean(
                    scope, at, f"{key!r} is not a JSON Schema keyword; read as {_TYPOS[key]!r}"
                )
                key = _TYPOS[key]
            if key.startswith("x-") or key in _DROPPED:
                continue
            if key in ("$recursiveAnchor", "$recursiveRef", "$dynamicAnchor"):
                self._clean(
                    scope, at, f"{key} (2019-09 recursion) is dropped: the schema accepts more"
                )
                continue
            if key in ("$defs", "definitions"):
                continue  # what refs reach of them becomes the tool's own $defs
            if key == "example":
                out.setdefault("examples", [value])
            elif key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
                bound = "minimum" if key == "exclusiveMinimum" else "maximum"
                if value and bound in node:
                    out[key] = node[bound]
            elif key in ("minimum", "maximum") and node.get(f"exclusive{key.title()}") is True:
                continue  # moved into exclusiveMinimum/exclusiveMaximum above
            elif key == "required" and isinstance(value, list):
                unique = list(dict.fromkeys(value))
                if len(unique) != len(value):
                    self._clean(scope, at, "duplicate names in required are listed once")
                out[key] = unique
            elif key in _ONE or (key == "items" and isinstance(value, dict | bool)):
                out[key] = self.schema(value, scope, at, depth + 1)
            elif key == "items" and isinstance(value, list):  # draft 4 tuples
                out["prefixItems"] = [
                    self.schema(v, scope, pointer_join(at, i), depth + 1)
                    for i, v in enumerate(value)
                ]
            elif key in _MAP and isinstance(value, dict):
                inner, where = scope, at
                if set(value) == {"$ref"} and isinstance(value["$ref"], str):
                    # `properties: {$ref: props.yml}` (DigitalOcean's): the map behind it
                    self._clean(scope, at, f"{key} given by $ref is read as the map it names")
                    ref = value["$ref"]
                    where = unquote(urldefrag(scope.target(ref))[1])
                    value, inner = scope.resolve(ref)
                    if not isinstance(value, dict):
                        raise SchemaError(f"{self.file_of(scope)}#{at}: $ref names no map")
                out[key] = {
                    name: self.schema(sub, inner, pointer_join(where, name), depth + 1)
                    for name, sub in value.items()
                }
            elif key in _LIST and isinstance(value, list):
                out[key] = [
                    self.schema(v, scope, pointer_join(at, i), depth + 1)
                    for i, v in enumerate(value)
                ]
            else:
                out[key] = value
        self._leave_out_one_way_properties(node, out, scope)
        self._pin_discriminator(node, out, scope)
        out = self._merged_all_of(out)
        if self.version == "3.0" and node.get("nullable") is True:
            return _nullable(out)
        return out

    def _merged_all_of(self, out: dict[str, Any]) -> dict[str, Any]:
        """An ``allOf`` of plain objects (listed properties, nothing else) as the one object
        it means. The same instances validate; typed code gets one TypedDict instead of a
        class hierarchy whose subclasses narrow what their bases declare (which TypedDict
        forbids: `allOf: [Base, {required: [name]}]`, DigitalOcean's pattern)."""
        members = out.get("allOf")
        if not isinstance(members, list) or set(out) - _PLAIN_OBJECT - {"allOf"}:
            return out
        parts = [{k: v for k, v in out.items() if k != "allOf"}]
        for member in members:
            if isinstance(member, dict) and set(member) == {"$ref"}:
                member = self.defs.get(str(member["$ref"]).removeprefix("#/$defs/"))
            if not isinstance(member, dict) or not member or set(member) - _PLAIN_OBJECT:
                return out  # not plain, or a recursive def still being translated
            parts.append(member)
        properties: dict[str, Any] = {}
        required: list[str] = []
        for part in parts:
            if part.get("type", "object") != "object":
                return out
            for name, schema in part.get("properties", {}).items():
                if name not in properties or properties[name] == schema:
                    properties[name] = schema
                elif isinstance(properties[name], dict) and isinstance(schema, dict):
                    # both hold: one schema meaning both (merged again when both are plain)
                    properties[name] = self._merged_all_of({"allOf": [properties[name], schema]})
                else:
                    return out
            required += [r for r in part.get("required", []) if r not in required]
        merged = {k: v for k, v in parts[0].items() if k not in ("properties", "required")}
        merged = {"type": "object", **merged, "properties": properties}
        if required:
            merged["required"] = required
        return merged

    def _reference(self, ref: str, scope: Scope) -> dict[str, Any]:
        uri = scope.target(ref)
        names = self.shared.names
        if uri not in names:
            names[uri] = self._new_name(uri)
        name = names[uri]
        if name not in self.defs:
            target, inner = scope.resolve(ref)
            self.defs[name] = {}  # reserved: a recursive ref ends here
            fragment = unquote(urldefrag(uri)[1])
            try:
                self.defs[name] = self.schema(target, inner, fragment)
            except BaseException:
                del self.defs[name]  # never leave the reservation for another tool to read
                raise
        return {"$ref": f"#/$defs/{name}"}

    def _new_name(self, uri: str) -> str:
        fragment = unquote(urldefrag(uri)[1])
        last = fragment.rsplit("/", 1)[-1] or urldefrag(uri)[0].rsplit("/", 1)[-1]
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", last) or "schema"
        taken = set(self.shared.names.values())
        name, counter = base, 2
        while name in taken:
            name, counter = f"{base}_{counter}", counter + 1
        return name

    def _flag(self, schema: Any, scope: Scope, keyword: str) -> bool:
        """Whether ``schema`` (behind its refs) carries ``keyword: true``."""
        try:
            target, _ = scope.deref(schema)
        except UnresolvableRef:
            return False
        return isinstance(target, dict) and target.get(keyword) is True

    def _leave_out_one_way_properties(
        self, node: dict[str, Any], out: dict[str, Any], scope: Scope
    ) -> None:
        properties = node.get("properties")
        if not isinstance(properties, dict):
            return
        keyword = "readOnly" if self.direction == "input" else "writeOnly"
        gone = {name for name, sub in properties.items() if self._flag(sub, scope, keyword)}
        if not gone:
            return
        out["properties"] = {k: v for k, v in out["properties"].items() if k not in gone}
        if isinstance(out.get("required"), list):
            out["required"] = [name for name in out["required"] if name not in gone]
            if not out["required"]:
                del out["required"]

    def _pin_discriminator(self, node: dict[str, Any], out: dict[str, Any], scope: Scope) -> None:
        discriminator = node.get("discriminator")
        if not isinstance(discriminator, dict):
            return
        prop = discriminator.get("propertyName")
        if not isinstance(prop, str):
            return
        mapping = discriminator.get("mapping", {})
        by_target: dict[str, list[str]] = {}
        for value, target in mapping.items() if isinstance(mapping, dict) else ():
            ref = (
                target
                if "#" in str(target) or "/" in str(target)
                else f"#/components/schemas/{target}"
            )
            by_target.setdefault(scope.target(ref), []).append(str(value))
        for key in ("oneOf", "anyOf"):
            branches = node.get(key)
            if not isinstance(branches, list):
                continue
            for index, branch in enumerate(branches):
                if not (isinstance(branch, dict) and isinstance(branch.get("$ref"), str)):
                    continue
                uri = scope.target(branch["$ref"])
                values = by_target.get(uri) or [unquote(urldefrag(uri)[1]).rsplit("/", 1)[-1]]
                pin = {"const": values[0]} if len(values) == 1 else {"enum": values}
                out[key][index] = {**out[key][index], "properties": {prop: pin}}

    def _where(self, uri: str) -> str:
        """``uri`` as messages and tool files say it: file and pointer."""
        base, fragment = urldefrag(uri)
        file = (
            self.label if base == self.root_uri else _relative_file(base, self.root_uri, self.label)
        )
        return f"{file}#{unquote(fragment)}"

    def file_of(self, scope: Scope) -> str:
        """The file a schema is in: the document's label, or another file's path from the
        document's folder (never the machine's absolute path)."""
        return (
            self.label
            if scope.base == self.root_uri
            else _relative_file(scope.base, self.root_uri, self.label)
        )

    def _clean(self, scope: Scope, pointer: str, message: str) -> None:
        self.warnings.append(warning(self.file_of(scope), pointer, message))


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str):
        schema = {**schema, "type": [kind, "null"]}
    elif isinstance(kind, list):
        schema = {**schema, "type": [*kind, *([] if "null" in kind else ["null"])]}
    else:
        return {"anyOf": [schema, {"type": "null"}]}
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]
    return schema


def _refs(node: Any) -> list[str]:
    """The def names ``node`` refers to, in document order."""
    found: list[str] = []
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, dict):
            ref = current.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                found.append(ref.removeprefix("#/$defs/"))
            pending.extend(reversed(list(current.values())))
        elif isinstance(current, list):
            pending.extend(reversed(current))
    return found


def _relative_file(uri: str, root_uri: str, label: str) -> str:
    """A file URI named as the document is (``label``, at ``root_uri``): a path from the
    same place, so that ``specs/api.yaml`` and its ``specs/common/pet.yaml`` read alike."""
    path = PurePosixPath(unquote(urlsplit(uri).path))
    folder = PurePosixPath(unquote(urlsplit(root_uri).path)).parent
    return posixpath.normpath(
        posixpath.join(posixpath.dirname(label), posixpath.relpath(path, folder))
    )
