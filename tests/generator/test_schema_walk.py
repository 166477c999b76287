"""One schema walker (mcp_schemagen.schema.walk) replaced four: lint's `_subschemas`, the
reference checks' `_nodes`, the protocol models' `_schema_nodes` and the type shield's
`_walk`. Each old walker is kept here, as it was, to compare on every schema of the
golden cases, the hostile corpus, the real-schema patterns below and the pinned protocol
schemas: lint and the shield are unchanged; the reference checks no longer take data
(values of keywords such as `$vocabulary` or `dependentRequired`) for schemas; the
protocol models now also walk `dependentSchemas`, `dependencies`, `contentSchema` and
`additionalItems`, which the pinned protocol schemas do not use (so their models are
unchanged)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen.compile import typegen
from mcp_schemagen.diagnostics import pointer_join
from mcp_schemagen.load import specs
from mcp_schemagen.load.config import load_config
from mcp_schemagen.load.tools import load_tools
from mcp_schemagen.runtime.protocol import REVISIONS
from mcp_schemagen.schema.keywords import (
    DEFINITIONS,
    KEYWORDS,
    ONE_SCHEMA,
    OTHER_SCHEMA_MAPS,
    SCHEMA_LISTS,
    SCHEMA_MAPS,
    VALUES,
)
from mcp_schemagen.schema.walk import subschemas
from tests.generator.test_hostile_build import CASES, Where
from tests.support.paths import REPO, needs_shared
from tests.support.projects import write_project

# ------------------------------------------------------------- the old walkers, as they were


def old_lint(node: Any, pointer: str) -> Iterator[tuple[dict[str, Any], str]]:
    if not isinstance(node, dict):
        return
    yield node, pointer
    for key, value in node.items():
        where = pointer_join(pointer, key)
        if key in SCHEMA_MAPS and isinstance(value, dict):
            for name, subschema in value.items():
                yield from old_lint(subschema, pointer_join(where, name))
        elif key in SCHEMA_LISTS and isinstance(value, list):
            for index, subschema in enumerate(value):
                yield from old_lint(subschema, pointer_join(where, index))
        elif key in ONE_SCHEMA:
            yield from old_lint(value, where)


_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples"})
_NAME_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)


def old_checks(node: Any, pointer: str) -> Iterator[tuple[dict[str, Any], str]]:
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from old_checks(item, pointer_join(pointer, index))
        return
    if not isinstance(node, dict):
        return
    yield node, pointer
    for key, value in node.items():
        where = pointer_join(pointer, key)
        if key in _NAME_MAPS and isinstance(value, dict):
            for name, subschema in value.items():
                yield from old_checks(subschema, pointer_join(where, name))
        elif key not in _DATA_KEYWORDS:
            yield from old_checks(value, where)


_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_SUBSCHEMAS = (
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "contains",
    "not",
    "if",
    "then",
    "else",
)


def old_protocol(node: Any) -> Iterator[dict[str, Any]]:
    if not isinstance(node, dict):
        return
    yield node
    for key, value in node.items():
        if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            for sub in value.values():
                yield from old_protocol(sub)
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            for sub in value:
                yield from old_protocol(sub)
        elif key in _SUBSCHEMAS:
            yield from old_protocol(value)


class OldShield(typegen._Shield):
    def _walk(self, node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        shielded: dict[str, Any] = {}
        for key, value in node.items():
            if key not in KEYWORDS:
                continue
            if key in ("enum", "const") and typegen.beyond_64_bits(value):
                continue
            if key == "enum" and isinstance(value, list):
                shielded[key] = [self._data(v) for v in value]
            elif key == "const":
                shielded[key] = self._data(value)
            elif key == "required" and isinstance(value, list):
                shielded[key] = [self._name(v) if isinstance(v, str) else v for v in value]
            elif key in ("default", "examples"):
                shielded[key] = value
            elif key == "description" and isinstance(value, str):
                shielded[key] = self._description(value)
            elif key == "format":
                continue
            elif key in ("properties", "patternProperties") and isinstance(value, dict):
                shielded[key] = {self._name(k): self._walk(v) for k, v in value.items()}
            elif key in DEFINITIONS and isinstance(value, dict):
                shielded[key] = {self._definition(k): self._walk(v) for k, v in value.items()}
            elif key in OTHER_SCHEMA_MAPS and isinstance(value, dict):
                shielded[key] = {k: self._walk(v) for k, v in value.items()}
            elif key == "$ref" and isinstance(value, str):
                shielded[key] = self._reference(value)
            elif key in SCHEMA_LISTS and isinstance(value, list):
                shielded[key] = [self._walk(v) for v in value]
            elif key in ONE_SCHEMA:
                shielded[key] = self._walk(value)
            else:
                shielded[key] = value
        return shielded


# ------------------------------------------------------------------------------ corpus

# Shapes the golden and hostile cases do not hold, for the places where walkers disagreed.
PATTERNS: list[dict[str, Any]] = [
    {
        "type": "object",
        "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/core": True},
        "dependentRequired": {"a": ["b"]},
        "dependentSchemas": {"a": {"properties": {"b": {"type": "integer", "minimum": 1}}}},
        "properties": {
            "a": {"type": "string", "contentSchema": {"type": "number"}},
            "anyOf": {"enum": [{"type": "object"}], "default": {"$ref": "#/nowhere"}},
        },
        "x-extra": {"nested": {"$ref": "https://example.com/x.json"}, "list": [{"a": 1}]},
    },
    {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "array",
        "items": [{"type": "string"}, {"type": "integer"}],
        "additionalItems": {"type": "number"},
        "dependencies": {"a": ["b"], "c": {"required": ["d"]}},
        "definitions": {"x.y": {"type": "number"}, "b": {"$ref": "#/definitions/x.y"}},
    },
]


def _tool_schemas(root: Path) -> list[Any]:
    config = load_config(root)
    sources, _, _ = load_tools(root, config.tool_globs)
    return [
        source.definition[key]
        for source in sources
        for key in ("inputSchema", "outputSchema")
        if key in source.definition
    ]


def _golden_schemas() -> list[Any]:
    cases = sorted((REPO / "tests" / "generator" / "cases").glob("*/input"))
    return [schema for case in cases for schema in _tool_schemas(case)]


def _hostile_schemas(tmp_path: Path) -> list[Any]:
    found: list[Any] = []
    for case in CASES:
        if case.name in {"too-big", "yaml-alias-bomb"}:
            continue  # refused before any walk; slow to load
        where = Where(tmp_path / case.name, tmp_path / "outside", tmp_path / "PWNED")
        write_project(where.project, {})
        case.make(where)
        try:
            found += _tool_schemas(where.project)
        except Exception:
            continue  # a case refused at load (settings, file names): nothing to walk
    return found


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    schemas = _golden_schemas() + _hostile_schemas(tmp_path_factory.mktemp("hostile"))
    assert len(schemas) > 20  # the corpus really was read
    return schemas + PATTERNS


def _pointers(found: Iterator[tuple[dict[str, Any], str]]) -> list[str]:
    return [pointer for _, pointer in found]


def _under_data(pointer: str) -> bool:
    """Whether a pointer passes through the value of a keyword that holds data."""
    parts = pointer.split("/")[1:]
    return any(part in VALUES for part in parts)


def test_lint_walks_as_before(corpus: list[Any]) -> None:
    for schema in corpus:
        assert _pointers(subschemas(schema, "#")) == _pointers(old_lint(schema, "#"))


def test_reference_checks_walk_as_before_except_through_data(corpus: list[Any]) -> None:
    changed = 0
    for schema in corpus:
        new = _pointers(subschemas(schema, "#", unknown=True))
        old = _pointers(old_checks(schema, "#"))
        assert set(new) <= set(old)
        dropped = [pointer for pointer in old if pointer not in new]
        assert all(_under_data(pointer) for pointer in dropped), dropped
        changed += bool(dropped)
    assert changed  # the PATTERNS show the change


def test_protocol_models_walk_as_before_plus_the_maps_they_missed(corpus: list[Any]) -> None:
    missed = ("dependentSchemas", "dependencies", "contentSchema", "additionalItems")
    for schema in corpus:
        new = list(subschemas(schema, "#"))
        old_ids = {id(node) for node in old_protocol(schema)}
        assert old_ids <= {id(node) for node, _ in new}
        extra = [pointer for node, pointer in new if id(node) not in old_ids]
        assert all(any(f"/{key}" in pointer for key in missed) for pointer in extra), extra


@needs_shared
@pytest.mark.parametrize("revision", [revision.name for revision in REVISIONS])
def test_protocol_schemas_walk_exactly_as_before(revision: str) -> None:
    document = specs.load(revision).document
    assert [id(n) for n, _ in subschemas(document)] == [id(n) for n in old_protocol(document)]


def test_type_shield_is_unchanged(corpus: list[Any]) -> None:
    for schema in corpus:
        new, old = typegen._Shield(schema), OldShield(schema)
        assert json.dumps(new.schema) == json.dumps(old.schema)
        assert new.originals == old.originals
