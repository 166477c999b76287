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
import yaml

from mcp_schemagen.compile import type_shield
from mcp_schemagen.diagnostics import BuildError, pointer_join
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


class OldShield(type_shield.Shield):
    def _walk(self, node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        shielded: dict[str, Any] = {}
        for key, value in node.items():
            if key not in KEYWORDS:
                continue
            if key in ("enum", "const") and type_shield.beyond_64_bits(value):
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


# The hostile cases that give the walkers no schema, and why; every other case gives at
# least one. A case refused by its settings has no tool file to read; one whose file the
# build refuses (a diagnostic) is read here as it is, when it parses, and walked anyway.
NOT_WALKED = {
    "yaml-alias-bomb": "not loaded here (slow); the build refuses it before any walk",
    "glob-absolute": "settings refused: BuildError",
    "glob-etc": "settings refused: BuildError",
    "glob-parent": "settings refused: BuildError",
    "out-parent": "settings refused: BuildError",
    "out-grandparent": "settings refused: BuildError",
    "out-absolute": "settings refused: BuildError",
    "package-folder-link": "settings refused: BuildError",
    "tools-folder-link": "no tool file inside the project",
    "yaml-recursive-alias": "a recursive structure, not a schema",
    "integer-5000-digits-json": "does not parse: ValueError",
    "integer-5000-digits-yaml": "does not parse: ValueError",
    "json-nested-5000": "does not parse: RecursionError",
    "yaml-nested-5000": "does not parse: RecursionError",
}


def _raw_schemas(project: Path) -> tuple[list[Any], str | None]:
    """The schemas in a project's tool files as they parse, for a case whose files the
    build refused (it would walk none of them); else why there are none."""
    found: list[Any] = []
    why = "no tool file inside the project"
    tools = project / "tools"
    for path in sorted(tools.iterdir()) if tools.is_dir() and not tools.is_symlink() else []:
        try:
            text = path.read_bytes()
            document = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        except (ValueError, RecursionError, yaml.YAMLError) as exc:
            why = f"does not parse: {type(exc).__name__}"
            continue
        if _recursive(document):
            why = "a recursive structure, not a schema"
            continue
        if isinstance(document, dict):
            found += [document[key] for key in ("inputSchema", "outputSchema") if key in document]
    return found, None if found else why


def _recursive(value: Any, inside: tuple[int, ...] = ()) -> bool:
    if id(value) in inside:
        return True
    if isinstance(value, dict):
        children: Any = value.values()
    elif isinstance(value, list):
        children = value
    else:
        return False
    return any(_recursive(child, (*inside, id(value))) for child in children)


def _hostile_schemas(tmp_path: Path) -> tuple[list[Any], dict[str, str]]:
    """The schemas of the hostile corpus, and the cases that gave none, with why."""
    found: list[Any] = []
    not_walked: dict[str, str] = {}
    for case in CASES:
        if case.name == "yaml-alias-bomb":
            not_walked[case.name] = NOT_WALKED[case.name]
            continue
        where = Where(tmp_path / case.name, tmp_path / "outside", tmp_path / "PWNED")
        write_project(where.project, {})
        case.make(where)
        try:
            schemas = _tool_schemas(where.project)
        except BuildError as exc:  # refused by its settings (globs, out, package)
            not_walked[case.name] = f"settings refused: {type(exc).__name__}"
            continue
        why = None
        if not schemas:  # the build refused its files: walk what they hold anyway
            schemas, why = _raw_schemas(where.project)
        if why is not None:
            not_walked[case.name] = why
        found += schemas
    return found, not_walked


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    hostile, not_walked = _hostile_schemas(tmp_path_factory.mktemp("hostile"))
    # Every case is walked or listed, with its reason, as one that cannot be: a case that
    # stops giving schemas (or a new one that gives none) fails here, never silently.
    assert not_walked == NOT_WALKED
    assert len(hostile) >= len(CASES) - len(NOT_WALKED)
    golden = _golden_schemas()
    cases = list((REPO / "tests" / "generator" / "cases").glob("*/input"))
    assert len(golden) >= len(cases)  # the golden cases really were read
    return golden + hostile + PATTERNS


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
        new, old = type_shield.Shield(schema), OldShield(schema)
        assert json.dumps(new.schema) == json.dumps(old.schema)
        assert new.originals == old.originals
