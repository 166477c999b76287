"""A JSON Schema as a TypeScript type, for the declarations an MCP Apps view imports
(view_types.py). The mapping is the one the Python side's TypedDicts follow: properties
and `required` give optional and required members, `enum`/`const` literal unions,
`anyOf`/`oneOf` unions, `allOf` intersections; `$ref`s inside the document are inlined
(a cycle becomes `unknown`). What TypeScript cannot say (patterns, bounds) is left to
the server's validation, as the Python types leave it. Same schema, same text."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

_SCALARS = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean"}
_INDENT = "  "
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*\Z")


def literal(value: Any) -> str:
    """A JSON value as a TypeScript literal type (JSON's syntax is TypeScript's)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))


def member_name(name: str) -> str:
    """A property's name as written in a type: bare when it is an identifier, else quoted."""
    return name if _IDENTIFIER.match(name) else literal(name)


def doc_comment(text: str, indent: str) -> str:
    """``text`` as a JSDoc comment, its end marker made harmless."""
    lines = text.replace("*/", "*\\/").strip().splitlines() or [""]
    if len(lines) == 1:
        return f"{indent}/** {lines[0]} */\n"
    body = "".join(f"{indent} * {line}".rstrip() + "\n" for line in lines)
    return f"{indent}/**\n{body}{indent} */\n"


class TypeScript:
    """The types of one schema document (a tool's inputSchema or outputSchema)."""

    def __init__(self, document: Any) -> None:
        self._document = document

    def of(self, schema: Any, depth: int = 0, seen: tuple[str, ...] = ()) -> str:
        if schema is True or schema == {}:
            return "unknown"
        if schema is False:
            return "never"
        if not isinstance(schema, Mapping):
            return "unknown"
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = self._resolve(ref)
            if target is None or ref in seen:
                return "unknown"
            return self.of(target, depth, (*seen, ref))
        if "const" in schema:
            return literal(schema["const"])
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return _union([literal(v) for v in schema["enum"]])
        for combinator in ("anyOf", "oneOf"):
            branches = schema.get(combinator)
            if isinstance(branches, list) and branches:
                rest = {k: v for k, v in schema.items() if k != combinator}
                joined = _union([self.of(b, depth, seen) for b in branches])
                return self._with_rest(joined, rest, depth, seen)
        parts = schema.get("allOf")
        if isinstance(parts, list) and parts:
            rest = {k: v for k, v in schema.items() if k != "allOf"}
            joined = " & ".join(_grouped(self.of(p, depth, seen)) for p in parts)
            return self._with_rest(joined, rest, depth, seen)
        kinds = schema.get("type")
        if isinstance(kinds, list):
            return _union([self._typed(schema, k, depth, seen) for k in kinds])
        if isinstance(kinds, str):
            return self._typed(schema, kinds, depth, seen)
        if "properties" in schema or "additionalProperties" in schema:
            return self._object(schema, depth, seen)
        if "items" in schema or "prefixItems" in schema:
            return self._array(schema, depth, seen)
        return "unknown"

    def _with_rest(
        self, joined: str, rest: Mapping[str, Any], depth: int, seen: tuple[str, ...]
    ) -> str:
        own = self.of(rest, depth, seen) if _constrains(rest) else "unknown"
        return joined if own == "unknown" else f"{_grouped(own)} & {_grouped(joined)}"

    def _typed(
        self, schema: Mapping[str, Any], kind: str, depth: int, seen: tuple[str, ...]
    ) -> str:
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "null":
            return "null"
        if kind == "array":
            return self._array(schema, depth, seen)
        if kind == "object":
            return self._object(schema, depth, seen)
        return "unknown"

    def _array(self, schema: Mapping[str, Any], depth: int, seen: tuple[str, ...]) -> str:
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list):
            members = [self.of(item, depth, seen) for item in prefix]
            if schema.get("items") is not False:
                members.append(f"...{_grouped(self.of(schema.get('items', True), depth, seen))}[]")
            return f"[{', '.join(members)}]"
        return f"{_grouped(self.of(schema.get('items', True), depth, seen))}[]"

    def _object(self, schema: Mapping[str, Any], depth: int, seen: tuple[str, ...]) -> str:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        required = schema.get("required")
        required = set(required) if isinstance(required, list) else set()
        extra = schema.get("additionalProperties")
        if not properties and extra is None:
            return "{ [key: string]: unknown }"
        inner = _INDENT * (depth + 1)
        lines = []
        for name, sub in properties.items():
            description = sub.get("description") if isinstance(sub, Mapping) else None
            if isinstance(description, str) and description.strip():
                lines.append(doc_comment(description, inner))
            mark = "" if name in required else "?"
            lines.append(f"{inner}{member_name(name)}{mark}: {self.of(sub, depth + 1, seen)};\n")
        if extra is not None and extra is not False:
            lines.append(f"{inner}[key: string]: unknown;\n")
        return "{\n" + "".join(lines) + _INDENT * depth + "}"

    def _resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            return None  # outside the document: the build's checks have said so
        node: Any = self._document
        for part in ref[1:].split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return node


def _constrains(rest: Mapping[str, Any]) -> bool:
    return any(k in rest for k in ("type", "properties", "items", "enum", "const"))


def _grouped(text: str) -> str:
    """``text`` parenthesized when it is a union or an intersection at its top level (an
    array of it, or a member of another such type, would otherwise bind wrongly)."""
    depth = 0
    quoted = False
    for index, char in enumerate(text):
        if quoted:
            quoted = char != '"' or text[index - 1] == "\\"
        elif char == '"':
            quoted = True
        elif char in "{[(":
            depth += 1
        elif char in "}])":
            depth -= 1
        elif depth == 0 and char in "|&" and text[index - 1 : index + 2] in (" | ", " & "):
            return f"({text})"
    return text


def _union(members: list[str]) -> str:
    unique = list(dict.fromkeys(members))
    if "unknown" in unique:
        return "unknown"
    return " | ".join(_grouped(m) if " & " in m else m for m in unique)
