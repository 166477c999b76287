"""Is a message exactly what a protocol revision defines? Checks against ../shared/specs.

Two questions per message: does it validate against the named definition of that
revision's schema.json (python-jsonschema), and does it carry any field the definition
does not declare. For the second, an object may hold only the properties its definition
(with its allOf parts) declares, unless the definition leaves the object open: an
explicit non-false ``additionalProperties``, or an object type with no properties at all
(``_meta`` objects, ``data``). Of an anyOf/oneOf the branch that validates and fits best
is taken. The values of ``inputSchema``, ``outputSchema`` and ``structuredContent`` are
the tool author's, not protocol fields, and are not walked.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema
from jsonschema.validators import validator_for

from tests.support.paths import SHARED_SPECS

SPECS = SHARED_SPECS
OPAQUE = frozenset({"inputSchema", "outputSchema", "structuredContent"})


class SpecCheck:
    def __init__(self, revision: str) -> None:
        self.revision = revision
        self.document: dict[str, Any] = json.loads((SPECS / revision / "schema.json").read_text())
        self.key = "$defs" if "$defs" in self.document else "definitions"
        self.definitions: dict[str, Any] = self.document[self.key]
        self._cls = validator_for(self.document)
        self._validators: dict[str, Any] = {}

    def has(self, definition: str) -> bool:
        return definition in self.definitions

    def _validator(self, node: dict[str, Any]) -> Any:
        marker = json.dumps(node, sort_keys=True)
        validator = self._validators.get(marker)
        if validator is None:
            validator = self._validators[marker] = self._cls({**self.document, **node})
        return validator

    def node(self, definition: str) -> dict[str, Any]:
        return {"$ref": f"#/{self.key}/{definition}"}

    def errors(self, instance: Any, definition: str) -> list[str]:
        """Schema violations and undeclared fields; empty when the message is exact."""
        node = self.node(definition)
        problems = [
            f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
            for e in self._validator(node).iter_errors(instance)
        ]
        problems += [
            f"{path}: not defined by {definition}" for path in self.undefined(instance, node)
        ]
        return problems

    def assert_exact(self, instance: Any, definition: str) -> None:
        problems = self.errors(instance, definition)
        assert not problems, (
            f"{self.revision} {definition}: {problems}\n{json.dumps(instance)[:2000]}"
        )

    # ------------------------------------------------------------ undeclared fields

    def _resolve(self, node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            target = self._lookup(node["$ref"])
            rest = {k: v for k, v in node.items() if k not in ("$ref", "description")}
            node = {**target, **rest} if rest else target
        return node

    def _lookup(self, ref: str) -> Any:
        assert ref.startswith("#/"), ref
        found: Any = self.document
        for part in ref[2:].split("/"):
            found = found[part]
        return found

    def _valid(self, instance: Any, node: Any) -> bool:
        if not isinstance(node, dict):
            return bool(node)
        return bool(self._validator(node).is_valid(instance))

    def undefined(self, instance: Any, node: Any, path: str = "") -> list[str]:
        node = self._resolve(node)
        if not isinstance(node, dict):
            return []
        branches = node.get("anyOf") or node.get("oneOf")
        if branches:
            fits = [self.undefined(instance, b, path) for b in branches if self._valid(instance, b)]
            return min(fits, key=len) if fits else []
        parts = [node] + [self._resolve(part) for part in node.get("allOf", [])]
        if isinstance(instance, dict):
            properties: dict[str, Any] = {}
            additional: Any = None
            for part in parts:
                properties.update(part.get("properties", {}))
                if "additionalProperties" in part:
                    additional = part["additionalProperties"]
            open_object = additional not in (None, False) or (not properties and additional is None)
            found: list[str] = []
            for key, value in instance.items():
                if key in properties:
                    if key not in OPAQUE:
                        found += self.undefined(value, properties[key], f"{path}/{key}")
                elif not open_object:
                    found.append(f"{path}/{key}")
            return found
        if isinstance(instance, list):
            items = next((p["items"] for p in parts if isinstance(p.get("items"), dict)), None)
            if items is None:
                return []
            found = []
            for index, value in enumerate(instance):
                found += self.undefined(value, items, f"{path}/{index}")
            return found
        return []


@cache
def spec(revision: str) -> SpecCheck:
    return SpecCheck(revision)


def schema_error(instance: Any, schema: dict[str, Any]) -> str | None:
    """python-jsonschema's verdict on an instance against a standalone schema."""
    error = jsonschema.exceptions.best_match(validator_for(schema)(schema).iter_errors(instance))
    return None if error is None else error.message
